package io.coord.lock;

import io.coord.test.ZooKeeperExtension;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.CoordPath;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** One release wakes one waiter: the other waiters send the server nothing. */
class NoHerdIT {
    @RegisterExtension
    static final ZooKeeperExtension SERVER = ZooKeeperExtension.single();

    private static final CoordPath LOCK = Locks.path("herd", "r");
    private final ExecutorService pool = Executors.newCachedThreadPool();

    @AfterEach
    void stop() throws InterruptedException {
        pool.shutdownNow();
        assertTrue(pool.awaitTermination(15, TimeUnit.SECONDS));
    }

    private static int watchesUnder(String lockOnServer) {
        return ServerRequests.watchesByPath(SERVER).entrySet().stream()
                .filter(e -> e.getKey().startsWith(lockOnServer + "/")).mapToInt(e -> e.getValue().size()).sum();
    }

    private static Map<Long, Long> settledRequests() throws InterruptedException {
        return ServerRequests.settled(SERVER);
    }

    @Test
    void withTwentyWaitersOneReleaseWakesExactlyOneWaiter() throws Exception {
        int waiters = 20;
        CoordClient holderClient = SERVER.newClient();
        LockLease held = Locks.mutex(holderClient, LOCK).acquire(Duration.ofSeconds(5));
        CountDownLatch letGo = new CountDownLatch(1);
        AtomicInteger granted = new AtomicInteger();
        List<CoordClient> clients = new ArrayList<>();
        List<Future<?>> running = new ArrayList<>();
        for (int i = 0; i < waiters; i++) {
            CoordClient c = SERVER.newClient();
            clients.add(c);
            DistributedLock lock = Locks.mutex(c, LOCK);
            running.add(pool.submit(() -> {
                try (LockLease lease = lock.acquire(Duration.ofSeconds(60))) {
                    lease.checkValid();
                    granted.incrementAndGet();
                    assertTrue(letGo.await(60, TimeUnit.SECONDS));
                }
                return null;
            }));
        }
        CoordClient observer = SERVER.newClient();
        LockTesting.await("20 waiters queued", Duration.ofSeconds(20),
                () -> LockTesting.inspect(observer, LOCK).waiters().size() == waiters);
        // Each waiter watches its predecessor, and every lease (the holder's and each waiter's, armed
        // while it queues) its own node: 41 watches, none on the parent.
        String lockOnServer = "/" + SERVER.namespace() + LOCK.value();
        LockTesting.await("every waiter's watch is set", Duration.ofSeconds(10), () -> watchesUnder(lockOnServer) == 2 * waiters + 1);
        Map<String, List<Long>> watches = ServerRequests.watchesByPath(SERVER);
        assertTrue(!watches.containsKey(lockOnServer), "nobody watches the lock's children: " + watches.keySet());
        List<Long> onHolder = watches.get("/" + SERVER.namespace() + held.node().value());
        assertEquals(2, onHolder.size(), "the holder's node is watched by its own lease and by one waiter: " + onHolder);

        // The holder's node is stamped with its grant time after a second (a write the waiter behind it
        // and the holder's own lease both see and follow up): let that settle before counting.
        LockTesting.await("the holder's node is stamped", Duration.ofSeconds(10),
                () -> LockTesting.inspect(observer, LOCK).holder().map(h -> h.heldSince() != null).orElse(false));
        Map<Long, Long> before = settledRequests();
        held.close();
        LockTesting.await("the next waiter holds", Duration.ofSeconds(10), () -> granted.get() == 1);
        // Let in-flight requests land; meanwhile nobody else may be granted.
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(700);
        while (System.nanoTime() < until) {
            assertEquals(1, granted.get(), "a release grants exactly one waiter");
            Thread.sleep(20);
        }
        Map<Long, Long> after = ServerRequests.bySession(SERVER);

        List<String> woken = new ArrayList<>();
        long waitersSent = 0;
        for (CoordClient c : clients) {
            long sid = ServerRequests.sessionId(c);
            long sent = after.get(sid) - before.get(sid);
            waitersSent += sent;
            if (sent > 0) {
                woken.add("0x" + Long.toHexString(sid) + " sent " + sent);
            }
        }
        // The next holder re-reads the queue at most once (not at all when the node it waited for was
        // the only one ahead); its lease has watched its own node since it queued. So a handoff costs
        // at most two requests, as many as Curator's protocol (delete + getChildren).
        assertTrue(waitersSent <= 1, "the waiters sent at most one request after the release: " + woken);
        long holderSent = after.get(ServerRequests.sessionId(holderClient)) - before.get(ServerRequests.sessionId(holderClient));
        assertEquals(1, holderSent, "the release is one delete (no watch-removal request: the delete ends the lease's own watch)");
        letGo.countDown();
        for (Future<?> f : running) {
            f.get(60, TimeUnit.SECONDS);
        }
        assertEquals(waiters, granted.get());
    }
}
