package io.coord.lock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.CoordPath;
import io.coord.CoordTimeoutException;
import io.coord.test.ZooKeeperExtension;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** What operators see: holder (node, session, token, held since, who) and waiters in queue order; and the figures. */
class InspectionIT {
    @RegisterExtension
    static final ZooKeeperExtension SERVER = ZooKeeperExtension.single();

    private static final CoordPath LOCK = Locks.path("billing", "run");
    private static final Duration WAIT = Duration.ofSeconds(30);
    private final ExecutorService pool = Executors.newCachedThreadPool();

    @AfterEach
    void stop() throws InterruptedException {
        pool.shutdownNow();
        assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
    }

    @Test
    void inspectionShowsTheHolderWithSessionTokenAndOwnerAndTheWaitersInQueueOrder() throws Exception {
        Instant fixed = Instant.parse("2026-01-02T03:04:05Z");
        CoordClient holderClient = SERVER.newClient();
        LockLease held = Locks.mutex(holderClient, LOCK,
                LockOptions.builder().ownerName("nightly-billing").clock(Clock.fixed(fixed, ZoneOffset.UTC)).build()).acquire(WAIT);
        assertEquals(fixed, held.heldSince(), "held-since comes from the options' clock");
        CoordClient observer = SERVER.newClient();
        Future<LockLease> second = queue("second");
        LockTesting.await("one waiter", Duration.ofSeconds(10), () -> LockTesting.inspect(observer, LOCK).waiters().size() == 1);
        Future<LockLease> third = queue("third");
        LockTesting.await("two waiters", Duration.ofSeconds(10), () -> LockTesting.inspect(observer, LOCK).waiters().size() == 2);

        LockInfo info = Locks.inspect(observer, LOCK);
        LockInfo.Entry h = info.holder().orElseThrow();
        assertEquals(held.node(), h.node());
        assertEquals("lock", h.type());
        assertEquals(holderClient.session().id(), h.sessionId());
        assertEquals(held.token().value(), h.token());
        assertEquals("nightly-billing", h.owner());
        assertEquals(ProcessHandle.current().pid(), h.pid());
        assertTrue(h.host() != null && !h.host().isBlank());
        assertEquals(List.of("second", "third"), info.waiters().stream().map(LockInfo.Entry::owner).toList(), "queue order");
        assertEquals(3, info.queueLength());
        // Held for a second, the holder records when it was granted.
        LockTesting.await("held-since stamped", Duration.ofSeconds(10),
                () -> fixed.equals(LockTesting.inspect(observer, LOCK).holder().orElseThrow().heldSince()));
        assertNull(Locks.inspect(observer, LOCK).waiters().get(0).heldSince(), "waiters hold nothing");
        held.close();
        second.get(10, TimeUnit.SECONDS).close();
        third.get(10, TimeUnit.SECONDS).close();
        // The observer is another client: it sees the last release once its delete lands (FENCING.md).
        LockTesting.await("a free lock has no holder", Duration.ofSeconds(10),
                () -> LockTesting.inspect(observer, LOCK).holders().isEmpty());
    }

    private Future<LockLease> queue(String owner) {
        DistributedLock lock = Locks.mutex(SERVER.newClient(), LOCK, LockOptions.builder().ownerName(owner).build());
        return pool.submit(() -> lock.acquire(WAIT));
    }

    @Test
    void listFindsEveryLockUnderAPrefixWithItsKind() throws Exception {
        CoordClient client = SERVER.newClient();
        LockLease a = Locks.mutex(client, Locks.path("a", "x")).acquire(WAIT);
        LockLease r1 = Locks.readWrite(client, Locks.path("a", "y")).readLock().acquire(WAIT);
        LockLease r2 = Locks.readWrite(SERVER.newClient(), Locks.path("a", "y")).readLock().acquire(WAIT);
        LockLease s = Locks.semaphore(client, Locks.path("b", "z"), 2).acquire(WAIT);
        List<LockInfo> all = Locks.list(client, Locks.ROOT);
        assertEquals(List.of("/locks/a/x", "/locks/a/y", "/locks/b/z"), all.stream().map(i -> i.path().value()).toList());
        assertEquals(2, all.get(1).holders().size(), "two readers hold together");
        assertEquals("read", all.get(1).holders().get(0).type());
        assertEquals("lease", all.get(2).holders().get(0).type());
        assertEquals(List.of("/locks/a/x", "/locks/a/y"), Locks.list(client, CoordPath.of("/locks/a")).stream()
                .map(i -> i.path().value()).toList());
        assertEquals(List.of(), Locks.list(client, CoordPath.of("/locks/none")));
        for (LockLease l : List.of(a, r1, r2, s)) {
            l.close();
        }
    }

    @Test
    void waitTimesTimeoutsAndHoldTimesAreReported() throws Exception {
        RecordingMetrics metrics = new RecordingMetrics();
        CoordClient client = SERVER.newClient(b -> b.metrics(metrics));
        DistributedLock lock = Locks.mutex(client, LOCK);
        LockLease held = lock.acquire(WAIT);
        DistributedLock other = Locks.mutex(SERVER.newClient(b -> b.metrics(metrics)), LOCK);
        assertThrows(CoordTimeoutException.class, () -> other.acquire(Duration.ofMillis(200)));
        held.close();
        assertEquals(1, metrics.count(LockMetrics.WAIT, "kind", "lock", "outcome", "acquired"));
        assertEquals(1, metrics.count(LockMetrics.WAIT, "kind", "lock", "outcome", "timeout"));
        assertEquals(1, metrics.count(LockMetrics.TIMEOUTS, "kind", "lock"));
        LockTesting.await("hold time recorded", Duration.ofSeconds(5), () -> metrics.count(LockMetrics.HOLD, "kind", "lock") == 1);
    }
}
