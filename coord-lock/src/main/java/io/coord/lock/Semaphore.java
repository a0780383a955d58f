package io.coord.lock;

import io.coord.CoordPath;
import java.time.Duration;
import java.util.Optional;

/**
 * Up to {@link #permits()} leases at once, granted in request order. Each lease is its own node
 * with its own fencing token and loss signal. A lease never leaks: it ends with its holder's
 * session, and a waiter that gives up removes its nodes. The protocol and layout are Curator
 * InterProcessSemaphoreV2's, so both libraries' clients share one semaphore (a client is admitted
 * through the mutex at {@code path/locks}, creates {@code path/leases/_c_<uuid>-lease-<seq>} and
 * holds once {@code leases/} has at most {@code permits} children; "request order" is the order
 * of that mutex). Create one with {@link Locks#semaphore};
 * every process using the same path must use the same number of permits: the first acquire
 * records its count in the path's node, and an acquire with another count is refused with
 * {@link IllegalArgumentException} naming the path and both counts, before it takes a permit.
 */
public interface Semaphore {
    CoordPath path();

    int permits();

    /**
     * Waits at most {@code timeout} for a permit; keeps waiting while SUSPENDED. Each lease
     * returned is ACQUIRED and has its own token and loss signal.
     *
     * @throws io.coord.CoordTimeoutException if none was granted in time (our nodes are removed)
     * @throws InterruptedException           if interrupted while waiting (our nodes are removed)
     * @throws io.coord.SessionExpiredException if the session ended while waiting
     * @throws IllegalArgumentException         if the path records another permit count (nothing taken)
     * @throws io.coord.ForeignNodesException   if the path, {@code leases/} or {@code locks/} holds a
     *                                          node that is not the semaphore's (nothing taken)
     */
    LockLease acquire(Duration timeout) throws InterruptedException;

    /** Like {@link #acquire} (same rules) but no permit in time is an empty result. */
    Optional<LockLease> tryAcquire(Duration timeout) throws InterruptedException;

    /**
     * A permit only if one is free right now and no other client is being admitted at this
     * moment (the gate, {@code locks/}, is free); never waits.
     */
    Optional<LockLease> tryAcquire() throws InterruptedException;

    /**
     * A view with the shape of Curator's {@code InterProcessSemaphoreV2} ({@code acquire},
     * {@code acquire(qty)}, timed forms returning {@code null}, {@code returnLease}), whose leases
     * are Curator {@link org.apache.curator.framework.recipes.locks.Lease}s that also carry their
     * {@link LockLease}. The same object every call.
     */
    CuratorSemaphore asCuratorSemaphore();
}
