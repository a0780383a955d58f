package io.coord.lock;

import io.coord.CoordPath;
import java.time.Duration;
import java.util.Optional;

/**
 * Up to {@link #permits()} leases at once, granted in request order. Each lease is its own node
 * with its own fencing token and loss signal. A lease never leaks: it ends with its holder's
 * session, and a waiter that gives up removes its node. Create one with {@link Locks#semaphore};
 * every process using the same path must use the same number of permits.
 */
public interface Semaphore {
    CoordPath path();

    int permits();

    /**
     * Waits at most {@code timeout} for a permit.
     *
     * @throws io.coord.CoordTimeoutException if none was granted in time (our node is removed)
     * @throws InterruptedException           if interrupted while waiting (our node is removed)
     */
    LockLease acquire(Duration timeout) throws InterruptedException;

    Optional<LockLease> tryAcquire(Duration timeout) throws InterruptedException;

    Optional<LockLease> tryAcquire() throws InterruptedException;
}
