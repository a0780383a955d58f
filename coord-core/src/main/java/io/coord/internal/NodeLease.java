package io.coord.internal;

import io.coord.ConnectionLostException;
import io.coord.CoordException;
import io.coord.CoordPath;
import io.coord.CoordSession;
import io.coord.FencingToken;
import io.coord.Lease;
import io.coord.LeaseListener;
import io.coord.LeaseState;
import io.coord.LockLostException;
import io.coord.Registration;
import io.coord.SessionExpiredException;
import io.coord.SessionListener;
import io.coord.SessionState;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.apache.curator.framework.api.BackgroundCallback;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.curator.framework.api.transaction.CuratorTransactionResult;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one implementation of {@link Lease} every recipe uses: one ephemeral node of one session,
 * its token, its state machine, and the plumbing that moves it.
 * <ul>
 *   <li>session SUSPENDED, or {@link #suspect()} (a stalled process) → UNCERTAIN, then one round
 *       trip started after the suspicion: our node exists and belongs to this session → ACQUIRED again;
 *   <li>session ended, or our node deleted (watched, re-read before believing) → LOST;
 *   <li>{@link #close()} → RELEASED at once, and the delete of our exact node sent (guaranteed
 *       delete; close() does not wait for its reply);
 *       {@link #beginOwnRelease()} → RELEASED by the recipe's own transaction that deletes the node;
 *       {@link #releaseKeepingNode()} → RELEASED, the recipe deletes the node its own way.
 * </ul>
 * Recipe handles wrap it and add their own release step with {@link #onRelease}.
 *
 * <p>Nothing here blocks a thread on ZooKeeper except the guarded writes (on the caller's thread;
 * {@link #close()} sends its delete in the background).
 * {@link #ended()} dependents and the release step never run on an event thread (see
 * {@link EventThreads}): an end there hands them to the client's callback thread. The own-node watch and every confirming round trip are background requests
 * whose replies drive the state machine, so the acquire path does not wait for the watch, and no
 * lease event (a suspicion, a session's end) ever waits behind a round trip on a dead connection.
 * The own-node watch is a {@code getData} watch (never {@code exists}: on a node already gone it
 * would leave a watch behind) and is never removed by request: it ends when the node goes (our own
 * delete included) or with the session, and fires into a lease that ignores it once ended. It is
 * armed once the lease has lived a short grace ({@link WatchArmer}), or by any earlier confirming
 * read: a lease that ends within the grace never sends it.
 */
public final class NodeLease implements Lease {
    private static final Logger LOG = LoggerFactory.getLogger(NodeLease.class);

    /** Extra work a recipe does after the lease's node is deleted (or lost). */
    @FunctionalInterface
    public interface ReleaseStep {
        void run();
    }

    private final Zk zk;
    private final ZkSession session;
    private final FencingToken token;
    /** False when the recipe watches the node itself and reports its events with {@link #nodeEvent()}. */
    private final boolean ownWatch;
    private final LeaseStateMachine machine = new LeaseStateMachine();
    private final Listeners<LeaseListener> listeners = new Listeners<>();
    private final CompletableFuture<LeaseState> ended = new CompletableFuture<>();
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Set once the constructor's registration returns; the lease may end (and {@link #finish}) before that. */
    private volatile Registration sessionRegistration;
    private volatile ReleaseStep releaseStep = () -> { };
    /** Why our node is gone while our session lives, in the recipe's words (see {@link #whenGone}). */
    private volatile Supplier<CoordException> goneCause;
    private final Watcher nodeWatcher = this::onNodeEvent;
    /**
     * Counts suspicions; a round trip confirms the lease only if none came after it was sent
     * (a reply to a request sent before a stall says nothing about after it). Guarded by
     * {@link #suspicionLock} together with the SUSPECT and CONFIRM moves.
     */
    private long suspicions;
    private final Object suspicionLock = new Object();
    /** Orders moves and their place in {@link #toAnnounce}; held only for a compare-and-set and an add. */
    private final Object moveLock = new Object();
    private final java.util.Queue<LeaseStateMachine.Snapshot> toAnnounce = new java.util.concurrent.ConcurrentLinkedQueue<>();
    private final AtomicBoolean announcing = new AtomicBoolean();
    /** Releases by the recipe's own transaction in flight: while any is, our node vanishing is not a loss yet. */
    private final AtomicInteger ownReleases = new AtomicInteger();
    private volatile boolean goneDuringOwnRelease;
    /** Whether a watching read of our node was sent (see {@link WatchArmer}: short leases never send one). */
    private volatile boolean watchArmed;

    /**
     * Starts a lease for the node in {@code token}, created by {@code session}. The caller has
     * just created the node; the lease watches it from a short grace on (see {@link WatchArmer};
     * the watch request is sent in the background: this constructor never waits for it).
     */
    public NodeLease(Zk zk, ZkSession session, FencingToken token) {
        this(zk, session, token, true);
    }

    /**
     * A lease for a recipe that already watches its node (a persistent watch over the node's
     * parent, set before the node was created): the lease sends no watch request of its own, and the
     * recipe calls {@link #nodeEvent()} whenever its watch reports the node deleted or changed.
     */
    public static NodeLease watchedByRecipe(Zk zk, ZkSession session, FencingToken token) {
        return new NodeLease(zk, session, token, false);
    }

    private NodeLease(Zk zk, ZkSession session, FencingToken token, boolean ownWatch) {
        this.zk = zk;
        this.session = session;
        this.token = token;
        this.ownWatch = ownWatch;
        zk.track(this); // before the listener: a finish() it may cause at once untracks after this
        this.sessionRegistration = session.addListener(new SessionListener() {
            @Override
            public void onSuspended(CoordSession s) {
                suspectOnly();
            }

            @Override
            public void onReconnected(CoordSession s) {
                verify();
            }

            @Override
            public void onEnded(CoordSession s, SessionState finalState) {
                apply(LeaseEvent.LOSE, new SessionExpiredException("session " + s.idHex() + " of lease " + token
                        + " ended (" + finalState + ")"));
            }
        }, zk.events());
        if (finished.get()) {
            // The session's end reached us (on the events thread) before the registration was set.
            sessionRegistration.close();
        }
        SessionState born = session.state();
        if (born.isTerminal()) {
            apply(LeaseEvent.LOSE, new SessionExpiredException("session " + session.idHex() + " had already ended"));
        } else {
            if (born == SessionState.SUSPENDED) {
                // The SUSPENDED event came before our listener was in: it will not come again, and the
                // reconnect (whose listener is in) verifies.
                suspectOnly();
            }
            if (ownWatch) {
                zk.watchArmer().armLater(this);
            }
        }
    }

    /** Whether the own-node watch was sent (tests of {@link WatchArmer}'s grace). */
    boolean watchSent() {
        return watchArmed;
    }

    /** Sends the own-node watch now unless a read already set it (or the lease ended). */
    void armWatch() {
        if (ownWatch && !watchArmed && !state().isTerminal()) {
            roundTrip(-1);
        }
    }

    /**
     * For a recipe about to hand this lease out: a grant never returns a lease that has already
     * ended (it may be UNCERTAIN: that is the caller's to see). Throws {@link LockLostException}
     * with the end's cause, or with "released" when the recipe itself released it meanwhile.
     */
    public void requireNotEnded(String what) {
        LeaseStateMachine.Snapshot now = machine.snapshot();
        if (now.state() == LeaseState.LOST) {
            throw new LockLostException(what + " was decided, but its lease " + token + " is already LOST: "
                    + now.cause().getMessage(), now.cause());
        }
        if (now.state() == LeaseState.RELEASED) {
            throw new LockLostException(what + " was decided, but its lease " + token + " was already released");
        }
    }

    /** Sets the recipe's extra release step (run once, after RELEASED or LOST; never on an event thread, so it may block). */
    public NodeLease onRelease(ReleaseStep step) {
        this.releaseStep = step;
        return this;
    }

    @Override
    public FencingToken token() {
        return token;
    }

    /**
     * The lease's state as {@link #checkValid()} judges it: ACQUIRED only while the session is
     * CONNECTED too. A session that moved before our listener ran makes an ACQUIRED lease
     * UNCERTAIN at once (its event follows and moves the machine the same way).
     */
    @Override
    public LeaseState state() {
        LeaseState s = machine.state();
        if (s == LeaseState.ACQUIRED && session.state() != SessionState.CONNECTED) {
            return LeaseState.UNCERTAIN;
        }
        return s;
    }

    /** The current snapshot (state, cause when LOST, since when). */
    public LeaseStateMachine.Snapshot snapshot() {
        return machine.snapshot();
    }

    @Override
    public CoordSession session() {
        return session;
    }

    @Override
    public void checkValid() {
        LeaseStateMachine.Snapshot s = machine.snapshot();
        if (s.state() != LeaseState.ACQUIRED) {
            throw new LockLostException("lease " + token + " is " + s.state()
                    + (s.cause() == null ? "" : ": " + s.cause().getMessage()), s.cause());
        }
        if (session.state() != SessionState.CONNECTED) {
            // The session moved but our listener has not run yet: not certain, so not valid.
            throw new LockLostException("lease " + token + " is uncertain: session " + session.idHex() + " is " + session.state());
        }
    }

    @Override
    public CompletableFuture<LeaseState> ended() {
        return ended.copy();
    }

    /**
     * Adds a listener. One added after the lease ended is handed its final call at once (the
     * contract's "exactly one of onLost, onReleased"), as the session does for a late {@code onEnded}.
     */
    @Override
    public Registration addListener(LeaseListener listener, Executor executor) {
        FinalOnce once = new FinalOnce(listener);
        return listeners.addThenAsk(once, executor, () -> {
            LeaseStateMachine.Snapshot now = machine.snapshot();
            return switch (now.state()) {
                case LOST -> l -> l.onLost(this, now.cause());
                case RELEASED -> l -> l.onReleased(this);
                default -> null;
            };
        });
    }

    /**
     * A listener that hears at most one final call: a late registration can race the end itself,
     * and both may hand it the final call; the first one through its sequential executor wins.
     */
    private static final class FinalOnce implements LeaseListener {
        private final LeaseListener delegate;
        private final AtomicBoolean ended = new AtomicBoolean();

        FinalOnce(LeaseListener delegate) {
            this.delegate = delegate;
        }

        @Override
        public void onUncertain(Lease lease) {
            if (!ended.get()) {
                delegate.onUncertain(lease);
            }
        }

        @Override
        public void onRestored(Lease lease) {
            if (!ended.get()) {
                delegate.onRestored(lease);
            }
        }

        @Override
        public void onLost(Lease lease, CoordException cause) {
            if (ended.compareAndSet(false, true)) {
                delegate.onLost(lease, cause);
            }
        }

        @Override
        public void onReleased(Lease lease) {
            if (ended.compareAndSet(false, true)) {
                delegate.onReleased(lease);
            }
        }

        @Override
        public String toString() {
            return delegate.toString();
        }
    }

    @Override
    public CuratorOp fenceCheck() {
        return zk.op(token.node(), () -> zk.curator().transactionOp().check().forPath(token.node().value()));
    }

    @Override
    public Stat guardedSetData(CoordPath target, byte[] data) {
        zk.checkSize(target, data.length);
        CuratorOp set = zk.op(target, () -> zk.curator().transactionOp().setData().forPath(target.value(), data));
        List<CuratorTransactionResult> results = guardedTransaction(List.of(set));
        return results.get(results.size() - 1).getResultStat();
    }

    @Override
    public List<CuratorTransactionResult> guardedTransaction(List<CuratorOp> ops) {
        checkValid();
        List<CuratorOp> all = new ArrayList<>(ops.size() + 1);
        all.add(fenceCheck());
        all.addAll(ops);
        Payloads.checkTransaction(all, Payloads.TRANSACTION_LIMIT);
        try {
            // Sent once: a Curator retry after a lost reply could turn a committed write into a
            // "refused" one (the retry fails at the check on a new session) or apply it twice.
            return results(all, zk.multiOnce(token.node(), all));
        } catch (KeeperException e) {
            if (Zk.indeterminate(e)) {
                // We know the connection failed before the session listener does: not certain any
                // more, and one round trip after reconnecting decides.
                suspect();
                throw new ConnectionLostException("guarded write behind lease node " + token.node() + " (token " + token
                        + ") may or may not have committed: " + e.code() + " before the reply came", e);
            }
            if (e.code() == KeeperException.Code.NONODE && failedAtCheck(e)) {
                LockLostException lost = new LockLostException("guarded write refused: lease node " + token.node()
                        + " no longer exists (token " + token + ")", e);
                apply(LeaseEvent.LOSE, lost);
                throw lost;
            }
            throw zk.translate(e, token.node());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CoordException("interrupted during a guarded write of lease " + token, e);
        }
    }

    /** Curator's view of a committed multi's results, paths relative to the client's namespace. */
    private List<CuratorTransactionResult> results(List<CuratorOp> ops, List<org.apache.zookeeper.OpResult> raw) {
        String namespace = zk.curator().getNamespace();
        String prefix = namespace == null || namespace.isEmpty() ? "" : "/" + namespace;
        List<CuratorTransactionResult> out = new ArrayList<>(raw.size());
        for (int i = 0; i < raw.size(); i++) {
            CuratorOp op = ops.get(i);
            org.apache.zookeeper.OpResult r = raw.get(i);
            String resultPath = op.getTypeAndPath().getForPath();
            Stat stat = null;
            if (r instanceof org.apache.zookeeper.OpResult.CreateResult c) {
                resultPath = unfix(prefix, c.getPath());
                stat = c.getStat();
            } else if (r instanceof org.apache.zookeeper.OpResult.SetDataResult d) {
                stat = d.getStat();
            }
            out.add(new CuratorTransactionResult(op.getTypeAndPath().getType(), op.getTypeAndPath().getForPath(), resultPath, stat));
        }
        return out;
    }

    private static String unfix(String prefix, String path) {
        if (prefix.isEmpty() || path == null || !path.startsWith(prefix)) {
            return path;
        }
        String rest = path.substring(prefix.length());
        return rest.isEmpty() ? "/" : rest;
    }

    /**
     * Asks for a round trip before the lease is trusted again (the process stalled). Returns at
     * once: the round trip's reply moves the lease.
     */
    public void suspect() {
        suspectOnly();
        if (session.state() == SessionState.CONNECTED) {
            verify(); // while not connected, the reconnect verifies
        }
    }

    /**
     * What LOST means when our node is found deleted while our session lives: a recipe whose nodes
     * others delete on purpose (a queue claim taken over past its deadline) names that reason
     * instead of a bare "node is gone". Null restores the default.
     */
    public NodeLease whenGone(Supplier<CoordException> cause) {
        this.goneCause = cause;
        return this;
    }

    /** The recipe's own watch saw our node deleted or changed: re-read before believing it. */
    public void nodeEvent() {
        verify();
    }

    private void suspectOnly() {
        synchronized (suspicionLock) {
            suspicions++;
            move(LeaseEvent.SUSPECT, null);
        }
        announce();
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        boolean released = apply(LeaseEvent.RELEASE, null);
        if (released) {
            // Sent, not waited for: the caller's release costs no round trip. ZooKeeper applies one
            // session's requests in order, so whatever this session sends next (a new acquire's create)
            // comes after the delete; others see the node go when it lands (see FENCING.md).
            deleteInBackground();
        }
        finish();
    }

    /**
     * The client is closing while its session lives on (a wrapped Curator client that its owner
     * keeps): the lease ends LOST, as it does when an owned client's session closes, and its node
     * is deleted on that still-live session, so that no other process waits behind a node nobody
     * holds. Only a node still owned by our session is deleted (a fixed path may have been taken by
     * another session after ours was deleted). Both requests go in the background; the future
     * completes when the delete's reply came, or at once when the lease had already ended.
     */
    CompletableFuture<Void> endWithClosingClient() {
        CompletableFuture<Void> done = new CompletableFuture<>();
        boolean ended = apply(LeaseEvent.LOSE, new SessionExpiredException("client closed: lease " + token
                + " ended, its node deleted on session " + session.idHex() + ", which the wrapped Curator client keeps"));
        if (!ended) {
            done.complete(null);
            return done;
        }
        deleteIfOurs(done, 3);
        return done;
    }

    /** Reads our node and deletes it at the version read if our session owns it; a version moved meanwhile (a stamp) reads again. */
    private void deleteIfOurs(CompletableFuture<Void> done, int tries) {
        try {
            zk.curator().checkExists().inBackground((c, read) -> {
                Stat stat = read.getStat();
                if (read.getResultCode() != KeeperException.Code.OK.intValue() || stat == null
                        || stat.getEphemeralOwner() != session.id()) {
                    done.complete(null);
                    return;
                }
                c.delete().withVersion(stat.getVersion()).inBackground((c2, deleted) -> {
                    if (deleted.getResultCode() == KeeperException.Code.BADVERSION.intValue() && tries > 1) {
                        deleteIfOurs(done, tries - 1);
                    } else {
                        done.complete(null);
                    }
                }).forPath(token.node().value());
            }).forPath(token.node().value());
        } catch (Exception e) {
            LOG.warn("could not delete lease node {} while closing the client", token.node(), e);
            done.complete(null);
        }
    }

    /**
     * The delete of {@link #close()}: sent in the background on any thread (so no caller, and no lease
     * event of this client, waits behind it while the connection is dark). Guaranteed: a delete that
     * fails with a connection loss is retried by Curator until it succeeds or the session ends (and
     * the session's end deletes the ephemeral node anyway).
     */
    private void deleteInBackground() {
        try {
            zk.curator().delete().guaranteed().inBackground((client, event) -> {
                int rc = event.getResultCode();
                if (rc != KeeperException.Code.OK.intValue() && rc != KeeperException.Code.NONODE.intValue()) {
                    LOG.debug("delete of lease node {}: {}; the guaranteed delete retries", token.node(), KeeperException.Code.get(rc));
                }
            }).forPath(token.node().value());
        } catch (Exception e) {
            LOG.warn("could not send the delete of lease node {}; it goes with the session", token.node(), e);
        }
    }

    /**
     * Ends the lease RELEASED now without deleting its node, for a recipe that deletes the node
     * its own way (a fixed path, which must only be deleted after checking it is still this
     * incarnation: a guaranteed delete by path could hit another session's node). The node's
     * deletion, when the watch sees it, is then no loss. Idempotent; after LOST it only records the close.
     */
    public void releaseKeepingNode() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        apply(LeaseEvent.RELEASE, null);
        finish();
    }

    /**
     * The recipe's own ending (its transaction, fenced by our node) found our node gone: the lease
     * ends LOST now with {@code cause}, so that the handle, {@link #ended()} and the listeners all
     * say the same. No request is sent: the node is already gone.
     */
    public void endLost(CoordException cause) {
        closed.set(true);
        apply(LeaseEvent.LOSE, cause);
        finish();
    }

    /**
     * Starts a release the recipe commits in its own transaction: put {@link OwnRelease#deleteOp()}
     * in it (it also fences the transaction: it fails if our node is gone) and report the outcome.
     * Until then our node vanishing is not taken as a loss — the lease cannot tell our own
     * transaction's delete from someone else's, so the caller tells it.
     */
    public OwnRelease beginOwnRelease() {
        ownReleases.incrementAndGet();
        return new OwnRelease();
    }

    /** A release by the recipe's own transaction; see {@link #beginOwnRelease()}. Report exactly once. */
    public final class OwnRelease {
        private final AtomicBoolean reported = new AtomicBoolean();

        private OwnRelease() {
        }

        /** {@code delete} of our exact node, for the recipe's transaction. */
        public CuratorOp deleteOp() {
            return zk.op(token.node(), () -> zk.curator().transactionOp().delete().forPath(token.node().value()));
        }

        /** The transaction committed (our node is gone with it): the lease ends RELEASED, without another request. */
        public void committed() {
            if (!reported.compareAndSet(false, true)) {
                return;
            }
            closed.set(true);
            apply(LeaseEvent.RELEASE, null);
            ownReleases.decrementAndGet();
            finish();
        }

        /**
         * The transaction did not commit, or the caller gives up on knowing: the lease is watched
         * as before, and if its node was seen gone meanwhile it is read again (gone → LOST).
         */
        public void notCommitted() {
            if (!reported.compareAndSet(false, true)) {
                return;
            }
            if (ownReleases.decrementAndGet() == 0 && goneDuringOwnRelease) {
                goneDuringOwnRelease = false;
                verify();
            }
        }
    }

    private boolean failedAtCheck(KeeperException e) {
        List<org.apache.zookeeper.OpResult> results = e.getResults();
        if (results == null || results.isEmpty()) {
            return true;
        }
        return results.get(0) instanceof org.apache.zookeeper.OpResult.ErrorResult err
                && err.getErr() == KeeperException.Code.NONODE.intValue();
    }

    private void onNodeEvent(WatchedEvent event) {
        if (event.getType() == Watcher.Event.EventType.None || state().isTerminal()) {
            return;
        }
        // Never trust the event alone: re-read (which re-arms the watch).
        verify();
    }

    /** One round trip that may confirm the lease: our node exists and is owned by our session → CONFIRM; gone → LOSE. */
    private void verify() {
        long epoch;
        synchronized (suspicionLock) {
            epoch = suspicions;
        }
        roundTrip(epoch);
    }

    /**
     * Reads our node in the background (with the own-node watch, when the lease keeps one); the
     * reply, handed to the client's event thread, moves the lease. {@code epoch} is the suspicion
     * count when sent; -1 for the first watch, which confirms nothing.
     */
    private void roundTrip(long epoch) {
        if (state().isTerminal()) {
            return;
        }
        BackgroundCallback reply = (client, event) -> {
            if (!movesNothing(epoch, event)) {
                onEvents(() -> onReply(epoch, event));
            }
        };
        try {
            if (ownWatch) {
                watchArmed = true;
                zk.curator().getData().usingWatcher(nodeWatcher).inBackground(reply).forPath(token.node().value());
            } else {
                zk.curator().checkExists().inBackground(reply).forPath(token.node().value());
            }
        } catch (Exception e) {
            // The client is closing (its session ends, and the lease with it) or cannot send now.
            LOG.debug("could not read lease node {}; still {}", token.node(), state(), e);
        }
    }

    /**
     * Whether a reply certainly moves nothing (the first watch found our own node, or the lease has
     * ended), so ZooKeeper's event thread can drop it without waking the client's event thread.
     */
    private boolean movesNothing(long epoch, CuratorEvent event) {
        if (state().isTerminal()) {
            return true;
        }
        Stat stat = event.getStat();
        return epoch < 0 && event.getResultCode() == KeeperException.Code.OK.intValue()
                && stat != null && stat.getEphemeralOwner() == session.id();
    }

    private void onReply(long epoch, CuratorEvent event) {
        if (state().isTerminal()) {
            return;
        }
        KeeperException.Code code = KeeperException.Code.get(event.getResultCode());
        if (code == KeeperException.Code.NONODE) {
            if (ownReleases.get() > 0) {
                // Perhaps our own transaction deleted it; its caller says which (see OwnRelease).
                goneDuringOwnRelease = true;
                if (ownReleases.get() > 0) {
                    return;
                }
            }
            Supplier<CoordException> gone = goneCause;
            apply(LeaseEvent.LOSE, gone != null ? gone.get() : new LockLostException("lease node " + token.node() + " is gone"));
            return;
        }
        if (code != KeeperException.Code.OK) {
            // Connection trouble: the session listener suspects, and the reconnect verifies again.
            LOG.debug("could not read lease node {} ({}); still {}", token.node(), code, state());
            return;
        }
        Stat stat = event.getStat();
        if (stat != null && stat.getEphemeralOwner() != session.id()) {
            apply(LeaseEvent.LOSE, new LockLostException("lease node " + token.node() + " is owned by session 0x"
                    + Long.toHexString(stat.getEphemeralOwner()) + ", not " + session.idHex()));
            return;
        }
        if (epoch < 0) {
            return;
        }
        synchronized (suspicionLock) {
            if (epoch == suspicions && session.state() == SessionState.CONNECTED) {
                move(LeaseEvent.CONFIRM, null);
            }
        }
        announce();
    }

    /** Runs {@code task} on the client's event thread; a closed client drops it (its leases end with its session). */
    private void onEvents(Runnable task) {
        try {
            zk.events().execute(task);
        } catch (RejectedExecutionException closing) {
            LOG.debug("client closing: dropped a reply for lease node {}", token.node());
        }
    }

    /** Applies an event, then tells listeners (outside every lock); returns whether the state changed. */
    private boolean apply(LeaseEvent event, CoordException cause) {
        boolean moved = move(event, cause);
        announce();
        return moved;
    }

    /**
     * Moves the machine and queues the move for {@link #announce}, both under {@link #moveLock}, so
     * the queue's order is the order of the moves. Callers holding {@link #suspicionLock} call this
     * and announce after letting go of it: no listener ever runs while the lease holds a lock.
     */
    private boolean move(LeaseEvent event, CoordException cause) {
        synchronized (moveLock) {
            var moved = machine.apply(event, cause);
            moved.ifPresent(t -> toAnnounce.add(t.to()));
            return moved.isPresent();
        }
    }

    /**
     * Tells listeners of every queued move, in order, one thread at a time: a move made meanwhile
     * (by another thread, or by a listener on a direct executor calling back into the lease) is
     * told by the thread already announcing, after the one it is telling.
     */
    private void announce() {
        while (!toAnnounce.isEmpty() && announcing.compareAndSet(false, true)) {
            try {
                LeaseStateMachine.Snapshot to;
                while ((to = toAnnounce.poll()) != null) {
                    tell(to);
                }
            } finally {
                announcing.set(false);
            }
        }
    }

    private void tell(LeaseStateMachine.Snapshot to) {
        switch (to.state()) {
            case UNCERTAIN -> listeners.forEach(l -> l.onUncertain(this));
            case ACQUIRED -> listeners.forEach(l -> l.onRestored(this));
            case LOST -> {
                LOG.warn("lease {} LOST: {}", token, to.cause().getMessage());
                listeners.forEach(l -> l.onLost(this, to.cause()));
                completeEnded(LeaseState.LOST);
                finish();
            }
            case RELEASED -> {
                listeners.forEach(l -> l.onReleased(this));
                completeEnded(LeaseState.RELEASED);
            }
        }
    }

    /**
     * Completes {@link #ended()}: its dependents run on the completing thread, and user code must
     * never run on an event thread, so an end that happens there is completed on the client's
     * callback thread (see {@link Lease#ended()}).
     */
    private void completeEnded(LeaseState finalState) {
        zk.offEventThread(() -> ended.complete(finalState));
    }

    private final AtomicBoolean finished = new AtomicBoolean();

    private void finish() {
        if (!finished.compareAndSet(false, true)) {
            return;
        }
        Registration registration = sessionRegistration;
        if (registration != null) {
            registration.close(); // else the constructor closes it when it sets it
        }
        zk.untrack(this);
        // A recipe's release step may block (a conditional delete): never on an event thread.
        ReleaseStep step = releaseStep;
        zk.offEventThread(() -> {
            try {
                step.run();
            } catch (RuntimeException e) {
                LOG.warn("release step of lease {} failed", token, e);
            }
        });
    }

    @Override
    public String toString() {
        return "Lease[" + token + " " + state() + "]";
    }
}
