package io.coord.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.coord.CoordClient;
import io.coord.CoordPath;
import io.coord.CoordSettings;
import io.coord.lock.DistributedLock;
import io.coord.lock.LockLease;
import io.coord.lock.LockOptions;
import io.coord.lock.Locks;
import io.coord.test.EmbeddedEnsemble;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class LockCommandTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final CoordPath LOCK = Locks.path("orders", "42");
    private static EmbeddedEnsemble server;

    @BeforeAll
    static void startServer() {
        server = EmbeddedEnsemble.start(EmbeddedEnsemble.Options.single());
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    private static CoordClient client() throws InterruptedException {
        return CoordClient.connect(CoordSettings.builder().connectString(server.connectString()).namespace("cli")
                .sessionTimeout(Duration.ofSeconds(4)).connectionTimeout(Duration.ofSeconds(4)).build());
    }

    @Test
    void showAndLsReportTheHolderWithItsTokenAndOwnerAndTheWaitersInOrder() throws Exception {
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try (CoordClient holder = client(); CoordClient waiter = client()) {
            LockLease lease = Locks.mutex(holder, LOCK, LockOptions.builder().ownerName("billing-7").build()).acquire(Duration.ofSeconds(5));
            DistributedLock queued = Locks.mutex(waiter, LOCK, LockOptions.builder().ownerName("billing-8").build());
            Future<LockLease> next = pool.submit(() -> queued.acquire(Duration.ofSeconds(30)));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (Locks.inspect(holder, LOCK).waiters().isEmpty()) {
                assertTrue(System.nanoTime() < deadline, "the waiter queued");
                Thread.sleep(20);
            }

            Cli.Result show = Cli.run("lock", "show", LOCK.value(), "--connect", server.connectString(), "--namespace", "cli", "--json");
            assertEquals(0, show.exitCode(), show.err());
            JsonNode o = JSON.readTree(show.out());
            JsonNode h = o.get("holders").get(0);
            assertEquals(lease.node().value(), h.get("node").asText());
            assertEquals(lease.token().value(), h.get("token").asLong());
            assertEquals(holder.session().idHex(), h.get("sessionId").asText());
            assertEquals("billing-7", h.get("owner").asText());
            assertEquals(ProcessHandle.current().pid(), h.get("pid").asLong());
            assertEquals(1, o.get("waiters").size());
            assertEquals("billing-8", o.get("waiters").get(0).get("owner").asText());

            Cli.Result text = Cli.run("lock", "show", LOCK.value(), "--connect", server.connectString(), "--namespace", "cli");
            assertEquals(0, text.exitCode(), text.err());
            assertTrue(text.out().contains("holder    " + lease.node().name()), text.out());
            assertTrue(text.out().contains("token 0x" + Long.toHexString(lease.token().value())), text.out());
            assertTrue(text.out().contains("waiters   1"), text.out());

            Cli.Result ls = Cli.run("lock", "ls", "/locks", "--connect", server.connectString(), "--namespace", "cli", "--json");
            assertEquals(0, ls.exitCode(), ls.err());
            JsonNode locks = JSON.readTree(ls.out()).get("locks");
            assertEquals(1, locks.size(), ls.out());
            assertEquals(LOCK.value(), locks.get(0).get("path").asText());
            assertEquals(1, locks.get(0).get("waiters").asInt());
            assertEquals("billing-7", locks.get(0).get("holder").get("owner").asText());

            Cli.Result lsText = Cli.run("lock", "ls", "--connect", server.connectString(), "--namespace", "cli");
            assertTrue(lsText.out().lines().anyMatch(l -> l.startsWith(LOCK.value()) && l.contains("billing-7")), lsText.out());

            lease.close();
            next.get(10, TimeUnit.SECONDS).close();
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aBadPathIsAUsageErrorQuotingIt() {
        Cli.Result r = Cli.run("lock", "show", "/locks/orders//42", "--connect", server.connectString());
        assertEquals(CoordCommand.USAGE, r.exitCode());
        assertTrue(r.err().contains("/locks/orders//42"), r.err());
    }

    @Test
    void aFreeLockShowsNoHolder() {
        Cli.Result r = Cli.run("lock", "show", "/locks/none/here", "--connect", server.connectString());
        assertEquals(0, r.exitCode(), r.err());
        assertTrue(r.out().contains("holder    none (free)"), r.out());
        Cli.Result ls = Cli.run("lock", "ls", "/locks/none", "--connect", server.connectString());
        assertTrue(ls.out().contains("no locks under /locks/none"), ls.out());
    }

    @Test
    void showListsForeignNodesByNameBesideCuratorsReadWriteNodes() throws Exception {
        CoordPath rw = Locks.path("catalog", "foreign");
        try (CoordClient client = client()) {
            LockLease write = Locks.readWrite(client, rw).writeLock().acquire(Duration.ofSeconds(5));
            client.curator().create().withMode(org.apache.zookeeper.CreateMode.EPHEMERAL).forPath(rw.value() + "/write-0000000001");
            Cli.Result show = Cli.run("lock", "show", rw.value(), "--connect", server.connectString(), "--namespace", "cli", "--json");
            assertEquals(0, show.exitCode(), show.err());
            JsonNode o = JSON.readTree(show.out());
            assertEquals(write.node().value(), o.get("holders").get(0).get("node").asText());
            assertEquals("write-0000000001", o.get("foreign").get(0).asText());
            Cli.Result text = Cli.run("lock", "show", rw.value(), "--connect", server.connectString(), "--namespace", "cli");
            assertTrue(text.out().contains("foreign   1") && text.out().contains("write-0000000001"), text.out());
            write.close();
        }
    }
}
