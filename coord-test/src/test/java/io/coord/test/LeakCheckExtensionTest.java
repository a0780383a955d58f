package io.coord.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class LeakCheckExtensionTest {
    // The detector is tested directly, so the extension's own check is off here.
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.single().withoutLeakCheck();

    @Test
    void aNonDaemonThreadStartedDuringTheTestIsReportedUntilItEnds() throws InterruptedException {
        LeakCheckExtension check = LeakCheckExtension.threads();
        check.begin();
        CountDownLatch release = new CountDownLatch(1);
        Thread leaky = new Thread(() -> {
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "leaky-worker");
        Thread daemon = new Thread(() -> {
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "daemon-worker");
        daemon.setDaemon(true);
        leaky.start();
        daemon.start();
        try {
            List<String> leaks = LeakCheckExtension.leakedThreads(Set.copyOf(LeakCheckExtension.liveNonDaemonThreads()), Duration.ZERO)
                    .stream().map(Thread::getName).toList();
            assertEquals(List.of(), leaks, "a snapshot taken after the start sees nothing new");
            List<String> found = check.findLeaks();
            assertTrue(found.stream().anyMatch(s -> s.contains("leaky-worker")), found.toString());
            assertTrue(found.stream().noneMatch(s -> s.contains("daemon-worker")), "daemon threads do not count: " + found);
        } finally {
            release.countDown();
            leaky.join(5000);
            daemon.join(5000);
        }
        assertEquals(List.of(), check.findLeaks());
    }

    @Test
    void embeddedServerThreadsAreNotCountedAsLeaks() {
        LeakCheckExtension check = LeakCheckExtension.threads();
        check.begin();
        try (EmbeddedEnsemble extra = EmbeddedEnsemble.start(EmbeddedEnsemble.Options.single())) {
            assertTrue(extra.isRunning(0));
            assertEquals(List.of(), check.findLeaks());
        }
    }

    @Test
    void anEphemeralOfAnEndedSessionIsReportedUntilTheServerDropsIt() throws Exception {
        LeakCheckExtension check = LeakCheckExtension.forEnsemble(zk::ensemble);
        check.begin();
        CoordClient client = zk.newClient(b -> b.sessionTimeout(Duration.ofSeconds(2)));
        check.track(client);
        client.curator().create().withMode(CreateMode.EPHEMERAL).forPath("/held");
        // Client-side expiry: the client moves on, the server keeps the old session until its timeout.
        long old = Faults.injectClientExpiry(client);
        Faults.awaitNewSession(client, old, Duration.ofSeconds(10));

        Map<Long, List<String>> leaked = LeakCheckExtension.leakedEphemerals(zk.ensemble(), Set.of(old), Duration.ZERO);
        assertEquals(Map.of(old, List.of("/" + zk.namespace() + "/held")), leaked);
        // findLeaks waits out the grace (negotiated timeout + 2 s), by which time the server expired it.
        assertEquals(List.of(), check.findLeaks());
    }

    @Test
    void aClosedClientLeavesNoEphemeral() throws Exception {
        LeakCheckExtension check = LeakCheckExtension.forEnsemble(zk::ensemble);
        check.begin();
        CoordClient client = zk.newClient();
        check.track(client);
        client.curator().create().withMode(CreateMode.EPHEMERAL).forPath("/tidy");
        long id = client.session().id();
        Map<Long, List<String>> all = LeakCheckExtension.ephemerals(zk.ensemble()).orElseThrow();
        assertEquals(List.of("/" + zk.namespace() + "/tidy"), all.get(id), "the dump sees the live ephemeral");
        client.close();
        assertEquals(List.of(), check.findLeaks());
    }

    @Test
    void parsesTheEphemeralsSectionOfDump() {
        String dump = "SessionTracker dump:\nGlobal Sessions(2):\n0x1000a3 4000ms\n0x2 4000ms\n"
                + "ephemeral nodes dump:\nSessions with Ephemerals (2):\n0x1000a3:\n\t/a/b\n\t/c\n0xffffffffffffff01:\n\t/d\n"
                + "Connections dump:\nConnections Sets (1)/(1):\n";
        Map<Long, List<String>> parsed = LeakCheckExtension.parseDump(dump);
        assertEquals(List.of("/a/b", "/c"), parsed.get(0x1000a3L));
        assertNotNull(parsed.get(0xffffffffffffff01L));
        assertEquals(2, parsed.size());
    }
}
