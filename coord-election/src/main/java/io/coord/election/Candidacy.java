package io.coord.election;

import io.coord.ConnectionLostException;
import io.coord.CoordPath;
import io.coord.CoordTimeoutException;
import io.coord.Registration;
import io.coord.SessionExpiredException;
import io.coord.SessionState;
import io.coord.internal.LeaseNodes;
import io.coord.internal.NodeLease;
import io.coord.internal.Payloads;
import io.coord.internal.WakeSignal;
import io.coord.internal.Zk;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.Watcher;

/**
 * One candidacy: a candidate node and the wait until it leads. Used by one thread (the one in
 * {@link #await}); {@link #withdraw()} may come from any thread and wakes it.
 *
 * <p>Every wake-up (the predecessor's watch, our lease changing, a withdrawal: all through one
 * coord-core {@link WakeSignal}; or a retry slice passing) is only a hint: the loop re-reads the
 * children and lets {@link CandidateRule} decide again. One exception, argued on
 * {@link CandidateRule.Watch}: the deletion of the leader, when it was the only node ahead of
 * ours, elects us without that read (a deleted node never comes back and no later node can come
 * ahead of ours), which saves a round trip on every handover.
 */
final class Candidacy {
    /** A cap on candidates, so the children listing stays far below jute.maxbuffer. */
    static final int MAX_CANDIDATES = 10_000;
    /** Pause between tries while ZooKeeper cannot be reached (each try has Curator's own retries). */
    private static final long RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

    private final ZkElection election;
    private final Zk zk;
    private final CoordPath path;
    /** Wakes the waiting thread: the predecessor's watch (set through it), our lease, a withdrawal. */
    private final WakeSignal wake;
    /** The wake-ups the waiting thread has seen (only it uses this): a later one ends its next sleep at once. */
    private long seen;
    private final Watcher predecessorWatcher;
    private final Object lock = new Object();
    private NodeLease lease; // guarded by lock
    private Registration leaseRegistration; // guarded by lock
    private LeaseNodes.Created created; // guarded by lock
    private boolean withdrawn; // guarded by lock
    private boolean handedOver; // guarded by lock
    /** When the predecessor's watch last fired (nanoTime), 0 if never: the start of a handover. */
    private volatile long predecessorGoneAt;
    /** The path of the last predecessor whose deletion the watch reported, or null. */
    private volatile String deletedPredecessor;
    private final Runnable onLeadershipEnd;

    Candidacy(ZkElection election, Runnable onLeadershipEnd) {
        this.election = election;
        this.onLeadershipEnd = onLeadershipEnd;
        this.zk = election.zk();
        this.path = election.path();
        this.wake = new WakeSignal(zk);
        this.predecessorWatcher = event -> {
            switch (event.getType()) {
                case NodeDeleted -> {
                    predecessorGoneAt = System.nanoTime();
                    deletedPredecessor = event.getPath();
                    election.metric("coord.election.wakeups");
                }
                case NodeDataChanged -> {
                    predecessorGoneAt = System.nanoTime();
                    election.metric("coord.election.wakeups");
                }
                default -> {
                    // None (connection state), watch removed: only a hint to re-read
                }
            }
            wake.fire(); // not process(event): nobody takes the record of nodes here, so none is kept
        };
    }

    /**
     * Joins (if not yet a candidate) and waits until this candidate may act as leader, or until
     * {@code deadlineNanos}. On any failure the candidacy is withdrawn.
     */
    ZkLeadership await(long deadlineNanos, Duration timeoutForMessage) throws InterruptedException {
        boolean ok = false;
        try {
            ZkLeadership leadership = loop(deadlineNanos, timeoutForMessage);
            ok = true;
            return leadership;
        } finally {
            if (!ok) {
                withdraw();
            }
        }
    }

    private ZkLeadership loop(long deadline, Duration timeout) throws InterruptedException {
        long electedAt = 0;
        CandidateRule.Watch watched = null;
        while (true) {
            checkOpen(deadline, timeout);
            NodeLease current = currentLease();
            if (current == null || current.state().isTerminal()) {
                electedAt = 0;
                watched = null;
                join(deadline, timeout);
                continue;
            }
            seen = wake.epoch();
            CandidateRule.Step step;
            if (watched != null && watched.electsOnDeletion()
                    && path.child(watched.predecessor()).value().equals(deletedPredecessor)) {
                // The leader, the only node ahead of ours, is deleted: that alone elects us (see
                // CandidateRule.Watch), so the handover does not wait for one more read.
                step = new CandidateRule.Lead();
            } else {
                List<String> children;
                try {
                    children = zk.call(path, () -> zk.curator().getChildren().forPath(path.value()));
                } catch (ConnectionLostException | SessionExpiredException e) {
                    sleep(Math.min(deadline - System.nanoTime(), RETRY_NANOS));
                    continue;
                }
                step = CandidateRule.next(children, current.node().name(), election.options().curatorLayout());
            }
            watched = step instanceof CandidateRule.Watch w ? w : null;
            if (step instanceof CandidateRule.Foreign foreign) {
                current.close(); // exactly our node; await's failure path withdraws the rest
                throw CandidateRule.refusal(path, election.options().curatorLayout(), foreign.nodes(),
                        "left the election (our node " + current.node().name() + " was removed)");
            }
            if (step instanceof CandidateRule.Gone) {
                // Deleted behind our back (an administrator?): this node can never lead. Join anew.
                current.close();
                continue;
            }
            if (step instanceof CandidateRule.Watch watch) {
                electedAt = 0;
                if (watchPredecessor(path.child(watch.predecessor()))) {
                    sleep(deadline - System.nanoTime());
                }
                continue;
            }
            long now = System.nanoTime();
            if (electedAt == 0) {
                electedAt = now;
            }
            boolean connected = current.session().state() == SessionState.CONNECTED;
            Duration grace = election.options().handoverGrace();
            switch (CandidateRule.handover(current.state(), connected, electedAt, now, grace)) {
                case ACT -> {
                    ZkLeadership leadership = handOver(current);
                    if (leadership != null) {
                        return leadership;
                    }
                }
                case WAIT_GRACE -> sleep(Math.min(deadline - now, CandidateRule.actAt(electedAt, grace) - now));
                case WAIT_RESTORED -> sleep(Math.min(deadline - now, TimeUnit.SECONDS.toNanos(1)));
                case ENDED -> {
                    // the top of the loop joins again
                }
            }
        }
    }

    /** Sets a getData watch on the predecessor; false if it is already gone (re-read at once). */
    private boolean watchPredecessor(CoordPath predecessor) throws InterruptedException {
        try {
            zk.call(predecessor, () -> wake.watching().getData().usingWatcher(predecessorWatcher).forPath(predecessor.value()));
            return true;
        } catch (io.coord.NoParentException gone) {
            predecessorGoneAt = System.nanoTime(); // found gone rather than told: the handover starts now
            return false;
        } catch (ConnectionLostException | SessionExpiredException e) {
            sleep(RETRY_NANOS);
            return false;
        }
    }

    private void join(long deadline, Duration timeout) throws InterruptedException {
        while (true) {
            checkOpen(deadline, timeout);
            try {
                Payloads.checkChildCap(zk, path, MAX_CANDIDATES);
                // Refuse before joining: a node of ours beside foreign ones would be taken as a
                // candidate by whoever made those (Curator sorts it by name, after theirs).
                CuratorLayout layout = election.options().curatorLayout();
                List<String> foreign = CandidateRule.foreign(election.nodes().children(), layout);
                if (!foreign.isEmpty()) {
                    throw CandidateRule.refusal(path, layout, foreign, "did not join");
                }
                LeaseNodes.Created made = LeaseNodes.create(zk, path, layout.nodeName(), election.nodeData(), true);
                NodeLease fresh = LeaseNodes.lease(zk, made);
                synchronized (lock) {
                    if (withdrawn) {
                        fresh.close();
                        throw new CancellationException("candidacy in election " + election.name() + " was withdrawn");
                    }
                    closeLeaseRegistration();
                    lease = fresh;
                    created = made;
                    predecessorGoneAt = 0;
                    leaseRegistration = wake.follow(fresh);
                }
                return;
            } catch (ConnectionLostException | SessionExpiredException e) {
                sleep(Math.min(deadline - System.nanoTime(), RETRY_NANOS));
            }
        }
    }

    /** Hands the lease over to a {@link ZkLeadership}; null if withdrawn meanwhile. */
    private ZkLeadership handOver(NodeLease current) {
        LeaseNodes.Created made;
        synchronized (lock) {
            if (withdrawn || current != lease) {
                return null;
            }
            handedOver = true;
            made = created;
            closeLeaseRegistration();
        }
        wake.close();
        long wokeAt = predecessorGoneAt;
        return election.newLeadership(current, made, wokeAt, onLeadershipEnd);
    }

    private NodeLease currentLease() {
        synchronized (lock) {
            return lease;
        }
    }

    private void checkOpen(long deadline, Duration timeout) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException("interrupted while campaigning in election " + election.name());
        }
        synchronized (lock) {
            if (withdrawn) {
                throw new CancellationException("candidacy in election " + election.name() + " was withdrawn");
            }
        }
        if (deadline - System.nanoTime() <= 0) {
            throw new CoordTimeoutException("not elected in election " + election.name() + " within " + timeout
                    + "; the candidacy was withdrawn");
        }
    }

    /** Waits for a wake-up (one not seen yet) for at most {@code nanos}. */
    private void sleep(long nanos) throws InterruptedException {
        if (nanos > 0 && wake.await(seen, System.nanoTime() + nanos)) {
            seen = wake.epoch();
        }
    }

    /**
     * Withdraws: deletes our node (exactly ours) unless it was handed over as a leadership, and
     * wakes the waiting thread. Idempotent, any thread.
     */
    void withdraw() {
        NodeLease toClose;
        synchronized (lock) {
            if (withdrawn) {
                return;
            }
            withdrawn = true;
            toClose = handedOver ? null : lease;
            closeLeaseRegistration();
        }
        wake.fire();
        if (toClose != null) {
            toClose.close();
        }
        wake.close();
    }

    private void closeLeaseRegistration() {
        if (leaseRegistration != null) {
            leaseRegistration.close();
            leaseRegistration = null;
        }
    }

    @Override
    public String toString() {
        NodeLease l = currentLease();
        return "Candidacy[" + election.name() + " " + (l == null ? "not joined" : l.node().name()) + "]";
    }
}
