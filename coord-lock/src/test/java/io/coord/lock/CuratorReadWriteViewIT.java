package io.coord.lock;

import static io.coord.lock.MixedMutexFleetIT.coordView;
import static io.coord.lock.MixedMutexFleetIT.curatorMutex;
import static io.coord.lock.MixedReadWriteFleetIT.acquireAndRelease;
import static io.coord.lock.MixedReadWriteFleetIT.sharedView;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.CoordPath;
import io.coord.LeaseState;
import io.coord.LockLostException;
import io.coord.test.Awaits;
import io.coord.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.recipes.locks.InterProcessLock;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Issue 16, the read-write view ({@link ReadWriteLock#asInterProcessReadWriteLock()}). The contract
 * tests are written against Curator's documented contract for InterProcessReadWriteLock and its
 * InterProcessMutex halves, and run against Curator's own lock as well as Coord's view, so they
 * test Curator's contract and not Coord's reading of it. Then what only the view has, or does
 * otherwise: one object, Curator's getParticipantNodes answer, token and loss signal, the refused
 * upgrade, queueing again after a waiter's session ends, and a short mixed run.
 */
class CuratorReadWriteViewIT {
    @RegisterExtension
    static final ZooKeeperExtension SERVER = ZooKeeperExtension.single();

    private static final CoordPath LOCK = Locks.path("catalog", "rw-view");
    private static final Duration WAIT = Awaits.scaled(Duration.ofSeconds(10));
    /** A timed acquire that must fail: the holder holds throughout, so its length is no race. */
    private static final long SHORT_MS = 200;

    private final ExecutorService other = Executors.newSingleThreadExecutor(r -> new Thread(r, "other-thread"));
    private final ExecutorService pool = Executors.newCachedThreadPool();
    private MixedFleet curators;
    private CoordClient probe;

    /** The lock under test: Curator's InterProcessReadWriteLock, or Coord's Curator-shaped view. */
    enum Library { CURATOR, COORD }

    private record Halves(InterProcessLock read, InterProcessLock write) {
    }

    @BeforeEach
    void start() {
        curators = new MixedFleet(SERVER); // only as a source of Curator clients it closes
        probe = SERVER.newClient();
    }

    @AfterEach
    void stop() throws InterruptedException {
        other.shutdownNow();
        pool.shutdownNow();
        assertTrue(other.awaitTermination(WAIT.toMillis(), TimeUnit.MILLISECONDS));
        assertTrue(pool.awaitTermination(WAIT.toMillis(), TimeUnit.MILLISECONDS));
        curators.close();
    }

    private Halves halves(Library library) throws InterruptedException {
        if (library == Library.CURATOR) {
            InterProcessReadWriteLock rw = new InterProcessReadWriteLock(curators.curator(), LOCK.value());
            return new Halves(rw.readLock(), rw.writeLock());
        }
        CuratorReadWriteLock view = Locks.readWrite(SERVER.newClient(), LOCK).asInterProcessReadWriteLock();
        return new Halves(view.readLock(), view.writeLock());
    }

    /** The lock's children as the server has them now. */
    private List<String> nodes() throws Exception {
        if (probe.curator().checkExists().forPath(LOCK.value()) == null) {
            return List.of();
        }
        return probe.curator().getChildren().forPath(LOCK.value());
    }

    /**
     * The probe is another client: a release's delete, sent but not waited for, reaches it when it
     * lands (FENCING.md, "After close() returns"), so a count after a release is awaited (bounded).
     */
    private void awaitNodes(int count, String what) {
        Awaits.until(what, Duration.ofSeconds(10), () -> {
            try {
                return nodes().size() == count;
            } catch (Exception e) {
                return false;
            }
        });
    }
    private <T> T onOther(Callable<T> call) throws Exception {
        return other.submit(call).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** What {@code release()} from the other thread throws (null: nothing). */
    private Throwable releaseOnOther(InterProcessLock half) throws Exception {
        return onOther(() -> {
            try {
                half.release();
                return null;
            } catch (Throwable t) {
                return t;
            }
        });
    }

    @ParameterizedTest
    @EnumSource(Library.class)
    void eachHalfIsReentrantPerThreadAndItsNodeGoesWithTheLastRelease(Library library) throws Exception {
        Halves rw = halves(library);
        for (InterProcessLock half : List.of(rw.write(), rw.read())) {
            half.acquire();
            assertTrue(half.acquire(WAIT.toMillis(), TimeUnit.MILLISECONDS), "reentry by the holding thread");
            assertEquals(1, nodes().size(), "a reentry makes no node: " + nodes());
            half.release();
            assertTrue(half.isAcquiredInThisProcess(), "one release of two keeps the hold");
            assertEquals(1, nodes().size(), "one release of two keeps the node");
            half.release();
            assertFalse(half.isAcquiredInThisProcess());
            awaitNodes(0, "the last release deleted the node");
        }
    }

    @ParameterizedTest
    @EnumSource(Library.class)
    void holdsBelongToThreadsAndATimedAcquireNotGrantedReturnsFalseAndLeavesNoNode(Library library) throws Exception {
        Halves rw = halves(library);
        rw.write().acquire();
        try {
            assertFalse(onOther(() -> rw.write().acquire(SHORT_MS, TimeUnit.MILLISECONDS)),
                    "another thread of the process does not share the write hold: its timed acquire returns false");
            assertFalse(onOther(() -> rw.read().acquire(SHORT_MS, TimeUnit.MILLISECONDS)),
                    "nor does it read under another thread's write");
            awaitNodes(1, "the timed-out waiters removed their nodes");
        } finally {
            rw.write().release();
        }
        rw.read().acquire();
        try {
            assertTrue(onOther(() -> acquireAndRelease(rw.read())), "readers share the lock");
            assertFalse(onOther(() -> rw.write().acquire(SHORT_MS, TimeUnit.MILLISECONDS)), "a writer waits for the reader");
            awaitNodes(1, "only the reader's node is left");
        } finally {
            rw.read().release();
        }
        awaitNodes(0, "every node deleted");
    }

    /** Curator's documented downgrade: write, then read (granted under the own write), then release the write. */
    @ParameterizedTest
    @EnumSource(Library.class)
    void aThreadHoldingTheWriteLockTakesTheReadLockAndKeepsItAfterReleasingTheWrite(Library library) throws Exception {
        Halves rw = halves(library);
        InterProcessReadWriteLock curatorWriter = new InterProcessReadWriteLock(curators.curator(), LOCK.value());
        rw.write().acquire();
        assertTrue(rw.read().acquire(WAIT.toMillis(), TimeUnit.MILLISECONDS), "a read under the thread's own write is granted");
        Future<Boolean> writer = pool.submit(() -> acquireAndRelease(curatorWriter.writeLock()));
        LockTesting.await("a Curator writer queued behind", Duration.ofSeconds(10), () -> {
            try {
                return nodes().size() == 3;
            } catch (Exception e) {
                return false;
            }
        });
        rw.write().release();
        assertTrue(rw.read().isAcquiredInThisProcess());
        LockTesting.assertPending(writer, "the writer queued behind the write, while its read holds");
        rw.read().release();
        assertTrue(writer.get(WAIT.toMillis(), TimeUnit.MILLISECONDS), "the writer enters once the read is released");
    }

    @ParameterizedTest
    @EnumSource(Library.class)
    void releaseByAThreadThatHoldsNothingThrowsIllegalMonitorStateAndChangesNothing(Library library) throws Exception {
        Halves rw = halves(library);
        for (InterProcessLock half : List.of(rw.write(), rw.read())) {
            assertThrows(IllegalMonitorStateException.class, half::release, "never acquired");
            half.acquire();
            try {
                Throwable t = releaseOnOther(half);
                assertTrue(t instanceof IllegalMonitorStateException, "got " + t);
                assertEquals(1, nodes().size(), "the holder's node stays: " + nodes());
                assertTrue(half.isAcquiredInThisProcess());
            } finally {
                half.release();
            }
            assertThrows(IllegalMonitorStateException.class, half::release, "released more often than acquired");
        }
    }

    @Test
    void theViewIsOneObjectOverTheHalvesOwnViewsAndRefusesAnUpgradeAtOnce() throws Exception {
        ReadWriteLock lock = Locks.readWrite(SERVER.newClient(), LOCK);
        CuratorReadWriteLock view = lock.asInterProcessReadWriteLock();
        assertSame(view, lock.asInterProcessReadWriteLock(), "one view per lock object");
        assertSame(lock.readLock().asInterProcessLock(), view.readLock(), "the read half's own view: the same per-thread holds");
        assertSame(lock.writeLock().asInterProcessLock(), view.writeLock(), "the write half's own view: the same per-thread holds");

        view.readLock().acquire();
        try {
            // Curator's write acquire here waits behind its own read forever; Coord refuses at once.
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> view.writeLock().acquire(WAIT.toMillis(), TimeUnit.MILLISECONDS));
            assertTrue(e.getMessage().contains("read-to-write upgrade refused on " + LOCK.value()), e.getMessage());
            assertEquals(1, nodes().size(), "the refused upgrade created no node: " + nodes());
            assertFalse(view.writeLock().isAcquiredInThisProcess());

            Throwable t = releaseOnOther(view.readLock());
            assertTrue(t instanceof IllegalMonitorStateException, "got " + t);
            assertTrue(t.getMessage().contains("\"other-thread\" does not hold read lock " + LOCK.value()), t.getMessage());
            assertTrue(t.getMessage().contains("\"" + Thread.currentThread().getName() + "\""), "names the holder: " + t.getMessage());
        } finally {
            view.readLock().release();
        }
        awaitNodes(0, "every node deleted");
    }

    @Test
    void eachHalfAnswersGetParticipantNodesAsInterProcessReadWriteLocksHalfOnTheSamePath() throws Exception {
        CuratorReadWriteLock view = Locks.readWrite(SERVER.newClient(), LOCK).asInterProcessReadWriteLock();
        InterProcessReadWriteLock curator = new InterProcessReadWriteLock(curators.curator(), LOCK.value());
        CuratorReadWriteLock otherView = Locks.readWrite(SERVER.newClient(), LOCK).asInterProcessReadWriteLock();
        view.writeLock().acquire();
        view.readLock().acquire(); // a read under the own write: queued at the write's place
        List<Future<Boolean>> waiters = new java.util.ArrayList<>();
        int queued = 2;
        for (InterProcessLock waiter : List.of(curator.writeLock(), curator.readLock(), otherView.writeLock(), otherView.readLock())) {
            waiters.add(pool.submit(() -> acquireAndRelease(waiter)));
            int expected = ++queued;
            LockTesting.await(expected + " nodes queued", Duration.ofSeconds(10), () -> {
                try {
                    return nodes().size() == expected;
                } catch (Exception e) {
                    return false;
                }
            });
        }

        List<String> writers = List.copyOf(view.writeLock().getParticipantNodes());
        List<String> readers = List.copyOf(view.readLock().getParticipantNodes());
        assertEquals(List.copyOf(curator.writeLock().getParticipantNodes()), writers, "the write half's answer is Curator's");
        assertEquals(List.copyOf(curator.readLock().getParticipantNodes()), readers, "the read half's answer is Curator's");
        assertEquals(List.copyOf(otherView.writeLock().getParticipantNodes()), writers);
        assertEquals(3, writers.size(), writers.toString());
        assertEquals(3, readers.size(), readers.toString());
        assertEquals(view.writeLock().heldByCurrentThread().orElseThrow().node().value(), writers.get(0), "the holder first");
        assertEquals(view.readLock().heldByCurrentThread().orElseThrow().node().value(), readers.get(0),
                "the read under the write first: it sorts at the write's sequence");
        assertTrue(writers.stream().allMatch(n -> n.startsWith(LOCK.value() + "/")), "full paths: " + writers);

        view.readLock().release();
        view.writeLock().release();
        for (Future<Boolean> waiter : waiters) {
            assertTrue(waiter.get(WAIT.toMillis(), TimeUnit.MILLISECONDS), "every waiter got its turn");
        }
    }

    @Test
    void theTokenAndTheLossSignalOfEachHoldAreReachableFromTheView() throws Exception {
        CoordClient client = SERVER.newClient();
        ReadWriteLock lock = Locks.readWrite(client, LOCK);
        CuratorReadWriteLock view = lock.asInterProcessReadWriteLock();
        view.writeLock().acquire();
        view.readLock().acquire();
        LockLease write = view.writeLock().heldByCurrentThread().orElseThrow();
        LockLease read = view.readLock().heldByCurrentThread().orElseThrow();
        assertSame(write, lock.writeLock().heldByCurrentThread().orElseThrow());
        assertEquals(client.curator().checkExists().forPath(write.node().value()).getCzxid(), write.token().value(),
                "the write token is its node's czxid");
        assertEquals(LeaseState.ACQUIRED, write.state());
        assertEquals(LeaseState.ACQUIRED, read.state());
        assertTrue(onOther(() -> view.writeLock().heldByCurrentThread().isEmpty()), "another thread holds nothing through the view");

        LockTesting.expire(client, SERVER);
        assertEquals(LeaseState.LOST, write.ended().get(WAIT.toMillis(), TimeUnit.MILLISECONDS));
        assertEquals(LeaseState.LOST, read.ended().get(WAIT.toMillis(), TimeUnit.MILLISECONDS));
        assertEquals(LeaseState.LOST, view.writeLock().heldByCurrentThread().orElseThrow().state(), "the loss is visible from the view");
        assertThrows(LockLostException.class, view.writeLock()::acquire, "a lost hold is not silently re-entered");
        view.readLock().release(); // balance the acquires: the lost leases are closed, nothing else happens
        view.writeLock().release();
        assertFalse(view.writeLock().isAcquiredInThisProcess() || view.readLock().isAcquiredInThisProcess());

        assertTrue(view.writeLock().acquire(WAIT.toMillis(), TimeUnit.MILLISECONDS), "acquired again on the new session");
        try {
            assertTrue(view.writeLock().heldByCurrentThread().orElseThrow().token().isNewerThan(write.token()), "a higher token");
        } finally {
            view.writeLock().release();
        }
    }

    /** As InterProcessMutex's acquire (and CuratorViewIT's mutex view): the write half's waiter queues again. */
    @Test
    @Tag("fault")
    void aWriteWaiterWhoseSessionExpiresQueuesAgainOnTheNewSessionAndAcquires() throws Exception {
        InterProcessReadWriteLock curator = new InterProcessReadWriteLock(curators.curator(), LOCK.value());
        CoordClient waiter = SERVER.newClient();
        CuratorLock writeView = Locks.readWrite(waiter, LOCK).asInterProcessReadWriteLock().writeLock();
        curator.readLock().acquire(); // a Curator reader holds on this thread
        boolean reading = true;
        try {
            Future<Long> waited = other.submit(() -> {
                if (!writeView.acquire(Awaits.scaled(Duration.ofSeconds(30)).toMillis(), TimeUnit.MILLISECONDS)) {
                    return -1L;
                }
                try {
                    return writeView.heldByCurrentThread().orElseThrow().session().id();
                } finally {
                    writeView.release();
                }
            });
            long expired = LockTesting.expireTheWaiterAndAwaitItQueuedAgain(probe, LOCK, waiter, SERVER);
            assertFalse(waited.isDone(), "still waiting: the Curator reader holds");
            curator.readLock().release();
            reading = false;
            long session = waited.get(Awaits.scaled(Duration.ofSeconds(20)).toMillis(), TimeUnit.MILLISECONDS);
            assertTrue(session != expired && session != -1L, "acquired on the new session, got " + session);
        } finally {
            if (reading) {
                curator.readLock().release();
            }
        }
    }

    /** The view's halves in a short mixed run with Curator's: its write half excludes a Curator writer and reader. */
    @Test
    void theViewsWriteHalfExcludesACuratorWriterAndReaderOnOnePath() throws Exception {
        try (MixedFleet fleet = new MixedFleet(SERVER)) {
            curatorMutex(fleet, "curator-writer", new InterProcessReadWriteLock(fleet.curator(), LOCK.value()).writeLock());
            sharedView(fleet, "curator-reader", new InterProcessReadWriteLock(fleet.curator(), LOCK.value()).readLock());
            coordView(fleet, "coord-view-writer", Locks.readWrite(SERVER.newClient(), LOCK).asInterProcessReadWriteLock().writeLock());
            sharedView(fleet, "coord-view-reader", Locks.readWrite(SERVER.newClient(), LOCK).asInterProcessReadWriteLock().readLock());
            fleet.runClean(120, Duration.ofSeconds(60));
        }
    }
}
