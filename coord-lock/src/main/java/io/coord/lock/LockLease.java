package io.coord.lock;

import io.coord.CoordPath;
import io.coord.Lease;
import java.time.Instant;

/**
 * A held lock, read lock, write lock or semaphore permit: one ephemeral node of one session, with
 * its fencing token and loss signal (the shared {@link Lease} contract).
 *
 * <pre>{@code
 * try (LockLease lease = lock.acquire(Duration.ofSeconds(5))) {
 *     guard.enforce("account-42", lease.token());     // a store that keeps the highest token
 *     lease.guardedSetData(balancePath, newBalance);   // a ZooKeeper write that needs our node
 * }
 * }</pre>
 *
 * <p>The lease is owned by this handle, not by a thread: any thread, or an async callback, may
 * close it. {@link #close()} is idempotent and deletes only this lease's own node, once the last
 * {@linkplain #reenter() nested} handle is closed.
 *
 * <p>SUSPENDED connection or a stalled process: the lease becomes UNCERTAIN ({@link #checkValid()}
 * throws, guarded writes are refused) until one round trip on the same session finds the node
 * again. Session expiry, a new session, or the node deleted by someone else: LOST, for good;
 * acquire again to get a new lease with a higher token.
 */
public interface LockLease extends Lease {
    /**
     * The lock this lease belongs to: the parent of {@link #node()}, or for a semaphore permit the
     * semaphore's path (its lease nodes are under {@code leases/} there).
     */
    CoordPath lockPath();

    /** When the lock was granted to this lease (the options' clock), not when it was asked for. */
    Instant heldSince();

    /**
     * Re-enters: a second handle on the same node, same token, same state. The lock stays held
     * until every handle is closed. Reentrancy goes through the handle because the handle, not a
     * thread, owns the lease; a second {@code acquire} queues behind the first (and waits for it).
     *
     * @throws io.coord.LockLostException if this handle is closed or the lease is not ACQUIRED
     */
    LockLease reenter();
}
