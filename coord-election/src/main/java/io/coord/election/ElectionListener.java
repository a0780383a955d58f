package io.coord.election;

/**
 * Told who leads an election, for observers ({@link Election#observe}); candidates need not
 * observe.
 *
 * <p>Contract: callbacks run on the executor given at registration, never on Curator's event
 * thread and never while Coord holds a lock; calls for one registration arrive one at a time, in
 * order. A listener that throws is logged and does not affect others. The first call reports the
 * state found at registration. Views only move forward: a leader with a lower epoch than one
 * already reported is never reported (a stale read after a reconnect is skipped). Changes may be
 * coalesced (ZooKeeper watches can miss intermediate states), but the current leader is always
 * reported once things settle.
 */
public interface ElectionListener {
    /**
     * A new leader (higher epoch than the last one reported), or the same leader now
     * {@linkplain LeaderInfo#acting() acting}.
     */
    default void onLeader(LeaderInfo leader) {
    }

    /** No candidate is left in the election. */
    default void onNoLeader() {
    }
}
