package io.coord.lock;

import io.coord.CoordPath;
import io.coord.LockLostException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.Set;
import org.apache.curator.framework.recipes.locks.InterProcessLock;

/**
 * {@code __READ__} and {@code __WRIT__} nodes in one queue, named as Curator's
 * InterProcessReadWriteLock names them so that both libraries on one path exclude each other. A
 * read taken under the same thread's write, and a downgrade, make an anchored read (a
 * non-sequential {@code __READ__<write sequence>}, like Curator's read under its own write) that
 * queues at the write's place for Coord and Curator waiters alike.
 */
final class ZkReadWriteLock implements ReadWriteLock {
    private static final Set<WaitRule.Type> FAMILY = Set.of(WaitRule.Type.READ, WaitRule.Type.WRITE);

    private final ZkLockQueue queue;
    private final OpenHolds open = new OpenHolds();
    private final Side read;
    private final Side write;
    private final CuratorReadWriteLock curatorView;

    ZkReadWriteLock(ZkLockQueue queue) {
        this.queue = queue;
        this.read = new Side(WaitRule.Type.READ);
        this.write = new Side(WaitRule.Type.WRITE);
        this.curatorView = new CuratorHalves(read.view, write.view);
    }

    @Override
    public CoordPath path() {
        return queue.path();
    }

    @Override
    public DistributedLock readLock() {
        return read;
    }

    @Override
    public DistributedLock writeLock() {
        return write;
    }

    @Override
    public LockLease downgrade(LockLease writeLease) throws InterruptedException {
        if (!(writeLease instanceof ZkLockLease lease) || lease.holding().type != WaitRule.Type.WRITE
                || !lease.lockPath().equals(queue.path())) {
            throw new IllegalArgumentException("downgrade needs a write lease of " + queue.path() + ", got " + writeLease);
        }
        writeLease.checkValid();
        LockLease readLease = anchoredRead(lease.holding());
        writeLease.close();
        return readLease;
    }

    @Override
    public CuratorReadWriteLock asInterProcessReadWriteLock() {
        return curatorView;
    }

    /** The halves' own Curator views, so a hold taken through either reaches the same per-thread count. */
    private record CuratorHalves(CuratorLock readLock, CuratorLock writeLock) implements CuratorReadWriteLock {
        @Override
        public String toString() {
            return "InterProcessReadWriteLock[" + readLock + ", " + writeLock + "]";
        }
    }

    private LockLease anchoredRead(Holding writeHolding) throws InterruptedException {
        writeHolding.lease.checkValid();
        ZkLockQueue.Request request = ZkLockQueue.Request.anchoredRead(writeHolding.sequence(), FAMILY);
        // Nothing is ahead of a held write, so the anchored read is granted at once or not at all.
        Holding holding = queue.acquire(request, 0).orElseThrow(() -> new LockLostException("a read of " + queue.path()
                + " under write lease " + writeHolding.lease.token() + " was not granted: the write lease is no longer held"));
        open.add(holding);
        return new ZkLockLease(holding);
    }

    private final class Side implements DistributedLock {
        private final WaitRule.Type type;
        private final ThreadView view;
        private final JucView jucView;

        Side(WaitRule.Type type) {
            this.type = type;
            // Curator's half lists the nodes whose full path contains its lock name (its
            // InternalInterProcessMutex filters the mutex's list so), so the halves answer as Curator's on any path.
            this.view = new ThreadView(queue, type.label() + " lock", this::acquireNanos, node -> node.contains(type.prefix));
            this.jucView = new JucView(view);
        }

        @Override
        public CoordPath path() {
            return queue.path();
        }

        @Override
        public LockLease acquire(Duration timeout) throws InterruptedException {
            return tryAcquire(timeout).orElseThrow(() -> ZkMutex.timedOut(queue.path(), type.label() + " lock", timeout,
                    open.ofCurrentThread(type)));
        }

        @Override
        public Optional<LockLease> tryAcquire(Duration timeout) throws InterruptedException {
            return acquireNanos(Locks.nanos(timeout));
        }

        @Override
        public Optional<LockLease> tryAcquire() throws InterruptedException {
            return acquireNanos(0);
        }

        @Override
        public CompletableFuture<LockLease> acquireAsync(Duration timeout, Executor executor) {
            return AsyncAcquire.start(queue, ZkLockQueue.Request.of(type, FAMILY), Locks.nanos(timeout), executor);
        }

        private Optional<LockLease> acquireNanos(long timeoutNanos) throws InterruptedException {
            Optional<Holding> ownWrite = open.ofCurrentThread(WaitRule.Type.WRITE);
            if (type == WaitRule.Type.READ && ownWrite.isPresent()) {
                return Optional.of(anchoredRead(ownWrite.get()));
            }
            if (type == WaitRule.Type.WRITE && ownWrite.isEmpty()) {
                Optional<Holding> ownRead = open.ofCurrentThread(WaitRule.Type.READ);
                if (ownRead.isPresent()) {
                    throw new IllegalStateException("read-to-write upgrade refused on " + queue.path() + ": this thread holds read"
                            + " lease " + ownRead.get().lease.token() + ", and a reader waiting for the write lock waits for"
                            + " itself (two such readers deadlock). Close the read lease, then acquire the write lock and"
                            + " re-check what you read");
                }
            }
            return queue.acquire(ZkLockQueue.Request.of(type, FAMILY), timeoutNanos).map(h -> {
                open.add(h);
                return new ZkLockLease(h);
            });
        }

        @Override
        public CuratorLock asInterProcessLock() {
            return view;
        }

        @Override
        public JucLock asLock() {
            return jucView;
        }

        @Override
        public Optional<LockLease> heldByCurrentThread() {
            return view.heldByCurrentThread();
        }

        @Override
        public String toString() {
            return "DistributedLock[" + type.label() + " " + queue.path() + "]";
        }
    }

    @Override
    public String toString() {
        return "ReadWriteLock[" + queue.path() + "]";
    }
}
