package io.coord.election;

import io.coord.FencingToken;
import io.coord.Lease;

/**
 * Being the leader of one election: a {@link Lease} on this candidate's node, handed out only once
 * the candidate is the lowest, the previous leader's node is gone and the handover grace has
 * passed. Everything {@link Lease} says holds; in short:
 * <ul>
 *   <li>{@link #epoch()} is the czxid of this candidate's node, strictly greater than the epoch of
 *       every earlier leader of any election on this ensemble; fence external writes with it;
 *   <li>connection SUSPENDED (or a stalled process) → UNCERTAIN at once: {@link #checkValid()}
 *       throws, start nothing new; back to ACQUIRED only if the same session reconnects and the
 *       node is still there (one round trip);
 *   <li>session expired or node deleted → LOST (final); guarded writes fail with
 *       {@link io.coord.LockLostException};
 *   <li>{@link #resign()} (= {@link #close()}) → RELEASED: deletes exactly this node, so the next
 *       candidate is woken at once.
 * </ul>
 * Interrupts: this handle never blocks except in guarded writes, which restore the interrupt flag.
 */
public interface Leadership extends Lease {
    /** The epoch of this leadership: the same value as {@link #token()}. */
    default FencingToken epoch() {
        return token();
    }

    /** The name of the election. */
    String election();

    /** This leader as observers see it. {@code since} is this process's clock when it started acting. */
    LeaderInfo info();

    /**
     * Gives leadership up: the node is deleted and the next candidate takes over. Idempotent;
     * after LOST it only records the end. The same as {@link #close()}.
     */
    default void resign() {
        close();
    }
}
