package io.coord.lock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.CoordPath;
import io.coord.CoordTimeoutException;
import io.coord.LeaseState;
import io.coord.SessionExpiredException;
import io.coord.test.Awaits;
import io.coord.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link DistributedLock#acquireAsync}: the future completes on the caller's executor, a pending
 * call holds no thread, cancelling withdraws our node, the timeout and a session's end fail the
 * future as documented, and futures of two clients exclude each other with rising tokens.
 */
class AcquireAsyncIT {
    @RegisterExtension
    static final ZooKeeperExtension SERVER = ZooKeeperExtension.single();

    private static final Duration LONG = Awaits.scaled(Duration.ofSeconds(60));
    private static final Duration BOUND = Awaits.scaled(Duration.ofSeconds(20));
    private final AtomicInteger executorThreads = new AtomicInteger();
    private final ExecutorService callers = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "caller-executor-" + executorThreads.incrementAndGet());
        t.setDaemon(true);
        return t;
    });

    @AfterEach
    void stop() throws InterruptedException {
        callers.shutdownNow();
        assertTrue(callers.awaitTermination(10, TimeUnit.SECONDS), "executor threads ended");
    }

    private static List<String> children(CoordClient client, CoordPath path) throws Exception {
        return client.curator().checkExists().forPath(path.value()) == null ? List.of()
                : client.curator().getChildren().forPath(path.value());
    }

    /** A lock held by a new client, and another new client to wait for it. */
    private record Contest(CoordPath path, CoordClient holder, CoordClient waiter, LockLease held, DistributedLock lock) {
    }

    private static Contest contest(String name) throws Exception {
        CoordPath path = Locks.path("async", name);
        CoordClient holder = SERVER.newClient();
        CoordClient waiter = SERVER.newClient();
        return new Contest(path, holder, waiter, Locks.mutex(holder, path).acquire(BOUND), Locks.mutex(waiter, path));
    }

    private static <T> T get(CompletableFuture<T> f) throws Exception {
        return f.get(BOUND.toMillis(), TimeUnit.MILLISECONDS);
    }

    private static Throwable failure(CompletableFuture<?> f) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> get(f));
        return e.getCause();
    }

    @Test
    void theGrantCompletesOnTheCallersExecutorUncontendedAndAfterAWait() throws Exception {
        CoordPath path = Locks.path("async", "executor");
        CoordClient holder = SERVER.newClient();
        CoordClient waiter = SERVER.newClient();
        DistributedLock lock = Locks.mutex(waiter, path);

        CompletableFuture<String> free = lock.acquireAsync(BOUND, callers).thenApply(lease -> {
            String thread = Thread.currentThread().getName();
            lease.close();
            return thread;
        });
        assertTrue(get(free).startsWith("caller-executor-"), "uncontended grant completed on " + get(free));

        LockLease held = Locks.mutex(holder, path).acquire(BOUND);
        CompletableFuture<LockLease> pending = lock.acquireAsync(LONG, callers);
        List<String> completedOn = new CopyOnWriteArrayList<>();
        CompletableFuture<LockLease> seen = pending.whenComplete((lease, error) -> completedOn.add(Thread.currentThread().getName()));
        Awaits.until("the waiter queued", BOUND, () -> LockTesting.inspect(holder, path).waiters().size() == 1);
        held.close();
        try (LockLease granted = get(seen)) {
            assertEquals(LeaseState.ACQUIRED, granted.state());
            assertTrue(granted.token().value() > held.token().value(), "tokens rise");
            assertEquals(1, completedOn.size());
            assertTrue(completedOn.get(0).startsWith("caller-executor-"), "the handoff completed on " + completedOn.get(0)
                    + ", not on the caller's executor");
        }
    }

    @Test
    void cancellingWithdrawsTheQueuedNodeAndLeavesNoneBehind() throws Exception {
        Contest c = contest("cancel");

        CompletableFuture<LockLease> queued = c.lock().acquireAsync(LONG, callers);
        Awaits.until("the waiter queued", BOUND, () -> LockTesting.inspect(c.holder(), c.path()).waiters().size() == 1);
        assertTrue(queued.cancel(true));
        Awaits.until("the cancelled waiter's node deleted", BOUND, () -> {
            try {
                return children(c.holder(), c.path()).equals(List.of(c.held().node().name()));
            } catch (Exception e) {
                return false;
            }
        });

        // Cancelled at once, while its create is still in flight: the node is deleted when the reply comes.
        List<CompletableFuture<LockLease>> early = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            CompletableFuture<LockLease> f = c.lock().acquireAsync(LONG, callers);
            f.cancel(true);
            early.add(f);
        }
        Awaits.until("no node of a cancelled acquire left", BOUND, () -> {
            try {
                // a read on the waiter's own session comes after its creates and deletes
                return children(c.waiter(), c.path()).equals(List.of(c.held().node().name()));
            } catch (Exception e) {
                return false;
            }
        });
        c.held().close();
        Awaits.until("the lock free", BOUND, () -> {
            try {
                return children(c.holder(), c.path()).isEmpty();
            } catch (Exception e) {
                return false;
            }
        });
        early.forEach(f -> assertTrue(f.isCancelled()));
    }

    @Test
    void aPendingCallHoldsNoThread() throws Exception {
        Contest c = contest("threads");
        int pending = 100;
        int threadsBefore = Thread.activeCount();
        List<CompletableFuture<LockLease>> futures = new ArrayList<>();
        for (int i = 0; i < pending; i++) {
            futures.add(c.lock().acquireAsync(LONG, callers));
        }
        Awaits.until("all waiters queued", BOUND, () -> LockTesting.inspect(c.holder(), c.path()).waiters().size() == pending);
        int grown = Thread.activeCount() - threadsBefore;
        assertTrue(grown < 10, pending + " pending acquires added " + grown + " threads");
        futures.forEach(f -> f.cancel(true));
        Awaits.until("every waiter withdrawn", BOUND, () -> LockTesting.inspect(c.holder(), c.path()).waiters().isEmpty());
        c.held().close();
    }

    @Test
    void notGrantedInTimeFailsWithCoordTimeoutExceptionAndRemovesTheNode() throws Exception {
        Contest c = contest("timeout");
        long t0 = System.nanoTime();
        CompletableFuture<LockLease> f = c.lock().acquireAsync(Duration.ofMillis(300), callers);
        Throwable cause = failure(f);
        assertInstanceOf(CoordTimeoutException.class, cause, "the timeout's failure: " + cause);
        assertTrue(System.nanoTime() - t0 >= TimeUnit.MILLISECONDS.toNanos(300), "failed before its timeout");
        assertEquals(List.of(c.held().node().name()), children(c.waiter(), c.path()), "the timed-out waiter's node is gone");
        c.held().close();
    }

    @Test
    void theSessionEndingWhilePendingFailsTheFutureWithSessionExpiredException() throws Exception {
        Contest c = contest("expiry");
        CompletableFuture<LockLease> f = c.lock().acquireAsync(LONG, callers);
        Awaits.until("the waiter queued", BOUND, () -> LockTesting.inspect(c.holder(), c.path()).waiters().size() == 1);
        LockTesting.expire(c.waiter(), SERVER);
        Throwable cause = failure(f);
        assertInstanceOf(SessionExpiredException.class, cause, "the session end's failure: " + cause);
        assertEquals(List.of(c.held().node().name()), children(c.holder(), c.path()), "the waiter's node went with its session");
        c.held().close();
    }

    @Test
    void twoClientsContendingThroughFuturesNeverOverlapAndTheirTokensRise() throws Exception {
        CoordPath path = Locks.path("async", "contend");
        int rounds = 50;
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        List<Long> tokens = new CopyOnWriteArrayList<>();
        List<CompletableFuture<Void>> chains = new ArrayList<>();
        for (int c = 0; c < 2; c++) {
            DistributedLock lock = Locks.mutex(SERVER.newClient(), path);
            chains.add(chain(lock, rounds, inside, overlaps, tokens));
        }
        for (CompletableFuture<Void> chain : chains) {
            chain.get(LONG.toMillis(), TimeUnit.MILLISECONDS);
        }
        assertEquals(0, overlaps.get(), "two holders at once");
        assertEquals(2 * rounds, tokens.size());
        for (int i = 1; i < tokens.size(); i++) {
            assertTrue(tokens.get(i) > tokens.get(i - 1), "token " + tokens.get(i) + " after " + tokens.get(i - 1));
        }
    }

    /** {@code rounds} acquisitions one after the other, each started from the previous one's completion. */
    private CompletableFuture<Void> chain(DistributedLock lock, int rounds, AtomicInteger inside, AtomicInteger overlaps,
            List<Long> tokens) {
        if (rounds == 0) {
            return CompletableFuture.completedFuture(null);
        }
        return lock.acquireAsync(LONG, callers).thenCompose(lease -> {
            if (inside.incrementAndGet() != 1) {
                overlaps.incrementAndGet();
            }
            tokens.add(lease.token().value());
            inside.decrementAndGet();
            lease.close();
            return chain(lock, rounds - 1, inside, overlaps, tokens);
        });
    }
}
