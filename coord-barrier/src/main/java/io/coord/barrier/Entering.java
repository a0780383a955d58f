package io.coord.barrier;

import io.coord.BarrierBrokenException;
import io.coord.ConnectionLostException;
import io.coord.CoordException;
import io.coord.CoordTimeoutException;
import io.coord.SessionExpiredException;
import io.coord.barrier.BarrierRule.Action;
import io.coord.barrier.BarrierRule.Cause;
import io.coord.barrier.BarrierRule.Step;
import io.coord.barrier.BarrierStatus.Phase;
import io.coord.barrier.BarrierStore.Root;
import io.coord.barrier.BarrierStore.View;
import io.coord.barrier.Generation.Members;
import io.coord.barrier.Generation.Seat;
import io.coord.internal.WakeSignal;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.framework.api.transaction.CuratorTransactionResult;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * One {@code enter}: take a seat in the open generation, then wait until the generation is
 * decided.
 *
 * <p>Taking the seat is one round trip: the create of the seat, the exists that sets the call's
 * one watch ({@link DecisionWatch}), a listing of the seats and a read of the root go out back to
 * back on one session, so
 * ZooKeeper answers them in that order and the listing includes the new seat. The generation to
 * join is the one after the member's last; only the first {@code enter} of a member (or one after
 * a failure) reads the root first. A wrong guess costs a retry, never a wrong round: a seat in a
 * generation that is not the current open one is removed before anything is decided from it.
 */
final class Entering extends Waiting {
    private ZkBarrierSeat seat;
    private View view;
    private Members members;
    /**
     * The root's version once READY is recorded: the root changes only by decisions (OPEN at v,
     * READY at v+1, then DONE or BROKEN), so any root read of this generation tells it.
     */
    private int readyVersion = -1;
    /** The watch on the decision node of the generation this call took a seat in: its one watch while waiting. */
    private DecisionWatch decision;
    /** Taking a seat: the generation guessed, and a create whose answer is not known yet (its generation and unique part). */
    private long guess;
    private Generation pending;
    private String pendingUnique;
    /** Whether the wait for the decision has begun, and whether this is its first pass (a late arrival's message). */
    private boolean waiting;
    private boolean first = true;

    Entering(ZkDoubleBarrier barrier, Duration timeout) {
        super(barrier, timeout);
        this.guess = barrier.guess();
    }

    /** The async {@code enter}: the same steps, with no thread held between them. */
    java.util.concurrent.CompletableFuture<BarrierSeat> enterAsync(java.util.concurrent.Executor executor) {
        openSignal();
        return AsyncBarrierCall.start(this, new AsyncBarrierCall.Steps<BarrierSeat>() {
            @Override
            public BarrierSeat step() throws InterruptedException {
                return Entering.this.step();
            }

            @Override
            public void cancel() throws InterruptedException {
                withdraw();
            }
        }, executor, seat -> seat.close());
    }

    /** The sync {@code enter}: the same steps as {@link #step()}, parked between them. */
    ZkBarrierSeat enter() throws InterruptedException {
        openSignal();
        try {
            return step();
        } finally {
            if (!async()) {
                ended();
            }
        }
    }

    /**
     * Takes a seat and waits for the decision, from wherever the last call left off: in the async
     * form, a wait unwinds with {@link Waiting.Suspend} and the next call carries on. Returns the
     * seat when let through; any other end closes the seat and throws.
     */
    ZkBarrierSeat step() throws InterruptedException {
        String outcome = "failed";
        try {
            if (seat == null) {
                barrier.checkRootOnce();
                join();
                signal.follow(seat);
            }
            waiting = true;
            awaitEntered();
            outcome = "released";
            // Watches still set (on the seat before ours, on the children) fire when this round's
            // seats go; removing them now would send one request per member at the moment all are
            // released. The seat removes whatever is left when it closes.
            seat.removeOnClose(signal.handOffWatches());
            barrier.entered(seat);
            barrier.guess(seat.generation() + 1);
            if (cause == Cause.INTERRUPT) {
                Thread.currentThread().interrupt();
            }
            finish("coord.barrier.enter.wait", outcome);
            return seat;
        } catch (Suspend s) {
            throw s;
        } catch (InterruptedException | RuntimeException | Error e) {
            outcome = outcome(e);
            barrier.guess(-1);
            if (seat != null) {
                seat.close();
            }
            finish("coord.barrier.enter.wait", outcome);
            throw e;
        }
    }

    @Override
    void resumed() {
        super.resumed();
        if (waiting) {
            first = false;
            view = null;
            members = null;
        }
    }

    /** Ends the call's registrations: the signal (its watches, unless handed to the seat) and the ready watch. */
    @Override
    void ended() {
        super.ended();
        if (decision != null) {
            decision.remove(); // only if it may still be registered: a generation this call gave up on
        }
    }

    private boolean watches(Generation g) {
        return decision != null && decision.generation() == g.number();
    }

    /**
     * While waiting in OPEN, the decision node's watch is this call's one watch: set again here if
     * it may be used up. The root watch only for a generation that has no decision node.
     */
    @Override
    View watchDecision(Generation g, View markers) throws InterruptedException {
        if (!watches(g) || decision.absent()) {
            return super.watchDecision(g, markers);
        }
        if (!decision.ready() && !decision.armed()) {
            SeatCalls.await(decision.arm(), giveUp, g.marker(Generation.DECISION));
        }
        if (decision.ready()) {
            return BarrierStore.decided(g.number(), Phase.READY, barrier.parties());
        }
        // Not in place (no node; or no answer, a session change in between): the root watch covers the wait.
        return decision.armed() ? markers : null;
    }

    /**
     * Before waiting in OPEN: whether a watch will tell this call the decision, its decision watch
     * (or, in a generation without the node, its root watch). If neither is in place, sets the
     * root watch and returns false: read again now, then wait. Never a wait that only the
     * deadline ends.
     */
    private boolean decisionWatched(Generation g) throws InterruptedException {
        if (watches(g) && (decision.ready() || decision.armed()) || rootWatch.armed()) {
            return true;
        }
        readRootWatched();
        return false;
    }

    @Override
    boolean decisionNode() {
        return decision == null || !decision.absent();
    }

    /**
     * Withdraws this call's seat (a cancelled {@code enterAsync}, between steps): while the
     * generation is still OPEN, one transaction deletes the seat and records its withdrawal, so
     * the count goes on as if this member never came. Once the generation is decided it is too
     * late: the seat is closed as {@link BarrierSeat#close()} closes it. Returns whether it was
     * withdrawn.
     */
    boolean withdraw() throws InterruptedException {
        barrier.guess(-1);
        if (seat == null && pendingUnique != null) {
            adopt(pending, pendingUnique); // a create whose answer was lost: find it, to withdraw it
        }
        if (seat == null) {
            finish("coord.barrier.enter.wait", "cancelled");
            return true;
        }
        Generation g = new Generation(store.root(), seat.generation());
        boolean withdrawn = false;
        BarrierStore.Root root = store.readRoot(store.curator(), null);
        if (root != null && root.record().generation() == g.number() && root.record().phase() == Phase.OPEN) {
            withdrawn = store.seats().withdraw(g, seat, root.version());
        }
        if (!withdrawn) {
            seat.close();
        }
        finish("coord.barrier.enter.wait", "cancelled");
        return withdrawn;
    }

    /** Takes a seat; on return {@link #seat} is set, and {@link #view} / {@link #members} when the batch read them. */
    private void join() throws InterruptedException {
        while (true) {
            epoch = signal.epoch();
            try {
                if (pendingUnique != null) {
                    try {
                        if (adopt(pending, pendingUnique)) {
                            return;
                        }
                        pendingUnique = null;
                    } catch (SessionExpiredException e) {
                        pendingUnique = null; // made by a session that has ended: it is gone with it
                        throw e;
                    }
                }
                if (cause == Cause.TIMEOUT) {
                    throw new CoordTimeoutException("barrier " + barrier.name() + ": member " + barrier.memberId()
                            + " could not take a seat within " + timeout + " (no answer from ZooKeeper)");
                }
                if (cause == Cause.INTERRUPT) {
                    throw new InterruptedException("interrupted before taking a seat in barrier " + barrier.name());
                }
                if (guess < 0) {
                    // No watch: taking the seat sets this call's one watch (the decision node's).
                    guess = barrier.generationToJoin(store.readRoot(watching, null));
                    if (guess < 0) {
                        continue;
                    }
                }
                Generation g = new Generation(store.root(), guess);
                // Look first, in one round trip: the root and the seats. No watch yet: the arrival that
                // completes the count does not wait (a watch would only fire at its own decision),
                // and every other one sets its one watch (the decision node's) with its seat.
                CompletableFuture<CuratorEvent> rooted = store.seats().readRootAsync(watching, null);
                CompletableFuture<CuratorEvent> listed = store.seats().readMembersAsync(watching, g, null);
                Root root = store.seats().root(SeatCalls.await(rooted, giveUp, store.root()));
                CuratorEvent seats = SeatCalls.await(listed, giveUp, g.members());
                if (root == null || root.record().generation() != guess || root.record().phase() != Phase.OPEN
                        || SeatCalls.code(seats) == KeeperException.Code.NONODE) {
                    guess = -1; // not the open generation (yet, or any more): read the root again
                    continue;
                }
                Members before = store.seats().members(seats, g);
                remember(before); // names, for a break message should one of them vanish
                Seat own = barrier.lostSeat(before.present().values());
                if (own != null) {
                    barrier.breakForLostSeat(root.record(), root.version(), own);
                    guess = -1; // the record moved first: read again
                    continue;
                }
                String unique = barrier.newUnique();
                String name = Generation.seatName(barrier.memberId(), unique);
                long session = store.zk().liveSession().id();
                pending = g; // from here until an answer, the seat may exist: find it by its unique name
                pendingUnique = unique;
                if (root.record().parties() == barrier.parties() && completes(before)) {
                    // Our arrival completes the count: take the seat and record READY in one transaction.
                    List<CuratorTransactionResult> done = store.seats().tryComplete(g, root.record(), root.version(),
                            SeatCalls.membersVersion(seats), List.copyOf(before.present().values()), name, barrier.parties() - 1);
                    if (done != null) {
                        pendingUnique = null;
                        SeatCalls.Taken t = SeatCalls.taken(done);
                        seat = barrier.seat(g, t.node(), t.czxid(), session);
                        readyVersion = root.version() + 1;
                        view = new View(root.record().ready(), readyVersion, 0);
                        members = null;
                        return;
                    }
                    // someone else arrived (or a seat went) since we looked: take a seat the ordinary way
                }
                CompletableFuture<io.coord.internal.Zk.MultiAnswer> taking = store.seats().takeSeat(g, name);
                if (decision != null) {
                    decision.remove();
                }
                // Sent before the reads: answered before them, so it is armed when they are in.
                decision = new DecisionWatch(store.zk(), g, signal);
                decision.arm();
                CompletableFuture<CuratorEvent> relisted = store.seats().readMembersAsync(watching, g, null);
                CompletableFuture<CuratorEvent> rerooted = store.seats().readRootAsync(watching, null);
                io.coord.internal.Zk.MultiAnswer answer = SeatCalls.await(taking, giveUp, g.members());
                KeeperException.Code code = answer.code();
                if (code == KeeperException.Code.CONNECTIONLOSS || code == KeeperException.Code.OPERATIONTIMEOUT) {
                    throw store.seats().failure(answer, g.members()); // pending: adopted (or not) on the next pass
                }
                pendingUnique = null;
                if (code == KeeperException.Code.NONODE) {
                    guess = -1; // the generation went in the meantime
                    continue;
                }
                if (code != KeeperException.Code.OK) {
                    throw store.seats().failure(answer, g.members());
                }
                SeatCalls.Taken t = SeatCalls.taken(answer);
                seat = barrier.seat(g, t.node(), t.czxid(), session);
                if (readBatch(g, relisted, rerooted)) {
                    return;
                }
                seat.close(); // decided (or moved on) between our look and our seat: look again
                seat = null;
                guess = -1;
            } catch (ConnectionLostException | SessionExpiredException e) {
                awaitReconnect(epoch, e);
            } catch (InterruptedException e) {
                interrupted(e);
            }
        }
    }

    /** Reads the batch's listing and root; false if the seat's generation is not the current open (or decided) one. */
    private boolean readBatch(Generation g, CompletableFuture<CuratorEvent> listed, CompletableFuture<CuratorEvent> rooted)
            throws InterruptedException {
        Root root;
        try {
            root = store.seats().root(SeatCalls.await(rooted, giveUp, store.root()));
        } catch (CoordException e) {
            return true; // the wait loop reads again
        }
        if (root == null || root.record().generation() != g.number() || root.record().phase() == Phase.DONE) {
            return false;
        }
        view = new View(root.record(), root.version(), root.mtime());
        noteRoot(view);
        try {
            Members m = store.seats().members(SeatCalls.await(listed, giveUp, g.members()), g);
            remember(m);
            // Seat 0 must watch the children: it reads them again, with the watch.
            members = m.present().containsKey(seat.sequence()) && m.before(seat.sequence()) >= 0 ? m : null;
        } catch (CoordException e) {
            members = null;
        }
        return true;
    }

    /** Whether one more seat completes the count: seats 0 .. parties-2 are there, and nothing was ever deleted. */
    private boolean completes(Members before) {
        int parties = barrier.parties();
        if (before.deletions() != 0 || !before.left().isEmpty() || before.present().size() != parties - 1) {
            return false;
        }
        for (long s = 0; s < parties - 1; s++) {
            if (!before.present().containsKey(s)) {
                return false;
            }
        }
        return true;
    }

    /** After a create whose answer was lost: adopts the seat if it was made (by our current session). */
    private boolean adopt(Generation g, String unique) throws InterruptedException {
        String node = store.seats().findSeat(g, unique);
        Stat stat = node == null ? null : store.seats().stat(g.seat(node));
        if (stat == null) {
            return false;
        }
        seat = barrier.seat(g, node, stat);
        return true;
    }

    private static String name(String path) {
        return path.substring(path.lastIndexOf('/') + 1);
    }

    private void awaitEntered() throws InterruptedException {
        Generation g = new Generation(store.root(), seat.generation());
        long mine = seat.sequence();
        while (true) {
            try {
                if (view == null && watches(g) && decision.ready()) {
                    // The server's word that READY is recorded: no read (see DecisionWatch).
                    view = BarrierStore.decided(g.number(), Phase.READY, barrier.parties());
                }
                if (view == null) {
                    view = reread(g, Phase.OPEN);
                    noteRoot(view);
                }
                GenerationRecord record = view.record();
                if (record.phase() == Phase.OPEN && record.parties() != barrier.parties()) {
                    breakGeneration(view, mismatch(record), members);
                } else {
                    Step step = BarrierRule.enter(record, mine, members, cause);
                    if (step.action() == Action.READ_MEMBERS) {
                        members = store.readMembers(watching, g, mine == 0 ? signal : null);
                        remember(members);
                        step = BarrierRule.enter(record, mine, members, cause);
                        if (step.action() == Action.WAIT && step.watchChildren() && mine != 0) {
                            // the seats before ours all withdrew: ours is first now, and watches the children
                            members = store.readMembers(watching, g, signal);
                            remember(members);
                            step = BarrierRule.enter(record, mine, members, cause);
                        }
                    }
                    if (decide(step, g, first)) {
                        return;
                    }
                }
            } catch (ConnectionLostException | SessionExpiredException e) {
                awaitReconnect(epoch, e);
            } catch (InterruptedException e) {
                interrupted(e);
            }
            first = false;
            view = null;
            members = null;
            epoch = signal.epoch();
        }
    }

    private Step mismatch(GenerationRecord record) {
        return Step.breaking("member " + barrier.memberId() + " arrived for " + barrier.parties()
                + " parties but the generation was opened for " + record.parties(), List.of(seat.sequence()));
    }

    private void noteRoot(View root) {
        if (root.version() >= 0 && root.record().generation() == seat.generation()) {
            if (root.record().phase() == Phase.OPEN) {
                readyVersion = root.version() + 1;
            } else if (root.record().phase() == Phase.READY) {
                readyVersion = root.version();
            }
        }
    }

    /** Carries out one step; true when let through. */
    private boolean decide(Step step, Generation g, boolean first) throws InterruptedException {
        switch (step.action()) {
            case RELEASED -> {
                // Never having read the root, we only know our own idea of the parties: the READY
                // list is the word on who was admitted.
                if (readyVersion < 0 && !store.readAdmitted(g.number()).contains(seat.node().name())) {
                    throw refused(g);
                }
                seat.readyVersion(readyVersion);
                return true;
            }
            case REFUSED -> {
                // Seats numbered past the parties are admitted when earlier ones withdrew: READY's list says.
                if (!store.readAdmitted(g.number()).contains(seat.node().name())) {
                    throw refused(g);
                }
                seat.readyVersion(readyVersion);
                return true;
            }
            case BROKEN -> throw barrier.broken(view.record(), view.mtime(), first ? barrier.lateArrival() : null);
            case DECIDE_READY -> {
                View root = forDecision(view);
                if (root == null) {
                    return false;
                }
                noteRoot(root);
                if (root.record().parties() != barrier.parties()) {
                    breakGeneration(root, mismatch(root.record()), members);
                    return false;
                }
                if (store.tryReady(root.record(), root.version(), step.seats(), decisionNode())) {
                    seat.readyVersion(root.version() + 1);
                    return true;
                }
                return false;
            }
            case BREAK -> {
                breakGeneration(view, step, members);
                return false;
            }
            case WAIT -> {
                if (watchAll(g, step.seats()) && decisionWatched(g)) {
                    awaitSignal(epoch);
                }
                return false;
            }
            default -> throw new IllegalStateException("unexpected step " + step + " in enter");
        }
    }

    private BarrierBrokenException refused(Generation g) {
        return new BarrierBrokenException("barrier " + barrier.name() + " generation " + g.number() + " let its parties through"
                + " without member " + barrier.memberId() + " (#" + seat.sequence() + "): it was one more than the parties"
                + " and is refused");
    }
}
