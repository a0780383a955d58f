package io.coord.internal;

import io.coord.CoordSession;
import io.coord.Registration;
import io.coord.SessionListener;
import io.coord.SessionState;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One ZooKeeper session id. Moved only by {@link SessionTracker}, along {@link SessionRule}'s table
 * (the graph drawn on {@link SessionState}); listeners are told on their executors, in the order of
 * the moves, and never while this session or its tracker holds a lock.
 */
public final class ZkSession implements CoordSession {
    private final long id;
    private final AtomicReference<SessionState> state = new AtomicReference<>(SessionState.CONNECTED);
    private final CompletableFuture<SessionState> ended = new CompletableFuture<>();
    private final Listeners<SessionListener> listeners = new Listeners<>();
    /** Moves made and not yet told, in the order they were made (see {@link #queue}). */
    private final Queue<SessionState> toAnnounce = new ConcurrentLinkedQueue<>();
    /** Makes "move and queue the move" one step, so the queue's order is the order of the moves. */
    private final Object moveLock = new Object();
    private final AtomicBoolean announcing = new AtomicBoolean();

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
        // Added first, then asked: a listener added after the end still gets its one onEnded, so
        // nobody waits forever; one added while the end is being told may be handed it twice (by the
        // announcement and by this replay), and FinalOnce lets the first through.
        return listeners.addThenAsk(new FinalOnce(listener), executor, () -> {
            SessionState now = state.get();
            return now.isTerminal() ? l -> l.onEnded(this, now) : null;
        });
    }

    /** Applies {@code event} and tells listeners; returns whether the state changed. Callers hold no lock. */
    boolean apply(SessionEvent event) {
        boolean moved = queue(event);
        announce();
        return moved;
    }

    /**
     * Applies {@code event} and queues the move for {@link #announce}, which a caller holding a lock
     * of its own (the tracker) calls once it let go. Returns whether the state changed.
     */
    boolean queue(SessionEvent event) {
        synchronized (moveLock) {
            while (true) {
                SessionState from = state.get();
                Optional<SessionState> to = SessionRule.next(from, event);
                if (to.isEmpty()) {
                    return false;
                }
                if (state.compareAndSet(from, to.get())) {
                    toAnnounce.add(to.get());
                    return true;
                }
            }
        }
    }

    /**
     * Tells listeners of every queued move, in order, one thread at a time: a move made meanwhile
     * (by another thread, or by a listener on a direct executor calling back in) is told by the
     * thread already announcing, after the one it is telling.
     */
    void announce() {
        while (!toAnnounce.isEmpty() && announcing.compareAndSet(false, true)) {
            try {
                SessionState to;
                while ((to = toAnnounce.poll()) != null) {
                    tell(to);
                }
            } finally {
                announcing.set(false);
            }
        }
    }

    private void tell(SessionState to) {
        switch (to) {
            case SUSPENDED -> listeners.forEach(l -> l.onSuspended(this));
            case CONNECTED -> listeners.forEach(l -> l.onReconnected(this));
            case EXPIRED, CLOSED -> {
                listeners.forEach(l -> l.onEnded(this, to));
                completeEnded(to);
            }
        }
    }

    /**
     * A listener that hears onEnded at most once, and nothing after it: a late registration can
     * race the end itself, and both may hand it the final call; the first one through its
     * sequential executor wins.
     */
    private static final class FinalOnce implements SessionListener {
        private final SessionListener delegate;
        private final AtomicBoolean ended = new AtomicBoolean();

        FinalOnce(SessionListener delegate) {
            this.delegate = delegate;
        }

        @Override
        public void onSuspended(CoordSession session) {
            if (!ended.get()) {
                delegate.onSuspended(session);
            }
        }

        @Override
        public void onReconnected(CoordSession session) {
            if (!ended.get()) {
                delegate.onReconnected(session);
            }
        }

        @Override
        public void onEnded(CoordSession session, SessionState finalState) {
            if (ended.compareAndSet(false, true)) {
                delegate.onEnded(session, finalState);
            }
        }

        @Override
        public String toString() {
            return delegate.toString();
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
