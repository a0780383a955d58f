package io.coord.lock;

import io.coord.LeaseState;
import io.coord.internal.NodeLease;
import io.coord.internal.SequentialNodes;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One granted node and the handles on it: the {@link NodeLease} (token, state machine, loss
 * signal, exact release), how many {@link ZkLockLease} handles are open, and who asked. The node
 * is released when the last handle closes.
 */
final class Holding {
    final WaitRule.Type type;
    /** What the lease belongs to: the parent of its node, or a semaphore's path above {@code leases/}. */
    final io.coord.CoordPath lockPath;
    final NodeLease lease;
    final HolderInfo info;
    final Instant heldSince;
    final Thread acquiredBy;
    final LockMetrics metrics;
    private final long grantedNanos = System.nanoTime();
    private final AtomicInteger handles = new AtomicInteger(1);
    private final AtomicBoolean stamped = new AtomicBoolean();
    private volatile Runnable onEnd;
    private final AtomicBoolean endRun = new AtomicBoolean();

    Holding(WaitRule.Type type, io.coord.CoordPath lockPath, NodeLease lease, HolderInfo info, Instant heldSince, LockMetrics metrics,
            HeldSinceStamper stamper) {
        this.type = type;
        this.lockPath = lockPath;
        this.lease = lease;
        this.info = info;
        this.heldSince = heldSince;
        
        this.metrics = metrics;
        this.acquiredBy = Thread.currentThread();
        lease.ended().whenComplete((state, error) -> {
            stamper.untrack(this);
            metrics.held(type, System.nanoTime() - grantedNanos);
            if (state == LeaseState.LOST) {
                metrics.lost(type);
            }
            runEnd();
        });
    }

    /** Sets what runs once when the lease ends (released or lost); runs at once if it already has. */
    void onEnd(Runnable hook) {
        this.onEnd = hook;
        if (lease.state().isTerminal()) {
            runEnd();
        }
    }

    private void runEnd() {
        Runnable hook = onEnd;
        if (hook != null && endRun.compareAndSet(false, true)) {
            hook.run();
        }
    }

    /** The sequence of this node (for anchoring a read to a write). */
    long sequence() {
        return SequentialNodes.sequence(lease.node().name());
    }

    boolean isOpen() {
        return handles.get() > 0 && !lease.state().isTerminal();
    }

    /** One more handle, unless every handle is already closed. */
    boolean retain() {
        while (true) {
            int n = handles.get();
            if (n == 0) {
                return false;
            }
            if (handles.compareAndSet(n, n + 1)) {
                return true;
            }
        }
    }

    /** A handle closed; the last one releases the node. */
    void releaseOne() {
        if (handles.decrementAndGet() == 0) {
            lease.close();
        }
    }

    long grantedNanos() {
        return grantedNanos;
    }

    /** Claims the one held-since stamp; false if it was already written (or claimed). */
    boolean claimStamp() {
        return stamped.compareAndSet(false, true);
    }
}
