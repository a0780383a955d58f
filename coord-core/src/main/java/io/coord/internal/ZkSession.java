package io.coord.internal;

import io.coord.CoordSession;
import io.coord.Registration;
import io.coord.SessionListener;
import io.coord.SessionState;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One ZooKeeper session id. Moved only by {@link SessionTracker}, along the graph drawn on
 * {@link SessionState}; listeners are told on their executors.
 */
public final class ZkSession implements CoordSession {
    private final long id;
    private final AtomicReference<SessionState> state = new AtomicReference<>(SessionState.CONNECTED);
    private final CompletableFuture<SessionState> ended = new CompletableFuture<>();
    private final Listeners<SessionListener> listeners = new Listeners<>();
    /**
     * Makes "add a listener, or hand a late one the final event" and "move to a terminal state and
     * tell every listener" mutually exclusive, so each listener gets onEnded exactly once. Held
     * only while submitting to executors, never while a callback runs.
     */
    private final Object endLock = new Object();

    /** Where {@link #ended()} completes when the session ends on an event thread (see {@link EventThreads}). */
    private final Executor endedExecutor;

    ZkSession(long id) {
        this(id, Runnable::run);
    }

    ZkSession(long id, Executor endedExecutor) {
        this.id = id;
        this.endedExecutor = endedExecutor;
    }

    @Override
    public long id() {
        return id;
    }

    @Override
    public SessionState state() {
        return state.get();
    }

    @Override
    public CompletableFuture<SessionState> ended() {
        return ended.copy();
    }

    @Override
    public Registration addListener(SessionListener listener, Executor executor) {
        synchronized (endLock) {
            SessionState now = state.get();
            // A listener added after the end still gets its one onEnded, so nobody waits forever.
            return now.isTerminal()
                    ? listeners.addThen(listener, executor, l -> l.onEnded(this, now))
                    : listeners.add(listener, executor);
        }
    }

    /** Legal moves of the session graph. */
    static boolean isLegal(SessionState from, SessionState to) {
        return switch (from) {
            case CONNECTED -> to == SessionState.SUSPENDED || to.isTerminal();
            case SUSPENDED -> to == SessionState.CONNECTED || to.isTerminal();
            case EXPIRED, CLOSED -> false;
        };
    }

    /** Moves to {@code to} if legal from the current state; returns whether it moved. */
    boolean moveTo(SessionState to) {
        synchronized (endLock) {
            return move(to);
        }
    }

    private boolean move(SessionState to) {
        while (true) {
            SessionState from = state.get();
            if (from == to || !isLegal(from, to)) {
                return false;
            }
            if (state.compareAndSet(from, to)) {
                switch (to) {
                    case SUSPENDED -> listeners.forEach(l -> l.onSuspended(this));
                    case CONNECTED -> listeners.forEach(l -> l.onReconnected(this));
                    case EXPIRED, CLOSED -> {
                        listeners.forEach(l -> l.onEnded(this, to));
                        completeEnded(to);
                    }
                }
                return true;
            }
        }
    }

    /**
     * The end comes on Curator's connection-state thread (or the closing caller's): dependents of
     * {@link #ended()} are user code and must not run on that event thread, where they would hold
     * up every later connection event of the client.
     */
    private void completeEnded(SessionState finalState) {
        if (!EventThreads.current()) {
            ended.complete(finalState);
            return;
        }
        try {
            endedExecutor.execute(() -> ended.complete(finalState));
        } catch (java.util.concurrent.RejectedExecutionException closed) {
            ended.complete(finalState);
        }
    }

    @Override
    public String toString() {
        return "CoordSession[" + idHex() + " " + state.get() + "]";
    }
}
