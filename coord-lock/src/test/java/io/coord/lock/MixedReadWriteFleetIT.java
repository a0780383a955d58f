package io.coord.lock;

import static io.coord.lock.MixedMutexFleetIT.ACQUISITIONS;
import static io.coord.lock.MixedMutexFleetIT.BUDGET;
import static io.coord.lock.MixedMutexFleetIT.coordNative;
import static io.coord.lock.MixedMutexFleetIT.coordView;
import static io.coord.lock.MixedMutexFleetIT.curatorMutex;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.test.Awaits;
import io.coord.CoordPath;
import io.coord.ForeignNodesException;
import io.coord.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessLock;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 16, read-write lock: InterProcessReadWriteLock and {@link Locks#readWrite} on one path
 * queue in one order (Coord names its nodes {@code __READ__}/{@code __WRIT__} as Curator does, and
 * reads Curator's with the same meaning), so a mixed fleet never has a writer beside anyone —
 * Coord's extras (read under its own write, downgrade) included.
 */
class MixedReadWriteFleetIT {
    @RegisterExtension
    static final ZooKeeperExtension SERVER = ZooKeeperExtension.single();

    private static final CoordPath LOCK = Locks.path("catalog", "mixed");
    private static final Duration WAIT = Awaits.scaled(Duration.ofSeconds(20));
    private final ExecutorService pool = Executors.newCachedThreadPool();

    @AfterEach
    void stop() throws InterruptedException {
        pool.shutdownNow();
        assertTrue(pool.awaitTermination(WAIT.toMillis(), TimeUnit.MILLISECONDS));
    }

    private static InterProcessReadWriteLock curatorLock(MixedFleet fleet) throws InterruptedException {
        return new InterProcessReadWriteLock(fleet.curator(), LOCK.value());
    }

    /** A shared contender typed against Curator's InterProcessLock (Curator's read lock, or Coord's read view). */
    static void sharedView(MixedFleet fleet, String name, InterProcessLock lock) {
        fleet.add(name, s -> {
            if (!lock.acquire(MixedFleet.ACQUIRE.toMillis(), TimeUnit.MILLISECONDS)) {
                return false;
            }
            try {
                s.visit(name, false, 0, -1);
            } finally {
                lock.release();
            }
            return true;
        });
    }

    private static void coordReader(MixedFleet fleet, String name, ReadWriteLock lock) {
        fleet.add(name, s -> {
            Optional<LockLease> held = lock.readLock().tryAcquire(MixedFleet.ACQUIRE);
            if (held.isEmpty()) {
                return false;
            }
            try (LockLease lease = held.get()) {
                s.visit(name, false, lease.session().id(), -1);
            }
            return true;
        });
    }

    /**
     * Coord's extras in the fleet: write, then read at the write's place without letting a writer
     * in — by {@link ReadWriteLock#downgrade} and, every other turn, by the Curator views (read
     * under the thread's write, then release the write).
     */
    private static void coordDowngrader(MixedFleet fleet, String name, ReadWriteLock lock) {
        AtomicInteger turn = new AtomicInteger();
        InterProcessLock writeView = lock.writeLock().asInterProcessLock();
        InterProcessLock readView = lock.readLock().asInterProcessLock();
        fleet.add(name, s -> {
            if (turn.getAndIncrement() % 2 == 0) {
                Optional<LockLease> write = lock.writeLock().tryAcquire(MixedFleet.ACQUIRE);
                if (write.isEmpty()) {
                    return false;
                }
                LockLease read = null;
                try {
                    s.visit(name, true, write.get().session().id(), write.get().token().value());
                    read = lock.downgrade(write.get()); // closes the write
                } finally {
                    if (read == null) {
                        write.get().close();
                    }
                }
                try (LockLease r = read) {
                    s.visit(name, false, r.session().id(), -1);
                }
                return true;
            }
            if (!writeView.acquire(MixedFleet.ACQUIRE.toMillis(), TimeUnit.MILLISECONDS)) {
                return false;
            }
            boolean reading = false;
            try {
                LockLease w = lock.writeLock().heldByCurrentThread().orElseThrow();
                s.visit(name, true, w.session().id(), w.token().value());
                reading = readView.acquire(0, TimeUnit.MILLISECONDS);
                assertTrue(reading, "a read under the thread's own write is granted at once");
            } finally {
                writeView.release();
            }
            try {
                s.visit(name, false, 0, -1);
            } finally {
                if (reading) {
                    readView.release();
                }
            }
            return true;
        });
    }

    @Test
    void curatorAndCoordWritersOnOnePathNeverOverlap() throws Exception {
        try (MixedFleet fleet = new MixedFleet(SERVER)) {
            for (int i = 1; i <= 3; i++) {
                curatorMutex(fleet, "curator-writer-" + i, curatorLock(fleet).writeLock());
            }
            coordNative(fleet, "coord-writer-1", Locks.readWrite(SERVER.newClient(), LOCK).writeLock());
            coordNative(fleet, "coord-writer-2", Locks.readWrite(SERVER.newClient(), LOCK).writeLock());
            coordView(fleet, "coord-writer-view", Locks.readWrite(SERVER.newClient(), LOCK).writeLock());
            fleet.runClean(ACQUISITIONS, BUDGET);
        }
    }

    /** 2 Curator writers, 2 Curator readers; Coord: a writer, a writer view, a reader, a read view, a downgrader. */
    private static List<CoordClient> readerWriterFleet(MixedFleet fleet) throws InterruptedException {
        for (int i = 1; i <= 2; i++) {
            curatorMutex(fleet, "curator-writer-" + i, curatorLock(fleet).writeLock());
            sharedView(fleet, "curator-reader-" + i, curatorLock(fleet).readLock());
        }
        CoordClient writer = SERVER.newClient();
        CoordClient others = SERVER.newClient();
        coordNative(fleet, "coord-writer", Locks.readWrite(writer, LOCK).writeLock());
        coordView(fleet, "coord-writer-view", Locks.readWrite(SERVER.newClient(), LOCK).writeLock());
        coordReader(fleet, "coord-reader", Locks.readWrite(others, LOCK));
        sharedView(fleet, "coord-reader-view", Locks.readWrite(SERVER.newClient(), LOCK).readLock().asInterProcessLock());
        coordDowngrader(fleet, "coord-downgrader", Locks.readWrite(SERVER.newClient(), LOCK));
        return List.of(writer, others);
    }

    @Test
    void curatorAndCoordReadersAndWritersOnOnePathNeverOverlap() throws Exception {
        try (MixedFleet fleet = new MixedFleet(SERVER)) {
            readerWriterFleet(fleet);
            fleet.runClean(ACQUISITIONS, BUDGET);
        }
    }

    @Test
    @Tag("fault")
    void aCoordWritersSessionExpiringMidRunLeavesTheSurvivorsExclusiveAndTokensRising() throws Exception {
        try (MixedFleet fleet = new MixedFleet(SERVER)) {
            CoordClient victim = readerWriterFleet(fleet).get(0);
            fleet.runExpiringHalfWay(victim, "coord-writer", ACQUISITIONS, BUDGET);
        }
    }

    @Test
    void aCuratorWriterQueuedBehindACoordDowngradeStaysOutWhileTheReadHolds() throws Exception {
        try (MixedFleet fleet = new MixedFleet(SERVER)) {
            InterProcessReadWriteLock curator = curatorLock(fleet);
            ReadWriteLock coord = Locks.readWrite(SERVER.newClient(), LOCK);
            LockLease write = coord.writeLock().acquire(WAIT);
            Future<Boolean> curatorWriter = pool.submit(() -> acquireAndRelease(curator.writeLock()));
            CoordClient observer = SERVER.newClient();
            LockTesting.await("the Curator writer queued", Duration.ofSeconds(10),
                    () -> LockTesting.inspect(observer, LOCK).waiters().size() == 1);
            assertEquals("write", LockTesting.inspect(observer, LOCK).waiters().get(0).type(), "Coord reads Curator's __WRIT__ node");

            LockLease read = coord.downgrade(write);

            LockTesting.assertPending(curatorWriter, "the Curator writer behind the downgraded read");
            assertEquals(List.of(read.node()), LockTesting.inspect(observer, LOCK).holders().stream().map(LockInfo.Entry::node).toList());
            read.close();
            assertTrue(curatorWriter.get(WAIT.toMillis(), TimeUnit.MILLISECONDS), "the Curator writer enters once the read is released");
        }
    }

    @Test
    void eachLibrarysReaderWaitsForTheOthersWriterAndEachWriterForTheOthersReader() throws Exception {
        try (MixedFleet fleet = new MixedFleet(SERVER)) {
            InterProcessReadWriteLock curator = curatorLock(fleet);
            ReadWriteLock coord = Locks.readWrite(SERVER.newClient(), LOCK);

            LockLease coordWrite = coord.writeLock().acquire(WAIT);
            Future<Boolean> curatorRead = pool.submit(() -> acquireAndRelease(curator.readLock()));
            LockTesting.assertPending(curatorRead, "a Curator reader while a Coord writer holds");
            coordWrite.close();
            assertTrue(curatorRead.get(WAIT.toMillis(), TimeUnit.MILLISECONDS));

            assertTrue(curator.writeLock().acquire(WAIT.toMillis(), TimeUnit.MILLISECONDS));
            ReadWriteLock coordOther = Locks.readWrite(SERVER.newClient(), LOCK);
            Future<LockLease> coordRead = pool.submit(() -> coordOther.readLock().acquire(WAIT));
            LockTesting.assertPending(coordRead, "a Coord reader while a Curator writer holds");
            curator.writeLock().release();
            LockLease read = coordRead.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);

            Future<Boolean> curatorWrite = pool.submit(() -> acquireAndRelease(curator.writeLock()));
            LockTesting.assertPending(curatorWrite, "a Curator writer while a Coord reader holds");
            read.close();
            assertTrue(curatorWrite.get(WAIT.toMillis(), TimeUnit.MILLISECONDS));
        }
    }

    /** Takes {@code lock} (bounded), releases it on the same thread; false if it was not granted in time. */
    static boolean acquireAndRelease(InterProcessLock lock) throws Exception {
        boolean got = lock.acquire(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        if (got) {
            lock.release();
        }
        return got;
    }

    @Test
    void aNodeOfTheOldLayoutOrATypoIsRefusedByNameAndShownByInspection() throws Exception {
        CoordClient client = SERVER.newClient();
        CuratorFramework raw = client.curator();
        String stale = "_c_3f2a4b1c-0000-4000-8000-00000000abcd-write-0000000001";
        raw.create().creatingParentContainersIfNeeded().withMode(CreateMode.EPHEMERAL).forPath(LOCK.value() + "/" + stale);
        ReadWriteLock lock = Locks.readWrite(client, LOCK);
        ForeignNodesException e = assertThrows(ForeignNodesException.class, () -> lock.writeLock().acquire(WAIT));
        assertEquals(List.of(stale), e.nodes());
        assertEquals(LOCK, e.path());
        assertTrue(e.getMessage().contains(stale) && e.getMessage().contains(LOCK.value()), e.getMessage());
        assertTrue(e.getMessage().contains("read-/write- nodes are Coord's read-write layout"), e.getMessage());
        assertThrows(ForeignNodesException.class, () -> lock.readLock().tryAcquire());
        assertEquals(List.of(stale), raw.getChildren().forPath(LOCK.value()), "our own nodes were removed, the foreign one kept");
        LockInfo info = LockTesting.inspect(client, LOCK);
        assertEquals(List.of(stale), info.foreign());

        raw.delete().forPath(LOCK.value() + "/" + stale);
        raw.create().creatingParentContainersIfNeeded().withMode(CreateMode.PERSISTENT).forPath(LOCK.value() + "/lokc-0000000009");
        DistributedLock mutex = Locks.mutex(client, LOCK);
        ForeignNodesException typo = assertThrows(ForeignNodesException.class, () -> mutex.tryAcquire(Duration.ofSeconds(1)));
        assertEquals(List.of("lokc-0000000009"), typo.nodes(), typo.getMessage());
        raw.delete().forPath(LOCK.value() + "/lokc-0000000009");
        mutex.tryAcquire().orElseThrow().close();
    }
}
