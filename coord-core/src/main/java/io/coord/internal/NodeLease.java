package io.coord.internal;

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
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.curator.framework.WatcherRemoveCuratorFramework;
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
 *       trip: our node exists and belongs to this session → ACQUIRED again;
 *   <li>session ended, or our node deleted (watched, re-read before believing) → LOST;
 *   <li>{@link #close()} → RELEASED and our exact node deleted (guaranteed delete).
 * </ul>
 * Recipe handles wrap it and add their own release step with {@link #onRelease}.
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
    private final WatcherRemoveCuratorFramework watching;
    private final LeaseStateMachine machine = new LeaseStateMachine();
    private final Listeners<LeaseListener> listeners = new Listeners<>();
    private final CompletableFuture<LeaseState> ended = new CompletableFuture<>();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Registration sessionRegistration;
    private volatile ReleaseStep releaseStep = () -> { };
    private final Watcher nodeWatcher = this::onNodeEvent;

    /**
     * Starts a lease for the node in {@code token}, created by {@code session}. The caller has
     * just created the node; the lease watches it from now on.
     */
    public NodeLease(Zk zk, ZkSession session, FencingToken token) {
        this.zk = zk;
        this.session = session;
        this.token = token;
        this.watching = zk.curator().newWatcherRemoveCuratorFramework();
        this.sessionRegistration = session.addListener(new SessionListener() {
            @Override
            public void onSuspended(CoordSession s) {
                apply(LeaseEvent.SUSPECT, null);
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
        zk.track(this);
        if (session.state().isTerminal()) {
            apply(LeaseEvent.LOSE, new SessionExpiredException("session " + session.idHex() + " had already ended"));
        } else {
            zk.events().execute(this::watchNode);
        }
    }

    /** Sets the recipe's extra release step (run once, after RELEASED or LOST). */
    public NodeLease onRelease(ReleaseStep step) {
        this.releaseStep = step;
        return this;
    }

    @Override
    public FencingToken token() {
        return token;
    }

    @Override
    public LeaseState state() {
        return machine.state();
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

    @Override
    public Registration addListener(LeaseListener listener, Executor executor) {
        return listeners.add(listener, executor);
    }

    @Override
    public CuratorOp fenceCheck() {
        return zk.callUninterruptibly(token.node(), () -> zk.curator().transactionOp().check().forPath(token.node().value()));
    }

    @Override
    public Stat guardedSetData(CoordPath target, byte[] data) {
        zk.checkSize(target, data.length);
        CuratorOp set = zk.callUninterruptibly(target, () -> zk.curator().transactionOp().setData().forPath(target.value(), data));
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
            return zk.curator().transaction().forOperations(all);
        } catch (KeeperException.NoNodeException e) {
            if (failedAtCheck(e)) {
                LockLostException lost = new LockLostException("guarded write refused: lease node " + token.node()
                        + " no longer exists (token " + token + ")", e);
                apply(LeaseEvent.LOSE, lost);
                throw lost;
            }
            throw zk.translate(e, token.node());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CoordException("interrupted during a guarded write of lease " + token, e);
        } catch (Exception e) {
            throw zk.translate(e, token.node());
        }
    }

    /** Asks for a round trip before the lease is trusted again (the process stalled). */
    public void suspect() {
        if (apply(LeaseEvent.SUSPECT, null)) {
            verify();
        }
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        boolean released = apply(LeaseEvent.RELEASE, null);
        if (released) {
            try {
                zk.curator().delete().guaranteed().forPath(token.node().value());
            } catch (KeeperException.NoNodeException ignored) {
                // already gone: nothing to release
            } catch (Exception e) {
                LOG.warn("could not delete lease node {}; the guaranteed delete retries in the background", token.node(), e);
            }
        }
        finish();
    }

    private boolean failedAtCheck(KeeperException e) {
        List<org.apache.zookeeper.OpResult> results = e.getResults();
        if (results == null || results.isEmpty()) {
            return true;
        }
        return results.get(0) instanceof org.apache.zookeeper.OpResult.ErrorResult err
                && err.getErr() == KeeperException.Code.NONODE.intValue();
    }

    private void watchNode() {
        if (state().isTerminal()) {
            return;
        }
        try {
            Stat stat = watching.checkExists().usingWatcher(nodeWatcher).forPath(token.node().value());
            if (stat == null) {
                apply(LeaseEvent.LOSE, new LockLostException("lease node " + token.node() + " was deleted"));
            }
        } catch (Exception e) {
            // Connection trouble: the session listener will SUSPECT and verify on reconnect.
            LOG.debug("could not watch lease node {}", token.node(), e);
        }
    }

    private void onNodeEvent(WatchedEvent event) {
        if (event.getType() == Watcher.Event.EventType.None) {
            return;
        }
        // Never trust the event alone: re-read, and re-arm the watch.
        zk.events().execute(this::verify);
    }

    /** One round trip: our node exists and is owned by our session → CONFIRM; gone → LOSE. */
    private void verify() {
        zk.events().execute(() -> {
            if (state().isTerminal()) {
                return;
            }
            try {
                Stat stat = watching.checkExists().usingWatcher(nodeWatcher).forPath(token.node().value());
                if (stat == null) {
                    apply(LeaseEvent.LOSE, new LockLostException("lease node " + token.node() + " is gone"));
                } else if (stat.getEphemeralOwner() != session.id()) {
                    apply(LeaseEvent.LOSE, new LockLostException("lease node " + token.node() + " is owned by session 0x"
                            + Long.toHexString(stat.getEphemeralOwner()) + ", not " + session.idHex()));
                } else if (session.state() == SessionState.CONNECTED) {
                    apply(LeaseEvent.CONFIRM, null);
                }
            } catch (Exception e) {
                LOG.debug("could not verify lease node {}; still {}", token.node(), state(), e);
            }
        });
    }

    /** Applies an event; tells listeners; returns whether the state changed. */
    private boolean apply(LeaseEvent event, CoordException cause) {
        var moved = machine.apply(event, cause);
        if (moved.isEmpty()) {
            return false;
        }
        LeaseStateMachine.Snapshot to = moved.get().to();
        switch (to.state()) {
            case UNCERTAIN -> listeners.forEach(l -> l.onUncertain(this));
            case ACQUIRED -> listeners.forEach(l -> l.onRestored(this));
            case LOST -> {
                LOG.warn("lease {} LOST: {}", token, to.cause().getMessage());
                listeners.forEach(l -> l.onLost(this, to.cause()));
                ended.complete(LeaseState.LOST);
                finish();
            }
            case RELEASED -> {
                listeners.forEach(l -> l.onReleased(this));
                ended.complete(LeaseState.RELEASED);
            }
        }
        return true;
    }

    private final AtomicBoolean finished = new AtomicBoolean();

    private void finish() {
        if (!finished.compareAndSet(false, true)) {
            return;
        }
        sessionRegistration.close();
        zk.untrack(this);
        try {
            watching.removeWatchers();
        } catch (RuntimeException e) {
            LOG.debug("could not remove watchers of {}", token.node(), e);
        }
        try {
            releaseStep.run();
        } catch (RuntimeException e) {
            LOG.warn("release step of lease {} failed", token, e);
        }
    }

    @Override
    public String toString() {
        return "Lease[" + token + " " + state() + "]";
    }
}
