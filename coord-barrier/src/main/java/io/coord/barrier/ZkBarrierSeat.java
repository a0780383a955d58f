package io.coord.barrier;

import io.coord.CoordPath;
import io.coord.LeaseState;
import io.coord.internal.ForwardingLease;
import io.coord.internal.NodeLease;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.curator.framework.WatcherRemoveCuratorFramework;

/**
 * The {@link BarrierSeat} of {@link ZkDoubleBarrier}: the {@link NodeLease} of the member's seat
 * node, plus what leaving needs (the READY version, the watches set while entering) and the
 * "everyone has left" mark that makes it read RELEASED before its node is tidied away.
 */
final class ZkBarrierSeat extends ForwardingLease implements BarrierSeat {
    private final ZkDoubleBarrier barrier;
    private final long generation;
    private final long sequence;
    private final AtomicBoolean leaving = new AtomicBoolean();
    /** The root's version once READY was recorded: leaving is guarded by it; -1 if unknown. */
    private volatile int readyVersion = -1;
    private volatile WatcherRemoveCuratorFramework watches;
    /** Set once everyone has left: the seat reads RELEASED although its node is removed a moment later. */
    private volatile boolean released;

    ZkBarrierSeat(ZkDoubleBarrier barrier, NodeLease lease, long generation, long sequence) {
        super(lease);
        this.barrier = barrier;
        this.generation = generation;
        this.sequence = sequence;
    }

    @Override
    public String barrier() {
        return barrier.name();
    }

    @Override
    public long generation() {
        return generation;
    }

    @Override
    public long sequence() {
        return sequence;
    }

    @Override
    public String memberId() {
        return barrier.memberId();
    }

    @Override
    public void leave(Duration timeout) throws InterruptedException {
        if (!leaving.compareAndSet(false, true)) {
            throw new IllegalStateException("seat " + this + " has already left (or is leaving)");
        }
        barrier.leave(this, timeout);
    }

    @Override
    public java.util.concurrent.CompletableFuture<Void> leaveAsync(Duration timeout, java.util.concurrent.Executor executor) {
        ZkDoubleBarrier.requireExecutor(executor);
        ZkDoubleBarrier.requirePositive(timeout, "leave"); // before the seat is marked leaving: a bad call changes nothing
        if (!leaving.compareAndSet(false, true)) {
            throw new IllegalStateException("seat " + this + " has already left (or is leaving)");
        }
        return barrier.leaveAsync(this, timeout, executor);
    }

    NodeLease lease() {
        return lease;
    }

    int readyVersion() {
        return readyVersion;
    }

    void readyVersion(int version) {
        readyVersion = version;
    }

    /** Everyone has left: from now on the seat is RELEASED (its node goes when {@link #close()} runs). */
    void released() {
        released = true;
        barrier.forget(this);
    }

    /** Watches set while entering, removed when the seat closes. */
    void removeOnClose(WatcherRemoveCuratorFramework entered) {
        watches = entered;
    }

    @Override
    public CoordPath node() {
        return lease.node();
    }

    /** RELEASED once {@link #leave} has returned (the node itself is deleted in the background right after). */
    @Override
    public LeaseState state() {
        return released ? LeaseState.RELEASED : lease.state();
    }

    @Override
    public void checkValid() {
        if (released) {
            throw new io.coord.LockLostException("seat " + this + " was released: its generation is done");
        }
        lease.checkValid();
    }

    /** After {@link #leave} returned: nothing, the background tidy-up deletes the node (see {@link BarrierSeat#close()}). */
    @Override
    public void close() {
        if (released) {
            return;
        }
        closeNow();
    }

    /** Deletes the seat's node and removes the watches set while entering. */
    void closeNow() {
        lease.close();
        barrier.forget(this);
        WatcherRemoveCuratorFramework w = watches;
        if (w != null) {
            watches = null;
            w.removeWatchers();
        }
    }

    @Override
    public String toString() {
        return "BarrierSeat[" + barrier.name() + " generation " + generation + " #" + sequence + " " + barrier.memberId()
                + " " + lease.state() + "]";
    }
}
