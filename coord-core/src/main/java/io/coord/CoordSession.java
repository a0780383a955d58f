package io.coord;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * The lifetime object for one ZooKeeper session id (compare etcd's {@code concurrency.Session}).
 * Every ephemeral thing Coord makes (a lock lease, a membership, a candidacy, a queue claim, a
 * barrier seat) is bound to one session and ends with it. When ZooKeeper gives the client a new
 * session id, this object ends ({@link SessionState#EXPIRED}) and
 * {@link CoordClient#session()} returns a new one; nothing carries over silently.
 *
 * <p>States and moves are drawn on {@link SessionState}.
 */
public interface CoordSession {
    /** ZooKeeper's session id. */
    long id();

    /** The id as ZooKeeper tools print it ({@code 0x...}). */
    default String idHex() {
        return "0x" + Long.toHexString(id());
    }

    SessionState state();

    /** Completes with the final state ({@code EXPIRED} or {@code CLOSED}) when the session ends. */
    CompletableFuture<SessionState> ended();

    /** Registers a listener, called on {@code executor}. See {@link SessionListener} for the contract. */
    Registration addListener(SessionListener listener, Executor executor);

    /** Throws {@link SessionExpiredException} if this session has ended. */
    default void checkAlive() {
        SessionState s = state();
        if (s.isTerminal()) {
            throw new SessionExpiredException("session " + idHex() + " has ended (" + s + ")");
        }
    }
}
