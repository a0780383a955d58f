package io.coord.membership;

import io.coord.CoordException;
import io.coord.CoordPath;
import io.coord.CoordSession;
import io.coord.Registration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * This process's place in a group: the handle {@link Group#join} returns. It owns the ephemeral
 * node {@code /groups/{group}/{memberId}} of one session at a time and keeps it there:
 * <ul>
 *   <li>connection SUSPENDED (or the process stalled): {@link State#SUSPENDED}; the node may
 *       still exist. Same session back and the node still ours: {@link State#JOINED} again.
 *   <li>the node is gone (the session expired, or someone deleted it): {@link State#REJOINING};
 *       the handle creates a new node, on the new session if there is one, as soon as it can,
 *       and says so ({@link Listener#onRejoined}). Observers see the old incarnation leave and
 *       the new one join.
 *   <li>it cannot rejoin (another session took the id meanwhile, rejoining is turned off, or the
 *       server refuses): {@link State#LOST}, final.
 *   <li>{@link #leave()} / {@link #close()}: {@link State#LEFT}, final; the node is deleted if
 *       it is still ours.
 * </ul>
 *
 * <p>Unlike a lock lease a membership has no fencing token: nobody's writes are fenced by it.
 * What it promises is that while it is JOINED its node exists and belongs to its session.
 */
public interface Membership<M> extends AutoCloseable {
    /**
     * The states of a membership.
     *
     * <pre>
     * JOINED ──connection suspended / stall──▶ SUSPENDED ──same session, node still ours──▶ JOINED
     * JOINED | SUSPENDED ──node gone (session expired, node deleted)──▶ REJOINING
     * REJOINING ──new node created──▶ JOINED
     * JOINED | SUSPENDED | REJOINING ──cannot rejoin──▶ LOST     (terminal)
     * JOINED | SUSPENDED | REJOINING ──leave() / close()──▶ LEFT  (terminal)
     * </pre>
     */
    enum State {
        JOINED,
        SUSPENDED,
        /** Lost its node and is creating a new one. */
        REJOINING,
        /** Terminal: could not rejoin; {@link #ended()} completes. */
        LOST,
        /** Terminal: left by its owner; {@link #ended()} completes. */
        LEFT;

        public boolean isTerminal() {
            return this == LOST || this == LEFT;
        }
    }

    /**
     * Told about one membership's state changes.
     *
     * <p>Contract: callbacks run on the executor given at registration, never on Curator's event
     * thread and never while Coord holds a lock; calls for one registration arrive one at a time,
     * in order. A listener that throws is logged and does not affect others. Pairs: every
     * {@link #onSuspended} is followed by {@link #onRestored}, {@link #onNodeLost} or a final call;
     * every {@link #onNodeLost} by {@link #onRejoined} or a final call. Exactly one final call,
     * {@link #onLost} or {@link #onLeft}, ends the sequence; a listener added after the end
     * hears that final call, once.
     */
    interface Listener {
        /** The connection dropped (or the process stalled); the node may still exist. */
        default void onSuspended(Membership<?> membership) {
        }

        /** The same session is back and the node is still ours. */
        default void onRestored(Membership<?> membership) {
        }

        /** Our node is gone: observers now see this member as left. A rejoin is under way. */
        default void onNodeLost(Membership<?> membership, CoordException cause) {
        }

        /** A new node was created for this member, on {@code session} (new after an expiry). */
        default void onRejoined(Membership<?> membership, CoordSession session) {
        }

        /** Final: the member is out of the group and will not come back by itself. */
        default void onLost(Membership<?> membership, CoordException cause) {
        }

        /** Final: the owner left. */
        default void onLeft(Membership<?> membership) {
        }
    }

    String group();

    String memberId();

    /** The member's node: {@code /groups/{group}/{memberId}}. */
    CoordPath node();

    State state();

    /** The session of the current node. After a rejoin on a new session, the new one. */
    CoordSession session();

    /** The czxid of the current node (new after each rejoin): which incarnation observers see. */
    long incarnation();

    /** How many times the handle rejoined after losing its node. */
    int rejoins();

    /** The metadata last written successfully; a rejoin writes this. */
    M metadata();

    /**
     * Replaces the metadata. It is encoded and size-checked before anything is sent
     * ({@link io.coord.CodecException}, {@link io.coord.ValueTooLargeException}); then written
     * only if the node is still this incarnation's.
     *
     * <p>SUSPENDED, REJOINING: fails with {@link io.coord.LockLostException} naming the state (try
     * again once JOINED). LOST, LEFT: fails the same way, for good. A connection lost during the
     * write gives {@link io.coord.ConnectionLostException}: the write may or may not have happened.
     *
     * @throws InterruptedException if interrupted while waiting for the server
     */
    void update(M metadata) throws InterruptedException;

    /** Completes with {@link State#LOST} or {@link State#LEFT}. */
    CompletableFuture<State> ended();

    Registration addListener(Listener listener, Executor executor);

    /**
     * Leaves the group: the node is deleted if it still belongs to this member's session (never
     * a node of the same name another session created meanwhile). Idempotent. If the connection
     * is down, the delete is retried while the session lives; if the session ends first, the
     * server deletes the node anyway.
     */
    void leave();

    /** Same as {@link #leave()}. */
    @Override
    void close();
}
