package io.coord.barrier;

import io.coord.CoordPath;
import io.coord.Lease;
import io.coord.LeaseState;
import io.coord.internal.ForwardingLease;
import io.coord.internal.NodeLease;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.curator.framework.WatcherRemoveCuratorFramework;

/**
 * One member's place in one generation of a double barrier, from {@link DoubleBarrier#enter} until
 * {@link #leave} (or {@link #close()}). A {@link Lease} on the member's ephemeral seat node: its
 * token is the seat's czxid, and it goes LOST when the member's session ends, which is also how
 * the other members notice a crash.
 *
 * <p>{@link #close()} without {@link #leave} abandons the generation: the seat disappears without
 * a left marker, and the members waiting in {@code leave} get
 * {@link io.coord.BarrierBrokenException} naming this member. After {@link #leave} returns, the
 * seat is already released and {@code close()} does nothing.
 */
public final class BarrierSeat extends ForwardingLease {
    private final ZkDoubleBarrier barrier;
    private final long generation;
    private final long sequence;
    private final AtomicBoolean leaving = new AtomicBoolean();
    /** The root's version once READY was recorded: leaving is guarded by it; -1 if unknown. */
    private volatile int readyVersion = -1;
    private volatile WatcherRemoveCuratorFramework watches;
    /** Set once everyone has left: the seat reads RELEASED although its node is removed a moment later. */
    private volatile boolean released;

    BarrierSeat(ZkDoubleBarrier barrier, NodeLease lease, long generation, long sequence) {
        super(lease);
        this.barrier = barrier;
        this.generation = generation;
        this.sequence = sequence;
    }

    /** The barrier's name. */
    public String barrier() {
        return barrier.name();
    }

    /** The generation (round) this seat belongs to: 1, 2, ... */
    public long generation() {
        return generation;
    }

    /** This member's arrival order in its generation (0 = first). */
    public long sequence() {
        return sequence;
    }

    public String memberId() {
        return barrier.memberId();
    }

    /**
     * Leaves the generation and waits until all parties have left, at most {@code timeout}.
     * <ul>
     *   <li>Connection SUSPENDED: waits for the reconnect, then reads the state again.
     *   <li>Seat LOST before leaving (the session ended): the generation breaks, naming this member.
     *   <li>Timeout or interrupt: the generation breaks for everyone still waiting, unless all had
     *       left already, in which case it returns (interrupt flag set).
     * </ul>
     *
     * @throws io.coord.BarrierBrokenException the generation broke (a member failed, timed out or
     *                                         was interrupted)
     * @throws IllegalStateException           {@code leave} was already called on this seat
     */
    public void leave(Duration timeout) throws InterruptedException {
        if (!leaving.compareAndSet(false, true)) {
            throw new IllegalStateException("seat " + this + " has already left (or is leaving)");
        }
        barrier.leave(this, timeout);
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

    /**
     * Releases the seat (deletes its node). Idempotent. Before {@link #leave}, this abandons the
     * generation. After {@link #leave} returned, it does nothing: the seat is already released, and
     * its node is deleted in the background a moment later (not at once, so that the delete does
     * not hold up the other members' reads of the outcome).
     */
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
