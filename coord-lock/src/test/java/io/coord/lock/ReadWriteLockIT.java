package io.coord.lock;

import io.coord.test.ZooKeeperExtension;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.CoordPath;
import io.coord.LeaseState;
import io.coord.fence.InMemoryFenceGuard;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.recipes.locks.InterProcessLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Many readers or one writer, fair, with monotonic write tokens, a safe downgrade and a refused upgrade. */
class ReadWriteLockIT {
    @RegisterExtension
    static final ZooKeeperExtension SERVER = ZooKeeperExtension.single();

    private static final CoordPath LOCK = Locks.path("catalog", "prices");
    private static final Duration WAIT = Duration.ofSeconds(30);
    private final ExecutorService pool = Executors.newCachedThreadPool();

    @AfterEach
    void stop() throws InterruptedException {
        pool.shutdownNow();
        assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
    }

    private ReadWriteLock rw() {
        return Locks.readWrite(SERVER.newClient(), LOCK);
    }

    @Test
    void readersShareWritersExcludeAndTheWriteTokensOnlyGrow() throws Exception {
        int clients = 4;
        int rounds = 40;
        AtomicInteger readers = new AtomicInteger();
        AtomicInteger writers = new AtomicInteger();
        AtomicInteger violations = new AtomicInteger();
        AtomicInteger maxReaders = new AtomicInteger();
        InMemoryFenceGuard guard = new InMemoryFenceGuard();
        List<Long> writeTokens = Collections.synchronizedList(new ArrayList<>());
        List<Future<?>> workers = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            ReadWriteLock lock = rw();
            workers.add(pool.submit(() -> {
                for (int i = 0; i < rounds; i++) {
                    boolean write = ThreadLocalRandom.current().nextInt(4) == 0;
                    try (LockLease lease = (write ? lock.writeLock() : lock.readLock()).acquire(WAIT)) {
                        if (write) {
                            if (writers.incrementAndGet() != 1 || readers.get() != 0) {
                                violations.incrementAndGet();
                            }
                            assertTrue(guard.admit("prices", lease.token()));
                            writeTokens.add(lease.token().value());
                            writers.decrementAndGet();
                        } else {
                            int now = readers.incrementAndGet();
                            maxReaders.accumulateAndGet(now, Math::max);
                            if (writers.get() != 0) {
                                violations.incrementAndGet();
                            }
                            Thread.sleep(2); // long enough for readers to meet
                            readers.decrementAndGet();
                        }
                    }
                }
                return null;
            }));
        }
        for (Future<?> w : workers) {
            w.get(120, TimeUnit.SECONDS);
        }
        assertEquals(0, violations.get(), "a writer never overlapped anyone");
        assertTrue(maxReaders.get() > 1, "readers did share the lock (max together: " + maxReaders.get() + ")");
        assertEquals(0, guard.rejections());
        for (int i = 1; i < writeTokens.size(); i++) {
            assertTrue(writeTokens.get(i) > writeTokens.get(i - 1), "write tokens strictly increase in grant order");
        }
    }

    @Test
    void aReaderThatAsksAfterAWaitingWriterQueuesBehindIt() throws Exception {
        LockLease firstRead = rw().readLock().acquire(WAIT);
        ReadWriteLock writerLock = rw();
        Future<LockLease> writer = pool.submit(() -> writerLock.writeLock().acquire(WAIT));
        CoordClient observer = SERVER.newClient();
        LockTesting.await("the writer queued", Duration.ofSeconds(10), () -> LockTesting.inspect(observer, LOCK).waiters().size() == 1);
        ReadWriteLock lateReader = rw();
        assertTrue(lateReader.readLock().tryAcquire(Duration.ofMillis(300)).isEmpty(), "no reader overtakes a waiting writer");
        Future<LockLease> reader = pool.submit(() -> lateReader.readLock().acquire(WAIT));
        LockTesting.assertPending(reader, "the late reader");
        firstRead.close();
        LockLease w = writer.get(10, TimeUnit.SECONDS);
        LockTesting.assertPending(reader, "the late reader while the writer holds");
        w.close();
        reader.get(10, TimeUnit.SECONDS).close();
    }

    @Test
    void aDowngradedWriteKeepsAQueuedWriterOutUntilTheReadIsReleased() throws Exception {
        ReadWriteLock lock = rw();
        LockLease write = lock.writeLock().acquire(WAIT);
        ReadWriteLock other = rw();
        Future<LockLease> queuedWriter = pool.submit(() -> other.writeLock().acquire(WAIT));
        CoordClient observer = SERVER.newClient();
        LockTesting.await("the second writer queued", Duration.ofSeconds(10),
                () -> LockTesting.inspect(observer, LOCK).waiters().size() == 1);

        LockLease read = lock.downgrade(write);

        assertEquals(LeaseState.RELEASED, write.state());
        assertEquals(LeaseState.ACQUIRED, read.state());
        assertTrue(read.token().isNewerThan(write.token()));
        LockTesting.assertPending(queuedWriter, "the queued writer after the downgrade");
        LockInfo info = LockTesting.inspect(observer, LOCK);
        assertEquals(List.of(read.node()), info.holders().stream().map(LockInfo.Entry::node).toList(), "the read holds alone");
        assertEquals("write", info.waiters().get(0).type());
        read.close();
        LockLease w2 = queuedWriter.get(10, TimeUnit.SECONDS);
        assertTrue(w2.token().isNewerThan(write.token()), "write tokens grow in grant order");
        w2.close();
    }

    /**
     * Issue 15, defect 6: a read anchored at its write (a downgrade) is made after a queued writer,
     * so its czxid is higher, yet it is granted first. Read tokens are therefore not in grant order
     * with write tokens, and the documented rule is: a FenceGuard of a read-write lock takes write
     * tokens only. Fed that way, the legitimate next writer is never refused as stale; fed the read
     * token too, it would be.
     */
    @Test
    void aFenceGuardFedWithWriteTokensNeverRefusesTheNextLegitimateWriterAfterADowngrade() throws Exception {
        ReadWriteLock lock = rw();
        io.coord.fence.InMemoryFenceGuard writesOnly = new io.coord.fence.InMemoryFenceGuard();
        io.coord.fence.InMemoryFenceGuard everything = new io.coord.fence.InMemoryFenceGuard();
        LockLease write = lock.writeLock().acquire(WAIT);
        assertTrue(writesOnly.admit("prices", write.token()));
        assertTrue(everything.admit("prices", write.token()));
        ReadWriteLock other = rw();
        Future<LockLease> queuedWriter = pool.submit(() -> other.writeLock().acquire(WAIT));
        CoordClient observer = SERVER.newClient();
        LockTesting.await("the second writer queued", Duration.ofSeconds(10),
                () -> LockTesting.inspect(observer, LOCK).waiters().size() == 1);

        LockLease read = lock.downgrade(write);
        assertTrue(everything.admit("prices", read.token()));
        read.close();
        LockLease next = queuedWriter.get(10, TimeUnit.SECONDS);

        assertTrue(writesOnly.admit("prices", next.token()), "the next writer is admitted by a guard fed write tokens only");
        assertTrue(read.token().isNewerThan(next.token()), "the read, granted first, has the higher token: "
                + read.token() + " then " + next.token());
        assertFalse(everything.admit("prices", next.token()), "which is why read tokens must not be fed to the guard");
        next.close();
    }

    @Test
    void theCuratorViewsReadUnderWriteIsReentrantAndReleasingTheWriteDowngrades() throws Exception {
        ReadWriteLock lock = rw();
        InterProcessLock writeView = lock.writeLock().asInterProcessLock();
        InterProcessLock readView = lock.readLock().asInterProcessLock();
        writeView.acquire();
        assertTrue(readView.acquire(1, TimeUnit.SECONDS), "a read under the same thread's write is granted at once");
        ReadWriteLock other = rw();
        Future<LockLease> queuedWriter = pool.submit(() -> other.writeLock().acquire(WAIT));
        writeView.release();
        LockTesting.assertPending(queuedWriter, "a writer while the downgraded reader holds");
        assertTrue(lock.readLock().heldByCurrentThread().orElseThrow().state() == LeaseState.ACQUIRED);
        readView.release();
        queuedWriter.get(10, TimeUnit.SECONDS).close();
    }

    @Test
    void aReadToWriteUpgradeIsRefusedWithAClearErrorInBothApis() throws Exception {
        ReadWriteLock lock = rw();
        try (LockLease read = lock.readLock().acquire(WAIT)) {
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> lock.writeLock().acquire(WAIT));
            assertTrue(e.getMessage().contains("upgrade") && e.getMessage().contains(read.token().toString()), e.getMessage());
            assertEquals(LeaseState.ACQUIRED, read.state());
        }
        InterProcessLock readView = lock.readLock().asInterProcessLock();
        readView.acquire();
        try {
            assertThrows(IllegalStateException.class, () -> lock.writeLock().asInterProcessLock().acquire());
        } finally {
            readView.release();
        }
        try (LockLease write = lock.writeLock().acquire(WAIT)) {
            assertEquals(LeaseState.ACQUIRED, write.state(), "after the read is closed the write is granted");
        }
    }

    @Test
    void downgradeRefusesWhatIsNotAHeldWriteLeaseOfThisLock() throws Exception {
        ReadWriteLock lock = rw();
        try (LockLease read = lock.readLock().acquire(WAIT)) {
            assertThrows(IllegalArgumentException.class, () -> lock.downgrade(read));
        }
        LockLease write = lock.writeLock().acquire(WAIT);
        write.close();
        assertThrows(io.coord.LockLostException.class, () -> lock.downgrade(write));
        assertEquals(List.of(), SERVER.newClient().curator().getChildren().forPath(LOCK.value()), "nothing left behind");
    }

    @Test
    void aWriterWhoseSessionExpiresLosesItsLeaseAndTheNextWriterHasAHigherToken() throws Exception {
        CoordClient doomed = SERVER.newClient();
        LockLease write = Locks.readWrite(doomed, LOCK).writeLock().acquire(WAIT);
        CoordClient observer = SERVER.newClient();
        ReadWriteLock readerLock = rw();
        Future<LockLease> reader = pool.submit(() -> readerLock.readLock().acquire(WAIT));
        LockTesting.await("the reader queued", Duration.ofSeconds(10), () -> LockTesting.inspect(observer, LOCK).waiters().size() == 1);
        ReadWriteLock writerLock = rw();
        Future<LockLease> writer = pool.submit(() -> writerLock.writeLock().acquire(WAIT));
        LockTesting.await("the writer queued", Duration.ofSeconds(10), () -> LockTesting.inspect(observer, LOCK).waiters().size() == 2);
        LockTesting.expire(doomed, SERVER);
        assertEquals(LeaseState.LOST, write.ended().get(10, TimeUnit.SECONDS));
        assertThrows(io.coord.LockLostException.class, write::checkValid);
        LockLease r = reader.get(10, TimeUnit.SECONDS);
        LockLease w = null;
        try {
            r.close();
            w = writer.get(10, TimeUnit.SECONDS);
            assertTrue(w.token().isNewerThan(write.token()), "write tokens keep growing after a loss");
        } finally {
            if (w != null) {
                w.close();
            }
        }
    }

    @Test
    void aTimedOutWriterLeavesNoNodeAndTheReaderIsUnaffected() throws Exception {
        CoordClient client = SERVER.newClient();
        try (LockLease read = Locks.readWrite(client, LOCK).readLock().acquire(WAIT)) {
            assertThrows(io.coord.CoordTimeoutException.class, () -> rw().writeLock().acquire(Duration.ofMillis(300)));
            assertEquals(List.of(read.node().name()), client.curator().getChildren().forPath(LOCK.value()));
            assertFalse(rw().writeLock().tryAcquire().isPresent());
        }
    }
}
