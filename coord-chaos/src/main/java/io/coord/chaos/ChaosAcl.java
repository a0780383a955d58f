package io.coord.chaos;

import io.coord.AclEntry;
import io.coord.AclPolicy;
import io.coord.CoordSettings;
import io.coord.Credentials;
import org.apache.zookeeper.ZooDefs.Perms;

/**
 * The identity every chaos client (controller and workers) connects with, and the ACL policy
 * every node they create gets: digest user {@value #USER}, all permissions, nobody else. The ACL
 * audit at the end of the suite ({@link AclAudit}) checks the whole tree against this policy and
 * every log against this secret. A fixed test secret, so worker JVMs need not be handed it.
 */
final class ChaosAcl {
    static final String USER = "chaos";
    /** The test secret: it must never appear in any log (the audit searches them for it). */
    static final String SECRET = "chaos-digest-secret-5b1e9f07";
    static final AclPolicy POLICY = AclPolicy.builder().defaultAcl(AclEntry.digest(USER, SECRET, Perms.ALL)).build();

    private ChaosAcl() {
    }

    /** {@code builder} with the chaos credentials and ACL policy. */
    static CoordSettings.Builder secured(CoordSettings.Builder builder) {
        return builder.credentials(Credentials.digest(USER, SECRET)).aclPolicy(POLICY);
    }
}
