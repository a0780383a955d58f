package io.coord.lock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.CoordException;
import io.coord.CoordPath;
import io.coord.FencingToken;
import io.coord.LeaseState;
import io.coord.LockLostException;
import io.coord.test.Awaits;
import io.coord.test.BadInputs;
import io.coord.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link DistributedLock#asLock()} against the {@link java.util.concurrent.locks.Lock} contract,
 * on a real ZooKeeper: per-thread reentrancy, {@code tryLock} timed and immediate across two
 * clients, interrupts in each waiting method, {@code unlock} by a non-owner, and the token and
 * loss signal behind each hold.
 */
class JucLockAdapterIT {
    @RegisterExtension
    static final ZooKeeperExtension SERVER = ZooKeeperExtension.single();

    private static final CoordPath LOCK = Locks.path("juc", "ledger");
    private static final Duration LONG = Duration.ofSeconds(20);
    private final List<Thread> started = new java.util.concurrent.CopyOnWriteArrayList<>();

    @AfterEach
    void stop() throws InterruptedException {
        for (Thread t : started) {
            t.interrupt();
            t.join(Awaits.scaled(LONG).toMillis());
            assertFalse(t.isAlive(), t.getName() + " ended");
        }
    }

    /** Runs {@code call} on a new thread named {@code name}; its result or what it threw completes the future. */
    private CompletableFuture<Object> onThread(String name, Callable<Object> call) {
        CompletableFuture<Object> outcome = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                outcome.complete(call.call());
            } catch (Throwable e) {
                outcome.complete(e);
            }
        }, name);
        started.add(t);
        t.start();
        return outcome;
    }

    /** Thread {@code name} waits in {@code lock()} on a view of {@code client}; once granted it unlocks and yields the session it held on. */
    private CompletableFuture<Object> lockingOnThread(String name, CoordClient client) {
        JucLock waiter = Locks.mutex(client, LOCK).asLock();
        return onThread(name, () -> {
            waiter.lock();
            long session = waiter.heldByCurrentThread().orElseThrow().session().id();
            waiter.unlock();
            return session;
        });
    }

    private Thread thread(String name) {
        return started.stream().filter(t -> t.getName().equals(name)).findFirst().orElseThrow();
    }

    private static Object get(CompletableFuture<Object> outcome) throws Exception {
        return outcome.get(Awaits.scaled(LONG).toMillis(), TimeUnit.MILLISECONDS);
    }

    private static List<String> children(CoordClient client) throws Exception {
        return client.curator().getChildren().forPath(LOCK.value());
    }

    /** A lock view of {@code client} on LOCK, held by the calling thread. */
    private static JucLock locked(CoordClient client) {
        JucLock lock = Locks.mutex(client, LOCK).asLock();
        lock.lock();
        return lock;
    }

    private static void awaitWaiters(CoordClient observer, int n) {
        LockTesting.await(n + " waiter(s) queued", Duration.ofSeconds(10), () -> LockTesting.inspect(observer, LOCK).waiters().size() == n);
    }

    @Test
    void reentrantPerThreadSharingTheCuratorViewsHoldsAndTheLastUnlockDeletesTheNode() throws Exception {
        CoordClient client = SERVER.newClient();
        DistributedLock distributed = Locks.mutex(client, LOCK);
        JucLock lock = distributed.asLock();
        assertSame(lock, distributed.asLock(), "one view per lock object");
        lock.lock();
        LockLease lease = lock.heldByCurrentThread().orElseThrow();
        assertTrue(lock.tryLock(), "reentry by the owning thread is immediate");
        lock.lock();
        assertSame(lease, lock.heldByCurrentThread().orElseThrow(), "one hold, one lease, counted");
        assertTrue(distributed.asInterProcessLock().isOwnedByCurrentThread(), "the Curator view sees the same hold");
        assertSame(lease, distributed.heldByCurrentThread().orElseThrow());
        lock.unlock();
        lock.unlock();
        lease.checkValid();
        assertEquals(List.of(lease.node().name()), children(client), "two unlocks of three keep the node");
        lock.unlock();
        assertTrue(lock.heldByCurrentThread().isEmpty());
        assertEquals(LeaseState.RELEASED, lease.state());
        assertNull(client.curator().checkExists().forPath(lease.node().value()), "the last unlock deleted the node");
    }

    @Test
    void timedTryLockAcrossTwoClientsIsFalseOnTimeoutWithItsNodeRemovedAndTrueAfterTheRelease() throws Exception {
        CoordClient mineClient = SERVER.newClient();
        Lock mine = Locks.mutex(mineClient, LOCK).asLock();
        JucLock theirs = Locks.mutex(SERVER.newClient(), LOCK).asLock();
        mine.lock();
        String held = children(mineClient).get(0);
        Object timedOut = get(onThread("timed-short", () -> theirs.tryLock(300, TimeUnit.MILLISECONDS)));
        assertEquals(Boolean.FALSE, timedOut, "not granted within the time");
        assertEquals(List.of(held), children(mineClient), "the timed-out waiter removed its node");
        assertEquals(Boolean.FALSE, get(onThread("immediate", theirs::tryLock)), "tryLock() does not wait for a held lock");
        assertEquals(List.of(held), children(mineClient), "nor leaves a node");

        CompletableFuture<Object> waiting = onThread("timed-long", () -> {
            boolean got = theirs.tryLock(Awaits.scaled(LONG).toMillis(), TimeUnit.MILLISECONDS);
            FencingToken token = theirs.heldByCurrentThread().orElseThrow().token();
            theirs.unlock();
            return got ? token : "not granted";
        });
        awaitWaiters(mineClient, 1);
        FencingToken first = ((JucLock) mine).heldByCurrentThread().orElseThrow().token();
        mine.unlock();
        Object got = get(waiting);
        assertTrue(got instanceof FencingToken t && t.isNewerThan(first), "granted after the release, with a higher token: " + got);
    }

    @Test
    void tryLockTakesAFreeLockAtOnceAndAnInterruptFlagNeitherStopsItNorIsLost() throws Exception {
        CoordClient client = SERVER.newClient();
        JucLock lock = Locks.mutex(client, LOCK).asLock();
        Thread.currentThread().interrupt();
        try {
            assertTrue(lock.tryLock(), "a free lock is taken although the flag is set, as ReentrantLock.tryLock() does");
            assertTrue(Thread.currentThread().isInterrupted(), "the flag is still set");
        } finally {
            Thread.interrupted();
        }
        lock.heldByCurrentThread().orElseThrow().checkValid();
        lock.unlock();
        assertEquals(List.of(), children(client));
    }

    @Test
    void anInterruptWhileWaitingInLockInterruptiblyOrTimedTryLockThrowsAndLeavesNoNode() throws Exception {
        CoordClient holderClient = SERVER.newClient();
        JucLock holder = locked(holderClient);
        String held = children(holderClient).get(0);
        JucLock waiter = Locks.mutex(SERVER.newClient(), LOCK).asLock();

        CompletableFuture<Object> interruptible = onThread("interruptible", () -> {
            waiter.lockInterruptibly();
            return "locked";
        });
        awaitWaiters(holderClient, 1);
        thread("interruptible").interrupt();
        assertTrue(get(interruptible) instanceof InterruptedException, "lockInterruptibly ends on the interrupt");
        assertEquals(List.of(held), children(holderClient), "its node was removed");

        CompletableFuture<Object> timed = onThread("timed", () -> waiter.tryLock(Awaits.scaled(LONG).toMillis(), TimeUnit.MILLISECONDS));
        awaitWaiters(holderClient, 1);
        thread("timed").interrupt();
        assertTrue(get(timed) instanceof InterruptedException, "tryLock(time) ends on the interrupt");
        assertEquals(List.of(held), children(holderClient), "its node was removed");
        holder.unlock();
    }

    @Test
    void lockKeepsWaitingThroughAnInterruptAndSetsTheFlagAgainOnceItHolds() throws Exception {
        CoordClient holderClient = SERVER.newClient();
        JucLock holder = locked(holderClient);
        JucLock waiter = Locks.mutex(SERVER.newClient(), LOCK).asLock();
        CompletableFuture<Object> waited = onThread("uninterruptible", () -> {
            waiter.lock();
            boolean flag = Thread.currentThread().isInterrupted();
            waiter.unlock();
            return flag;
        });
        awaitWaiters(holderClient, 1);
        CoordPath before = LockTesting.inspect(holderClient, LOCK).waiters().get(0).node();
        thread("uninterruptible").interrupt();
        // The interrupt removed its node and it queued again: one waiter, on a new node, no stray one.
        LockTesting.await("the waiter queued again after the interrupt", Duration.ofSeconds(10), () -> {
            List<LockInfo.Entry> waiters = LockTesting.inspect(holderClient, LOCK).waiters();
            return waiters.size() == 1 && !waiters.get(0).node().equals(before);
        });
        assertEquals(2, children(holderClient).size(), "the holder's node and the one new waiter: " + children(holderClient));
        LockTesting.assertPending(waited, "lock() after an interrupt");
        holder.unlock();
        assertEquals(Boolean.TRUE, get(waited), "lock() got the lock and set the interrupt flag again");
    }

    /**
     * Bad input (RELIABILITY.md (c), {@link BadInputs}): unlock by a thread that holds nothing is
     * refused at once with IllegalMonitorStateException naming the thread, the lock and the
     * owner, and the owner's node stays.
     */
    @Test
    void unlockByANonOwnerThrowsIllegalMonitorStateNamingThreadAndLockAndChangesNothing() throws Exception {
        CoordClient client = SERVER.newClient();
        JucLock lock = Locks.mutex(client, LOCK).asLock();
        String me = "\"" + Thread.currentThread().getName() + "\"";
        BadInputs.assertRefused("unlock never locked", client, IllegalMonitorStateException.class, lock::unlock,
                "thread " + me + " does not hold", LOCK.value(), "no thread of this process holds it");
        lock.lock();
        String held = children(client).get(0);
        BadInputs.assertRefused("unlock from another thread", client, IllegalMonitorStateException.class, () -> {
            Object t = get(onThread("not-the-owner", () -> {
                lock.unlock();
                return null;
            }));
            if (t instanceof Throwable e) {
                throw e;
            }
        }, "thread \"not-the-owner\" does not hold", LOCK.value(), "held here by thread " + me);
        lock.heldByCurrentThread().orElseThrow().checkValid();
        assertEquals(List.of(held), children(client));
        lock.unlock();
    }

    @Test
    void theTokenIsReachableAndRisesWithEachNewHold() throws Exception {
        JucLock lock = Locks.mutex(SERVER.newClient(), LOCK).asLock();
        lock.lock();
        FencingToken first = lock.heldByCurrentThread().orElseThrow().token();
        lock.unlock();
        assertTrue(lock.tryLock(5, TimeUnit.SECONDS));
        FencingToken second = lock.heldByCurrentThread().orElseThrow().token();
        lock.unlock();
        assertTrue(second.isNewerThan(first), first + " then " + second);
    }

    @Test
    @Tag("fault")
    void aHoldLostToASessionExpiryShowsLostRefusesReentryAndItsUnlockDoesNotThrow() throws Exception {
        CoordClient client = SERVER.newClient();
        JucLock lock = Locks.mutex(client, LOCK).asLock();
        lock.lock();
        LockLease lease = lock.heldByCurrentThread().orElseThrow();
        LockTesting.expire(client, SERVER);
        assertEquals(LeaseState.LOST, lease.ended().get(Awaits.scaled(LONG).toMillis(), TimeUnit.MILLISECONDS));
        assertEquals(LeaseState.LOST, lock.heldByCurrentThread().orElseThrow().state(), "the loss is reachable through the view");
        LockLostException refused = assertThrows(LockLostException.class, lock::lock, "a lost hold is not silently re-entered");
        assertTrue(refused.getMessage().contains(LOCK.value()) && refused.getMessage().contains("LOST"), refused.getMessage());
        lock.unlock(); // balances the first lock(): no exception for cleanup of a lost hold
        assertTrue(lock.heldByCurrentThread().isEmpty());
        assertEquals(LeaseState.LOST, lease.state(), "unlock does not turn a loss into a release");
        assertThrows(IllegalMonitorStateException.class, lock::unlock, "the failed re-lock added no hold");
        assertTrue(lock.tryLock(5, TimeUnit.SECONDS), "the lock can be taken again, on the new session");
        assertTrue(lock.heldByCurrentThread().orElseThrow().token().isNewerThan(lease.token()));
        lock.unlock();
    }

    @Test
    @Tag("fault")
    void aWaiterInLockWhoseSessionExpiresQueuesAgainOnTheNewSessionAndGetsTheLock() throws Exception {
        CoordClient holderClient = SERVER.newClient();
        CoordClient waiterClient = SERVER.newClient();
        JucLock holder = locked(holderClient);
        CompletableFuture<Object> waited = lockingOnThread("expiring-waiter", waiterClient);
        long expired = LockTesting.expireTheWaiterAndAwaitItQueuedAgain(holderClient, LOCK, waiterClient, SERVER);
        LockTesting.assertPending(waited, "lock() while the holder holds");
        holder.unlock();
        Object session = get(waited);
        assertTrue(session instanceof Long s && s != expired, "acquired on the new session: " + session);
    }

    @Test
    void closingTheClientUnderAWaiterInLockEndsItWithACoordExceptionNamingTheLock() throws Exception {
        CoordClient holderClient = SERVER.newClient();
        CoordClient waiterClient = SERVER.newClient();
        JucLock holder = locked(holderClient);
        CompletableFuture<Object> waited = lockingOnThread("closed-waiter", waiterClient);
        awaitWaiters(holderClient, 1);
        waiterClient.close();
        Object outcome = get(waited);
        assertTrue(outcome instanceof CoordException, "an unchecked Coord exception, not a hang: " + outcome);
        assertTrue(((Throwable) outcome).getMessage().contains(LOCK.value()), ((Throwable) outcome).getMessage());
        LockTesting.await("the closed client's waiter node is gone", Duration.ofSeconds(10),
                () -> LockTesting.inspect(holderClient, LOCK).waiters().isEmpty());
        holder.unlock();
    }

    @Test
    void newConditionIsRefusedSayingWhyAndWhatToUseInstead() {
        JucLock lock = Locks.mutex(SERVER.newClient(), LOCK).asLock();
        UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class, lock::newCondition);
        assertTrue(e.getMessage().contains(LOCK.value()), e.getMessage());
        assertTrue(e.getMessage().contains("protocol of its own") && e.getMessage().contains("Gate"), e.getMessage());
    }

    @Test
    void theReadWriteHalvesAreLocksWithTheirHalfsRules() throws Exception {
        ReadWriteLock mine = Locks.readWrite(SERVER.newClient(), LOCK);
        ReadWriteLock theirs = Locks.readWrite(SERVER.newClient(), LOCK);
        JucLock write = mine.writeLock().asLock();
        assertNotEquals(write, mine.readLock().asLock());
        write.lock();
        assertEquals(Boolean.FALSE, get(onThread("other-reader", () -> theirs.readLock().asLock().tryLock())), "a write excludes readers");
        assertTrue(mine.readLock().asLock().tryLock(), "the writer's thread reads at once (read under write)");
        mine.readLock().asLock().unlock();
        write.unlock();
        JucLock read = mine.readLock().asLock();
        read.lock();
        assertEquals(Boolean.TRUE, get(onThread("other-reader-2", () -> {
            boolean got = theirs.readLock().asLock().tryLock();
            theirs.readLock().asLock().unlock();
            return got;
        })), "readers share");
        assertThrows(IllegalStateException.class, write::lock, "an upgrade is refused");
        read.unlock();
    }
}
