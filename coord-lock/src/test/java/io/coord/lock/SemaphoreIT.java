package io.coord.lock;

import io.coord.test.ZooKeeperExtension;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.CoordPath;
import io.coord.CoordTimeoutException;
import io.coord.LeaseState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** N leases at once, each with its own token and loss signal, granted in order, never leaked. */
class SemaphoreIT {
    @RegisterExtension
    static final ZooKeeperExtension SERVER = ZooKeeperExtension.single();

    private static final CoordPath SEM = Locks.path("export", "slots");
    private static final Duration WAIT = Duration.ofSeconds(30);
    private final ExecutorService pool = Executors.newCachedThreadPool();

    @AfterEach
    void stop() throws InterruptedException {
        pool.shutdownNow();
        assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
    }

    private Semaphore semaphore(int permits) {
        return Locks.semaphore(SERVER.newClient(), SEM, permits);
    }

    @Test
    void exactlyThePermitsAreGrantedAtOnce() throws Exception {
        List<LockLease> held = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            held.add(semaphore(3).tryAcquire().orElseThrow(() -> new AssertionError("a free permit was refused")));
        }
        assertTrue(semaphore(3).tryAcquire().isEmpty(), "a fourth lease with three permits");
        assertEquals(3, LockTesting.inspect(SERVER.newClient(), SEM).holders().size());
        held.forEach(LockLease::close);
    }

    @Test
    void neverMoreThanThePermitsHoldUnderContention() throws Exception {
        int permits = 3;
        AtomicInteger holding = new AtomicInteger();
        AtomicInteger max = new AtomicInteger();
        Set<Long> tokens = ConcurrentHashMap.newKeySet();
        AtomicInteger grants = new AtomicInteger();
        List<Future<?>> workers = new ArrayList<>();
        for (int c = 0; c < 6; c++) {
            Semaphore s = semaphore(permits);
            workers.add(pool.submit(() -> {
                for (int i = 0; i < 25; i++) {
                    try (LockLease lease = s.acquire(WAIT)) {
                        int now = holding.incrementAndGet();
                        max.accumulateAndGet(now, Math::max);
                        tokens.add(lease.token().value());
                        grants.incrementAndGet();
                        Thread.sleep(3);
                        holding.decrementAndGet();
                    }
                }
                return null;
            }));
        }
        for (Future<?> w : workers) {
            w.get(120, TimeUnit.SECONDS);
        }
        assertTrue(max.get() <= permits, "at most " + permits + " at once, saw " + max.get());
        assertEquals(grants.get(), tokens.size(), "each lease has its own token");
        assertEquals(List.of(), SERVER.newClient().curator().getChildren().forPath(SEM.child("leases").value()), "no leaked lease node");
        assertEquals(List.of(), SERVER.newClient().curator().getChildren().forPath(SEM.child("locks").value()), "no leaked gate node");
    }

    @Test
    void releasingAnyHolderWakesTheFirstWaiterAndItsGrantWakesTheNext() throws Exception {
        Semaphore a = semaphore(2);
        Semaphore b = semaphore(2);
        LockLease h1 = a.acquire(WAIT);
        LockLease h2 = b.acquire(WAIT);
        CoordClient observer = SERVER.newClient();
        Semaphore c = semaphore(2);
        Future<LockLease> w3 = pool.submit(() -> c.acquire(WAIT));
        LockTesting.await("w3 queued", Duration.ofSeconds(10), () -> LockTesting.inspect(observer, SEM).waiters().size() == 1);
        Semaphore d = semaphore(2);
        Future<LockLease> w4 = pool.submit(() -> d.acquire(WAIT));
        LockTesting.await("w4 queued", Duration.ofSeconds(10), () -> LockTesting.inspect(observer, SEM).waiters().size() == 2);

        h2.close(); // the second holder leaves first: out of order
        LockLease l3 = w3.get(10, TimeUnit.SECONDS);
        h1.close(); // w4 became the first waiter when w3 was granted; this frees its slot
        LockLease l4 = w4.get(10, TimeUnit.SECONDS);
        assertTrue(l4.token().isNewerThan(l3.token()));
        l3.close();
        l4.close();
    }

    @Test
    void eachLeaseHasItsOwnLossSignalAndALostHoldersPermitGoesToTheNext() throws Exception {
        CoordClient doomed = SERVER.newClient();
        LockLease lost = Locks.semaphore(doomed, SEM, 2).acquire(WAIT);
        LockLease kept = semaphore(2).acquire(WAIT);
        Semaphore waiter = semaphore(2);
        Future<LockLease> next = pool.submit(() -> waiter.acquire(WAIT));
        LockTesting.expire(doomed, SERVER);
        assertEquals(LeaseState.LOST, lost.ended().get(10, TimeUnit.SECONDS));
        LockLease granted = next.get(10, TimeUnit.SECONDS);
        assertEquals(LeaseState.ACQUIRED, kept.state(), "the other holder's lease is untouched");
        kept.checkValid();
        assertTrue(granted.token().isNewerThan(lost.token()));
        assertEquals(3, new HashSet<>(List.of(lost.token(), kept.token(), granted.token())).size());
        kept.close();
        granted.close();
    }

    @Test
    void aTimedOutOrInterruptedWaiterLeavesNoNode() throws Exception {
        CoordClient client = SERVER.newClient();
        try (LockLease held = Locks.semaphore(client, SEM, 1).acquire(WAIT)) {
            assertThrows(CoordTimeoutException.class, () -> semaphore(1).acquire(Duration.ofMillis(300)));
            Semaphore s = semaphore(1);
            Future<LockLease> waiting = pool.submit(() -> s.acquire(WAIT));
            LockTesting.await("queued", Duration.ofSeconds(10), () -> LockTesting.inspect(client, SEM).waiters().size() == 1);
            waiting.cancel(true);
            LockTesting.await("the interrupted waiter's node is gone", Duration.ofSeconds(10),
                    () -> LockTesting.inspect(client, SEM).waiters().isEmpty());
            assertEquals(List.of(held.node().name()), client.curator().getChildren().forPath(SEM.child("leases").value()));
            assertEquals(List.of(), client.curator().getChildren().forPath(SEM.child("locks").value()));
        }
    }

    @Test
    void permitsMustBePositive() {
        CoordClient client = SERVER.newClient();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Locks.semaphore(client, SEM, 0));
        assertTrue(e.getMessage().contains("0"), e.getMessage());
    }
}
