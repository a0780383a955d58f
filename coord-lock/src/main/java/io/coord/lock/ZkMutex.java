package io.coord.lock;

import io.coord.CoordPath;
import io.coord.CoordTimeoutException;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.apache.curator.framework.recipes.locks.InterProcessLock;

/** The fair reentrant lock: {@code lock-} nodes, granted first in line. */
final class ZkMutex implements DistributedLock {
    private static final ZkLockQueue.Request REQUEST = ZkLockQueue.Request.of(WaitRule.Type.LOCK, Set.of(WaitRule.Type.LOCK));

    private final ZkLockQueue queue;
    private final OpenHolds open = new OpenHolds();
    private final ThreadView view;
    private final JucView jucView;

    ZkMutex(ZkLockQueue queue) {
        this.queue = queue;
        this.view = new ThreadView(queue, "lock", this::acquireNanos, node -> true);
        this.jucView = new JucView(view);
    }

    @Override
    public CoordPath path() {
        return queue.path();
    }

    @Override
    public LockLease acquire(Duration timeout) throws InterruptedException {
        return tryAcquire(timeout).orElseThrow(() -> timedOut(queue.path(), "lock", timeout, open.ofCurrentThread(WaitRule.Type.LOCK)));
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
        return AsyncAcquire.start(queue, REQUEST, Locks.nanos(timeout), executor);
    }

    private Optional<LockLease> acquireNanos(long timeoutNanos) throws InterruptedException {
        return queue.acquire(REQUEST, timeoutNanos).map(h -> {
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

    /** The timeout error, with a hint when the waiting thread itself held the lock (it waited for itself). */
    static CoordTimeoutException timedOut(CoordPath path, String what, Duration timeout, Optional<Holding> ownHold) {
        return new CoordTimeoutException(what + " " + path + " was not granted within " + timeout + "; our node was removed"
                + ownHold.map(h -> ". Note: this thread already holds lease " + h.lease.token() + " of it and a second acquire"
                        + " waits behind that lease; to nest, use LockLease.reenter()").orElse(""));
    }

    @Override
    public String toString() {
        return "DistributedLock[" + queue.path() + "]";
    }
}
