package io.coord;

/**
 * The state of a lease: a lock, a leadership, a queue claim or a barrier seat.
 *
 * <pre>
 * ACQUIRED ──connection SUSPENDED / process stalled──▶ UNCERTAIN
 * UNCERTAIN ──same session, our node still exists (one round trip)──▶ ACQUIRED
 * ACQUIRED | UNCERTAIN ──session expired / new session / our node gone──▶ LOST      (terminal)
 * ACQUIRED | UNCERTAIN ──close()──▶ RELEASED                                          (terminal)
 * </pre>
 *
 * Only {@code ACQUIRED} allows protected work: in {@code UNCERTAIN} the lease may come back, but
 * nothing new may start ({@link Lease#checkValid()} throws).
 */
public enum LeaseState {
    ACQUIRED,
    UNCERTAIN,
    /** Terminal: the lease is gone; acquire again to get a new one (with a new token). */
    LOST,
    /** Terminal: released by its holder. */
    RELEASED;

    public boolean isTerminal() {
        return this == LOST || this == RELEASED;
    }
}
