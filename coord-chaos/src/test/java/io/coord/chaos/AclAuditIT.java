package io.coord.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.CoordSettings;
import io.coord.test.ZooKeeperExtension;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The suite's closing audit can fail: a node created outside {@link ChaosAcl#POLICY} is reported
 * by path, and a log line holding the test secret is reported by file and line. Against a real
 * server, through clients connected as the chaos workers connect.
 */
class AclAuditIT {
    @RegisterExtension
    static final ZooKeeperExtension SERVER = ZooKeeperExtension.single();

    private static CoordClient secured(String namespace) throws InterruptedException {
        CoordSettings.Builder b = ChaosAcl.secured(CoordSettings.builder()).connectString(SERVER.connectString())
                .sessionTimeout(Duration.ofSeconds(10)).connectionTimeout(Duration.ofSeconds(30));
        return CoordClient.connect((namespace == null ? b : b.namespace(namespace)).build());
    }

    @Test
    void aTreeMadeUnderThePolicyPassesAndEveryNodeWithAnotherAclIsReportedByPath() throws Exception {
        try (CoordClient recipe = secured("chaos-audit"); CoordClient auditor = secured(null)) {
            recipe.curator().create().creatingParentContainersIfNeeded().forPath("/a/b/c");
            recipe.curator().create().withMode(CreateMode.EPHEMERAL).forPath("/a/b/eph");
            long[] nodes = {0};
            List<AclAudit.Outside> clean = AclAudit.walk(auditor.curator(), ChaosAcl.POLICY, nodes);
            assertEquals(List.of(), clean, "every node made through the policy is inside it");
            assertEquals(5, nodes[0], "chaos-audit, a, b, c and eph are walked; / and /zookeeper are ZooKeeper's own");

            recipe.curator().create().withACL(ZooDefs.Ids.OPEN_ACL_UNSAFE).forPath("/a/open");
            auditor.curator().create().withACL(ZooDefs.Ids.OPEN_ACL_UNSAFE).forPath("/stray");
            nodes[0] = 0;
            List<AclAudit.Outside> found = AclAudit.walk(auditor.curator(), ChaosAcl.POLICY, nodes);
            assertEquals(List.of("/chaos-audit/a/open", "/stray"), found.stream().map(AclAudit.Outside::path).sorted().toList(),
                    "both open nodes, and only they, are outside the policy: " + found);
            assertEquals(7, nodes[0]);
            AclAudit.Report report = new AclAudit.Report(nodes[0], found, 0, List.of());
            assertFalse(report.passed());
            assertEquals("CHAOS acl-audit nodes=7 outside-policy=2 secret-hits=0", report.line());
            assertEquals(2, report.toResult().violations());
            assertFalse(report.toResult().passed(), report.toResult().detailLine());
        }
    }

    @Test
    void aLogHoldingTheSecretIsReportedByFileAndLineWithoutRepeatingIt(@TempDir Path dir) throws Exception {
        Path leaky = dir.resolve("worker.log");
        Files.writeString(leaky, "10:00:00 connected\n10:00:01 auth chaos:" + ChaosAcl.SECRET + "\n10:00:02 done\n", StandardCharsets.UTF_8);
        Path clean = dir.resolve("clean.log");
        Files.writeString(clean, "10:00:00 connected as Credentials[digest:chaos, secret=****]\n", StandardCharsets.UTF_8);

        List<String> hits = AclAudit.secretHits(leaky, ChaosAcl.SECRET);
        assertEquals(List.of(leaky + " line 2"), hits);
        assertFalse(hits.get(0).contains(ChaosAcl.SECRET), "a hit names the place, never the secret");
        assertEquals(List.of(), AclAudit.secretHits(clean, ChaosAcl.SECRET), "the masked settings line is no hit");
        assertEquals(List.of(), AclAudit.secretHits(dir.resolve("gone.log"), ChaosAcl.SECRET), "a deleted log has no lines");

        AclAudit.Report report = new AclAudit.Report(3, List.of(), 2, hits);
        assertFalse(report.passed());
        assertEquals("CHAOS acl-audit nodes=3 outside-policy=0 secret-hits=1", report.line());
        assertTrue(new AclAudit.Report(3, List.of(), 2, List.of()).toResult().passed());
    }
}
