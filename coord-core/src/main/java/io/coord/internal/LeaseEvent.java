package io.coord.internal;

/** What can happen to a lease; {@link LeaseRule} says what each does in each state. */
public enum LeaseEvent {
    /** The connection was suspended, or the process stalled: the lease may be gone. */
    SUSPECT,
    /** A round trip on the same session found our node: the lease is certainly held. */
    CONFIRM,
    /** The session expired or was replaced, or our node is gone. */
    LOSE,
    /** The holder closed the lease. */
    RELEASE
}
