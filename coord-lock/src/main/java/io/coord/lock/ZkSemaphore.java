package io.coord.lock;

import io.coord.CoordPath;
import io.coord.CoordTimeoutException;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;

/** Up to {@code permits} {@code lease-} nodes hold at once, granted in request order. */
final class ZkSemaphore implements Semaphore {
    private final ZkLockQueue queue;
    private final ZkLockQueue.Request request;
    private final int permits;

    ZkSemaphore(ZkLockQueue queue, int permits) {
        if (permits < 1) {
            throw new IllegalArgumentException("a semaphore needs at least 1 permit, got " + permits);
        }
        this.queue = queue;
        this.permits = permits;
        this.request = new ZkLockQueue.Request(WaitRule.Type.LEASE, WaitRule.Type.LEASE.prefix, Set.of(WaitRule.Type.LEASE),
                permits, permits, -1);
    }

    @Override
    public CoordPath path() {
        return queue.path();
    }

    @Override
    public int permits() {
        return permits;
    }

    @Override
    public LockLease acquire(Duration timeout) throws InterruptedException {
        return tryAcquire(timeout).orElseThrow(() -> new CoordTimeoutException("no permit of semaphore " + queue.path()
                + " (" + permits + " permits) was granted within " + timeout + "; our node was removed"));
    }

    @Override
    public Optional<LockLease> tryAcquire(Duration timeout) throws InterruptedException {
        return queue.acquire(request, Locks.nanos(timeout)).map(ZkLockLease::new);
    }

    @Override
    public Optional<LockLease> tryAcquire() throws InterruptedException {
        return queue.acquire(request, 0).map(ZkLockLease::new);
    }

    @Override
    public String toString() {
        return "Semaphore[" + queue.path() + ", " + permits + " permits]";
    }
}
