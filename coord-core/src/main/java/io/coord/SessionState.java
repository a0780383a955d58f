package io.coord;

/**
 * The states of one ZooKeeper session as a {@link CoordSession} sees it.
 *
 * <pre>
 *   CONNECTED ──connection SUSPENDED──▶ SUSPENDED ──RECONNECTED, same session id──▶ CONNECTED
 *       │                                  │
 *       │                                  └──LOST, or RECONNECTED with a new id──▶ EXPIRED (terminal)
 *       └──────────────LOST────────────────────────────────────────────────────────▶ EXPIRED (terminal)
 *   any non-terminal ──client closed──▶ CLOSED (terminal)
 * </pre>
 *
 * A reconnect with a different session id never revives this object: the client makes a new
 * {@link CoordSession} for the new id, and whatever was bound to the old one is gone.
 */
public enum SessionState {
    CONNECTED,
    SUSPENDED,
    /** Terminal: the server (or Curator, after the session timeout without contact) ended the session. */
    EXPIRED,
    /** Terminal: this client closed the session. */
    CLOSED;

    public boolean isTerminal() {
        return this == EXPIRED || this == CLOSED;
    }
}
