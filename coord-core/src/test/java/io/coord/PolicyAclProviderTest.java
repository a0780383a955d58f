package io.coord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.List;
import org.apache.zookeeper.ZooDefs.Perms;
import org.apache.zookeeper.data.ACL;
import org.junit.jupiter.api.Test;

/** How the provider maps the paths Curator hands it (see AclPolicyIT for what Curator really hands it). */
class PolicyAclProviderTest {
    private static final AclPolicy POLICY = AclPolicy.builder()
            .defaultAcl(AclEntry.anyone(Perms.READ))
            .rule("/config", AclEntry.anyone(Perms.ALL))
            .rule("/config/secret", AclEntry.digest("admin", "pw", Perms.ALL))
            .build();

    private static List<ACL> acl(String path) {
        return POLICY.aclFor(CoordPath.of(path));
    }

    @Test
    void fullPathsUnderTheNamespaceGetThePolicyOfTheirNamespaceRelativePath() {
        PolicyAclProvider p = new PolicyAclProvider(POLICY, "app");
        assertEquals(acl("/config/x"), p.getAclForPath("/app/config/x"));
        assertEquals(acl("/config/secret/y"), p.getAclForPath("/app/config/secret/y"));
        assertNotEquals(p.getAclForPath("/app/config/x"), p.getAclForPath("/app/config/secret/y"), "longest prefix wins");
    }

    @Test
    void theNamespaceNodeAndItsAncestorsGetTheRootAcl() {
        PolicyAclProvider p = new PolicyAclProvider(POLICY, "apps/billing");
        assertEquals(acl("/"), p.getAclForPath("/apps/billing"));
        assertEquals(acl("/"), p.getAclForPath("/apps"));
        assertEquals(acl("/"), p.getDefaultAcl());
    }

    @Test
    void relativePathsFromTransactionCreatesAreUsedAsTheyAre() {
        PolicyAclProvider p = new PolicyAclProvider(POLICY, "app");
        assertEquals(acl("/config/secret/z"), p.getAclForPath("/config/secret/z"));
    }

    @Test
    void aPrefixMatchesWholeSegmentsOnly() {
        PolicyAclProvider p = new PolicyAclProvider(POLICY, "app");
        assertEquals(acl("/"), p.getAclForPath("/app/configuration"), "/configuration is not under /config");
        assertEquals(acl("/config/x"), p.getAclForPath("/app/config/x"));
        assertEquals(acl("/application/config/x"), p.getAclForPath("/application/config/x"),
                "/application is outside namespace /app, so it is read as a relative path, not stripped");
    }

    @Test
    void withoutANamespaceEveryPathIsTakenAsItIs() {
        PolicyAclProvider p = new PolicyAclProvider(POLICY, null);
        assertEquals(acl("/config/secret/a"), p.getAclForPath("/config/secret/a"));
        assertEquals(acl("/"), p.getAclForPath("/"));
    }

    @Test
    void aPathCoordWouldRejectGetsTheDefaultInsteadOfFailingInsideCurator() {
        PolicyAclProvider p = new PolicyAclProvider(POLICY, null);
        assertEquals(acl("/"), p.getAclForPath("/zookeeper/quota"));
        assertEquals(acl("/"), p.getAclForPath(null));
    }
}
