package io.coord.lock;

import io.coord.test.ZooKeeperExtension;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.CoordPath;
import io.coord.CoordTimeoutException;
import io.coord.LeaseState;
import io.coord.LockLostException;
import io.coord.fence.InMemoryFenceGuard;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The fair reentrant lock against a real server: exclusion, fencing, fairness, handles, clean waits. */
class ZkMutexIT {
    @RegisterExtension
    static final ZooKeeperExtension SERVER = ZooKeeperExtension.single();

    private static final CoordPath LOCK = Locks.path("orders", "42");
    private final ExecutorService pool = Executors.newCachedThreadPool();

    @AfterEach
    void stopThreads() throws InterruptedException {
        pool.shutdownNow();
        assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS), "test threads ended");
    }

    private static List<String> children(CoordClient client, CoordPath path) throws Exception {
        return client.curator().checkExists().forPath(path.value()) == null ? List.of()
                : client.curator().getChildren().forPath(path.value());
    }

    @Test
    void eightClientsTwoHundredAcquisitionsEachNeverOverlapAndTheFencedCounterIsExact() throws Exception {
        int clients = 8;
        int rounds = 200;
        InMemoryFenceGuard guard = new InMemoryFenceGuard();
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        long[] counter = {0};
        List<Long> grantOrder = Collections.synchronizedList(new ArrayList<>());
        List<Future<?>> workers = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            DistributedLock lock = Locks.mutex(SERVER.newClient(), LOCK);
            workers.add(pool.submit(() -> {
                for (int i = 0; i < rounds; i++) {
                    try (LockLease lease = lock.acquire(Duration.ofSeconds(60))) {
                        if (inside.incrementAndGet() != 1) {
                            overlaps.incrementAndGet();
                        }
                        lease.checkValid();
                        if (guard.admit("counter", lease.token())) {
                            long seen = counter[0]; // a plain read-modify-write: any overlap would lose updates
                            Thread.yield();
                            counter[0] = seen + 1;
                        }
                        grantOrder.add(lease.token().value());
                        inside.decrementAndGet();
                    }
                }
                return null;
            }));
        }
        for (Future<?> w : workers) {
            w.get(150, TimeUnit.SECONDS);
        }
        assertEquals(0, overlaps.get(), "no two holders ever overlapped");
        assertEquals(0, guard.rejections(), "no stale token was presented");
        assertEquals((long) clients * rounds, counter[0], "the fenced counter is exact");
        for (int i = 1; i < grantOrder.size(); i++) {
            assertTrue(grantOrder.get(i) > grantOrder.get(i - 1), "tokens strictly increase in grant order at " + i);
        }
        assertEquals(List.of(), children(SERVER.newClient(), LOCK), "every lock node was released");
    }

    @Test
    void tokenIsTheCzxidOfTheLockNodeAndTheNodeCarriesHolderInfo() throws Exception {
        CoordClient client = SERVER.newClient();
        DistributedLock lock = Locks.mutex(client, LOCK, LockOptions.builder().ownerName("billing-worker-3").build());
        try (LockLease lease = lock.acquire(Duration.ofSeconds(5))) {
            Stat stat = client.curator().checkExists().forPath(lease.node().value());
            assertEquals(stat.getCzxid(), lease.token().value());
            assertEquals(client.session().id(), stat.getEphemeralOwner());
            assertEquals(LOCK, lease.lockPath());
            assertTrue(lease.node().name().startsWith("_c_") && lease.node().name().contains("-lock-"), lease.node().name());
            HolderInfo info = HolderInfo.CODEC.decode(lease.node(), client.curator().getData().forPath(lease.node().value()));
            assertEquals("billing-worker-3", info.owner());
            assertEquals(ProcessHandle.current().pid(), info.pid());
            assertEquals("lock", info.type());
        }
    }

    @Test
    void waitersAreGrantedInTheOrderTheyQueued() throws Exception {
        DistributedLock holderLock = Locks.mutex(SERVER.newClient(), LOCK);
        LockLease held = holderLock.acquire(Duration.ofSeconds(5));
        CoordClient observer = SERVER.newClient();
        List<Integer> granted = new CopyOnWriteArrayList<>();
        List<Future<?>> waiters = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            int id = i;
            DistributedLock lock = Locks.mutex(SERVER.newClient(), LOCK);
            waiters.add(pool.submit(() -> {
                try (LockLease lease = lock.acquire(Duration.ofSeconds(30))) {
                    lease.checkValid();
                    granted.add(id);
                }
                return null;
            }));
            int queued = i + 1;
            LockTesting.await("waiter " + id + " queued", Duration.ofSeconds(10),
                    () -> inspect(observer).waiters().size() == queued);
        }
        held.close();
        for (Future<?> w : waiters) {
            w.get(30, TimeUnit.SECONDS);
        }
        assertEquals(List.of(0, 1, 2, 3, 4), granted, "FIFO by queue position");
    }

    private static LockInfo inspect(CoordClient client) {
        try {
            return Locks.inspect(client, LOCK);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Test
    void reenteredHandleSharesNodeAndTokenAndTheLockIsHeldUntilTheLastHandleCloses() throws Exception {
        CoordClient client = SERVER.newClient();
        DistributedLock lock = Locks.mutex(client, LOCK);
        DistributedLock other = Locks.mutex(SERVER.newClient(), LOCK);
        LockLease outer = lock.acquire(Duration.ofSeconds(5));
        LockLease inner = outer.reenter();
        assertEquals(outer.token(), inner.token());
        inner.close();
        assertEquals(LeaseState.RELEASED, inner.state(), "the closed handle reports RELEASED");
        assertThrows(LockLostException.class, inner::checkValid);
        assertEquals(LeaseState.ACQUIRED, outer.state(), "the outer handle still holds");
        outer.checkValid();
        assertNotNull(client.curator().checkExists().forPath(outer.node().value()), "the node stays while a handle is open");
        assertTrue(other.tryAcquire().isEmpty(), "nobody else gets it while a handle is open");
        outer.close();
        assertNull(client.curator().checkExists().forPath(outer.node().value()), "the last close releases the node");
        assertThrows(LockLostException.class, outer::reenter, "a released lease cannot be re-entered");
        try (LockLease next = other.acquire(Duration.ofSeconds(5))) {
            assertTrue(next.token().isNewerThan(outer.token()));
        }
    }

    @Test
    void aLeaseClosedFromAnotherThreadIsReleasedAndTheNextWaiterGetsIt() throws Exception {
        DistributedLock lock = Locks.mutex(SERVER.newClient(), LOCK);
        DistributedLock other = Locks.mutex(SERVER.newClient(), LOCK);
        LockLease lease = lock.acquire(Duration.ofSeconds(5));
        Future<LockLease> waiter = pool.submit(() -> other.acquire(Duration.ofSeconds(30)));
        CompletableFuture.runAsync(lease::close, pool).get(10, TimeUnit.SECONDS);
        assertEquals(LeaseState.RELEASED, lease.ended().get(5, TimeUnit.SECONDS));
        try (LockLease next = waiter.get(10, TimeUnit.SECONDS)) {
            assertEquals(LeaseState.ACQUIRED, next.state());
        }
    }

    @Test
    void aTimedOutWaiterLeavesNoNodeBehind() throws Exception {
        CoordClient client = SERVER.newClient();
        try (LockLease held = Locks.mutex(client, LOCK).acquire(Duration.ofSeconds(5))) {
            DistributedLock other = Locks.mutex(SERVER.newClient(), LOCK);
            CoordTimeoutException e = assertThrows(CoordTimeoutException.class, () -> other.acquire(Duration.ofMillis(300)));
            assertTrue(e.getMessage().contains(LOCK.value()), e.getMessage());
            assertEquals(Optional.empty(), other.tryAcquire(), "tryAcquire on a held lock is empty");
            assertEquals(Optional.empty(), other.tryAcquire(Duration.ofMillis(100)));
            assertEquals(List.of(held.node().name()), children(client, LOCK), "only the holder's node is left");
        }
    }

    @Test
    void anInterruptedWaiterRemovesItsNodeAndSeesTheInterrupt() throws Exception {
        CoordClient client = SERVER.newClient();
        try (LockLease held = Locks.mutex(client, LOCK).acquire(Duration.ofSeconds(5))) {
            DistributedLock other = Locks.mutex(SERVER.newClient(), LOCK);
            CompletableFuture<Throwable> outcome = new CompletableFuture<>();
            Thread waiter = new Thread(() -> {
                try {
                    other.acquire(Duration.ofSeconds(60)).close();
                    outcome.complete(null);
                } catch (Throwable t) {
                    outcome.complete(t);
                }
            }, "interrupted-waiter");
            waiter.start();
            LockTesting.await("the waiter queued", Duration.ofSeconds(10), () -> inspect(client).waiters().size() == 1);
            waiter.interrupt();
            assertTrue(outcome.get(10, TimeUnit.SECONDS) instanceof InterruptedException, "the waiter saw the interrupt");
            waiter.join(5000);
            assertEquals(List.of(held.node().name()), children(client, LOCK), "the interrupted waiter's node is gone");
        }
    }

    @Test
    void aWaiterWhoseSessionEndsFailsPromptlyAndLeavesNoNode() throws Exception {
        CoordClient client = SERVER.newClient();
        try (LockLease held = Locks.mutex(client, LOCK).acquire(Duration.ofSeconds(5))) {
            CoordClient doomed = SERVER.newClient();
            DistributedLock lock = Locks.mutex(doomed, LOCK);
            Future<LockLease> waiter = pool.submit(() -> lock.acquire(Duration.ofSeconds(60)));
            LockTesting.await("queued", Duration.ofSeconds(10), () -> inspect(client).waiters().size() == 1);
            LockTesting.expire(doomed, SERVER);
            java.util.concurrent.ExecutionException e = assertThrows(java.util.concurrent.ExecutionException.class,
                    () -> waiter.get(15, TimeUnit.SECONDS));
            assertTrue(e.getCause() instanceof io.coord.SessionExpiredException, "got " + e.getCause());
            assertEquals(List.of(held.node().name()), children(client, LOCK));
        }
    }

    @Test
    void aSecondAcquireOnTheHoldingThreadWaitsForItselfAndSaysSo() throws Exception {
        DistributedLock lock = Locks.mutex(SERVER.newClient(), LOCK);
        try (LockLease held = lock.acquire(Duration.ofSeconds(5))) {
            CoordTimeoutException e = assertThrows(CoordTimeoutException.class, () -> lock.acquire(Duration.ofMillis(200)));
            assertTrue(e.getMessage().contains("reenter()"), e.getMessage());
            assertEquals(LeaseState.ACQUIRED, held.state());
        }
    }

    @Test
    void tokensKeepGrowingWhenTheParentIsDeletedAndRecreatedThoughTheSuffixRestarts() throws Exception {
        CoordClient client = SERVER.newClient();
        DistributedLock lock = Locks.mutex(client, LOCK);
        LockLease first = lock.acquire(Duration.ofSeconds(5));
        first.close();
        client.curator().delete().deletingChildrenIfNeeded().forPath(LOCK.value());
        DistributedLock again = Locks.mutex(SERVER.newClient(), LOCK);
        try (LockLease second = again.acquire(Duration.ofSeconds(5))) {
            assertTrue(first.node().name().endsWith("0000000000"), first.node().name());
            assertTrue(second.node().name().endsWith("0000000000"), "the suffix restarted: " + second.node().name());
            assertTrue(second.token().isNewerThan(first.token()), "the token did not go back: " + first.token() + " then " + second.token());
            InMemoryFenceGuard guard = new InMemoryFenceGuard();
            assertTrue(guard.admit("r", second.token()));
            assertFalse(guard.admit("r", first.token()), "the first holder's token is stale after the re-creation");
        }
    }

    @Test
    void lockPathsAreValidatedSegmentBySegment() {
        assertEquals(CoordPath.of("/locks/order/123"), Locks.path("order", "123"));
        assertThrows(io.coord.InvalidNameException.class, () -> Locks.path("order", ""));
        assertThrows(io.coord.InvalidNameException.class, () -> Locks.path("order/", "123"));
        assertThrows(io.coord.InvalidNameException.class, () -> Locks.path("..", "123"));
        assertThrows(io.coord.InvalidPathException.class, () -> CoordPath.of("/locks/order//123"));
    }
}
