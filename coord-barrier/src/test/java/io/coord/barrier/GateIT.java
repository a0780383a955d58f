package io.coord.barrier;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.test.Awaits;
import io.coord.test.Faults;
import io.coord.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The simple gate: waiters pass only once a read shows it removed. */
class GateIT {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.single();

    private ExecutorService pool;

    @BeforeEach
    void threads() {
        pool = Executors.newCachedThreadPool();
    }

    @AfterEach
    void stopThreads() throws InterruptedException {
        pool.shutdownNow();
        assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS), "waiter threads ended");
    }

    @Test
    void waitersPassOnlyAfterTheGateIsRemovedEvenWithSpuriousEvents() throws Exception {
        Gate admin = Gate.create(zk.newClient(), "deploy");
        assertTrue(admin.set());
        assertFalse(admin.set(), "set twice: already set");
        assertTrue(admin.isSet());
        List<CoordClient> clients = new ArrayList<>();
        List<Future<Boolean>> waiters = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            CoordClient c = zk.newClient();
            clients.add(c);
            Gate g = Gate.create(c, "deploy");
            waiters.add(pool.submit(() -> g.await(Duration.ofSeconds(60))));
        }
        String raw = "/" + zk.namespace() + "/gates/deploy";
        for (int round = 0; round < 20; round++) {
            for (CoordClient c : clients) {
                c.curator().getZookeeperClient().getZooKeeper().getTestable()
                        .queueEvent(new WatchedEvent(EventType.NodeDeleted, KeeperState.SyncConnected, raw));
                Faults.spuriousFlap(c);
            }
        }
        Awaits.never("a waiter passed a gate that is still set", Duration.ofSeconds(2), () -> waiters.stream().anyMatch(Future::isDone));
        assertTrue(admin.remove());
        assertFalse(admin.remove(), "removed twice: was not set");
        for (Future<Boolean> w : waiters) {
            assertTrue(w.get(30, TimeUnit.SECONDS), "released once removed");
        }
    }

    @Test
    void awaitOnAGateNotSetReturnsAtOnceAndATimeoutReturnsFalse() throws Exception {
        Gate gate = Gate.create(zk.newClient(), "g");
        assertTrue(gate.await(Duration.ofSeconds(10)), "not set: passes at once");
        gate.set();
        long start = System.nanoTime();
        assertFalse(gate.await(Duration.ofMillis(300)), "still set after the timeout");
        assertTrue(System.nanoTime() - start >= Duration.ofMillis(300).toNanos());
        assertThrows(IllegalArgumentException.class, () -> gate.await(Duration.ofMillis(-1)));
        assertThrows(io.coord.InvalidNameException.class, () -> Gate.create(zk.newClient(), "a/b"));
        gate.remove();
    }
}
