package io.coord;

/**
 * Told about one {@link CoordSession}'s changes.
 *
 * <p>Contract: callbacks run on the executor given at registration, never on Curator's event
 * thread and never while Coord holds a lock; calls for one registration are delivered one at a
 * time, in order. A listener that throws is logged and does not affect other listeners. Events
 * come in pairs: every {@link #onSuspended} is followed by {@link #onReconnected} or
 * {@link #onEnded}. {@link #onEnded} is the last call, exactly once.
 */
public interface SessionListener {
    /** The connection dropped; the session may still be alive. Stop starting protected work. */
    default void onSuspended(CoordSession session) {
    }

    /** The same session id is connected again. */
    default void onReconnected(CoordSession session) {
    }

    /** The session is over ({@link SessionState#EXPIRED} or {@link SessionState#CLOSED}). */
    default void onEnded(CoordSession session, SessionState finalState) {
    }
}
