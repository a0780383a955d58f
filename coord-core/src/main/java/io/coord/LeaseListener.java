package io.coord;

/**
 * Told about one {@link Lease}'s state changes.
 *
 * <p>Contract: callbacks run on the executor given at registration, never on Curator's event
 * thread and never while Coord holds a lock; calls for one registration arrive one at a time, in
 * order. A listener that throws is logged and does not affect others. Every
 * {@link #onUncertain} is followed by {@link #onRestored} or by the final {@link #onLost} or
 * {@link #onReleased}; exactly one of those two final calls happens.
 */
public interface LeaseListener {
    /** Connection suspended or the process stalled: stop starting protected work. */
    default void onUncertain(Lease lease) {
    }

    /**
     * Back to ACQUIRED: one round trip after the connection came back (the same session
     * reconnected) or after the stall found our node still there, owned by this session.
     */
    default void onRestored(Lease lease) {
    }

    /** The lease is gone. Stop all protected work; writes fenced with its token will be rejected. */
    default void onLost(Lease lease, CoordException cause) {
    }

    /** The holder released the lease. */
    default void onReleased(Lease lease) {
    }
}
