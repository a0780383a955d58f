package io.coord.barrier;

import io.coord.ConnectionLostException;
import io.coord.CoordException;
import io.coord.LeaseState;
import io.coord.SessionExpiredException;
import io.coord.barrier.BarrierRule.Action;
import io.coord.barrier.BarrierRule.Cause;
import io.coord.barrier.BarrierRule.Step;
import io.coord.barrier.BarrierStatus.Phase;
import io.coord.barrier.BarrierStore.Root;
import io.coord.barrier.BarrierStore.View;
import io.coord.barrier.Generation.Members;
import io.coord.internal.WakeSignal;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.WatcherRemoveCuratorFramework;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.zookeeper.KeeperException;

/**
 * One {@code leave}: add our left marker, then wait until every party left (DONE) or the
 * generation broke. The first attempt is one round trip (the marker's transaction, a listing of
 * the seats and a read of the root, back to back); everything after it reads again after each
 * wake-up. The seat is released when the call ends, whatever the outcome.
 */
final class Leaving extends Waiting {
    /** How long after everyone left a member's seat is deleted: after the other members have read the outcome. */
    static final long TIDY_DELAY_MS = 100;

    private final ZkBarrierSeat seat;
    /** Whether our left marker is in place: true, false, or null (unknown: a lost answer). */
    private Boolean left = Boolean.FALSE;
    /** Whether the first pass (the look, then the marker's batch) is still to come. */
    private boolean batch;

    Leaving(ZkDoubleBarrier barrier, ZkBarrierSeat seat, Duration timeout) {
        super(barrier, timeout);
        this.seat = seat;
    }

    /** The async {@code leave}: the same steps, with no thread held between them. */
    java.util.concurrent.CompletableFuture<Void> leaveAsync(java.util.concurrent.Executor executor) {
        openSignal();
        signal.follow(seat);
        return AsyncBarrierCall.start(this, new AsyncBarrierCall.Steps<Void>() {
            @Override
            public Void step() throws InterruptedException {
                Leaving.this.step();
                return null;
            }

            @Override
            public void cancel() {
                abandon();
            }
        }, executor, none -> { });
    }

    /** The sync {@code leave}: the same steps as {@link #step()}, parked between them. */
    void leave() throws InterruptedException {
        openSignal();
        signal.follow(seat);
        try {
            step();
        } finally {
            ended();
        }
    }

    /** Follows the seat too: a loss or a reconnect wakes the wait. */
    @Override
    WakeSignal openSignal() {
        WakeSignal s = super.openSignal();
        batch = seat.state() == LeaseState.ACQUIRED && seat.readyVersion() >= 0;
        return s;
    }

    /**
     * Leaves and waits until all left, from wherever the last call left off (see
     * {@link Entering#step()}); the seat is released when the call ends, whatever the outcome.
     */
    void step() throws InterruptedException {
        String outcome = "failed";
        WatcherRemoveCuratorFramework tidy = null;
        try {
            awaitLeft();
            outcome = "released";
            tidy = signal.handOffWatches(); // removed below, a moment later
            if (cause == Cause.INTERRUPT) {
                Thread.currentThread().interrupt();
            }
        } catch (Suspend s) {
            outcome = null;
            throw s;
        } catch (InterruptedException | RuntimeException | Error e) {
            outcome = outcome(e);
            throw e;
        } finally {
            if (outcome == null) {
                // suspended: the call goes on later
            } else if ("released".equals(outcome)) {
                // Everyone has left: the seat's node and this call's watches only need tidying.
                // That happens on the client's own event thread, and a moment later: the delete is
                // a write, and a server queues reads behind a write it is syncing to disk, so a
                // delete sent at once would hold up the other members' reads of the outcome. On
                // that thread both are background requests (NodeLease.close sends its delete so
                // there): it drives every lease of the client and must never wait on a dark connection.
                seat.released();
                finish("coord.barrier.leave.wait", outcome);
                WatcherRemoveCuratorFramework w = tidy;
                CompletableFuture.delayedExecutor(TIDY_DELAY_MS, TimeUnit.MILLISECONDS, store.zk().events()).execute(() -> {
                    seat.closeNow();
                    w.removeWatchers();
                });
            } else {
                seat.close();
                finish("coord.barrier.leave.wait", outcome);
            }
        }
    }

    /**
     * A cancelled {@code leaveAsync}, between steps: this member stops waiting. Its left marker,
     * if in place, stands (the others still finish); the seat is closed either way, so without
     * the marker the generation breaks for the others, as {@link BarrierSeat#close()} before
     * leaving does. Returns whether the marker was in place.
     */
    boolean abandon() {
        boolean leftAlready = Boolean.TRUE.equals(left);
        seat.close();
        finish("coord.barrier.leave.wait", "cancelled");
        return leftAlready;
    }

    private void awaitLeft() throws InterruptedException {
        Generation g = new Generation(store.root(), seat.generation());
        long mine = seat.sequence();
        View view = null;
        Members members = null;
        while (true) {
            try {
                if (batch) {
                    batch = false;
                    if (leaveLast(seat, g)) {
                        return;
                    }
                    CompletableFuture<CuratorEvent> leaving = store.seats().leave(g, seat.node(), seat.readyVersion(), mine, barrier.memberId());
                    CompletableFuture<CuratorEvent> listed = store.seats().readMembersAsync(watching, g, null);
                    CompletableFuture<CuratorEvent> rooted = store.seats().readRootAsync(watching, rootWatch);
                    left = leftBy(SeatCalls.await(leaving, giveUp, seat.node()), seat);
                    try {
                        Root root = store.seats().root(SeatCalls.await(rooted, giveUp, store.root()));
                        view = root != null && root.record().generation() == g.number() ? new View(root.record(), root.version(), root.mtime()) : null;
                        members = store.seats().members(SeatCalls.await(listed, giveUp, g.members()), g);
                        remember(members);
                    } catch (CoordException e) {
                        view = null;
                        members = null;
                    }
                }
                if (view == null) {
                    view = reread(g, Phase.READY);
                }
                boolean lost = seat.state() == LeaseState.LOST;
                if (left == null || (!left && lost && view.record().phase() == Phase.READY)) {
                    // the marker may be in place although we do not know (lost answer, or lost just after)
                    members = members != null ? members : store.readMembers(watching, g, null);
                    left = members.left().contains(mine);
                }
                Step step = BarrierRule.leave(view.record(), mine, members, left, lost, cause);
                if (step.action() == Action.LEAVE) {
                    if (seat.state() == LeaseState.UNCERTAIN) {
                        awaitSignal(epoch); // the reconnect (or the loss) wakes us
                        continue;
                    }
                    int version = seat.readyVersion();
                    if (version < 0) {
                        View root = forDecision(view);
                        if (root == null) {
                            continue;
                        }
                        version = root.version();
                    }
                    left = leftBy(SeatCalls.await(store.seats().leave(g, seat.node(), version, mine, barrier.memberId()),
                            giveUp, seat.node()), seat);
                    if (left == null || !left) {
                        continue;
                    }
                    members = null;
                    step = BarrierRule.leave(view.record(), mine, null, true, false, cause);
                }
                if (step.action() == Action.READ_MEMBERS) {
                    members = store.readMembers(watching, g, null);
                    remember(members);
                    step = BarrierRule.leave(view.record(), mine, members, left, lost, cause);
                }
                switch (step.action()) {
                    case RELEASED -> {
                        return;
                    }
                    case BROKEN -> throw barrier.broken(view.record(), view.mtime(), null);
                    case DECIDE_DONE -> {
                        View root = seat.readyVersion() >= 0 ? new View(view.record(), seat.readyVersion(), view.mtime()) : forDecision(view);
                        if (root != null && store.tryDone(root.record(), root.version())) {
                            return;
                        }
                    }
                    case BREAK -> breakGeneration(view, step, members);
                    case WAIT -> {
                        if (watchAll(g, step.seats())) {
                            awaitSignal(epoch);
                        }
                    }
                    default -> throw new IllegalStateException("unexpected step " + step + " in leave");
                }
            } catch (ConnectionLostException | SessionExpiredException e) {
                awaitReconnect(epoch, e);
            } catch (InterruptedException e) {
                interrupted(e);
            } finally {
                // before the next reads: a wake-up from here on is never missed
                epoch = signal.epoch();
                view = null;
                members = null;
            }
        }
    }

    /**
     * Looks first (the seats and the root, one round trip; no watch: the last leaver does not wait,
     * and any other sets the decision watch with the marker batch that follows). If every other
     * party has left, our leave is the last one: leave and record DONE in one transaction. False
     * when that is not so (or someone else got there first).
     */
    private boolean leaveLast(ZkBarrierSeat seat, Generation g) throws InterruptedException {
        CompletableFuture<CuratorEvent> listed = store.seats().readMembersAsync(watching, g, null);
        CompletableFuture<CuratorEvent> rooted = store.seats().readRootAsync(watching, null);
        Root root = store.seats().root(SeatCalls.await(rooted, giveUp, store.root()));
        Members before = store.seats().members(SeatCalls.await(listed, giveUp, g.members()), g);
        if (root == null || root.record().generation() != g.number() || root.record().phase() != Phase.READY
                || root.version() != seat.readyVersion() || before.left().contains(seat.sequence())) {
            return false;
        }
        for (long s : before.admitted(barrier.parties())) {
            if (s != seat.sequence() && !before.left().contains(s)) {
                return false;
            }
        }
        return store.seats().tryLeaveLast(g, seat.node(), root.record(), root.version(), seat.sequence(), barrier.memberId());
    }

    /** Whether the marker's transaction left us out: true (in place), false (not: read again), null (unknown). */
    private Boolean leftBy(CuratorEvent answer, ZkBarrierSeat seat) {
        KeeperException.Code code = SeatCalls.code(answer);
        return switch (code) {
            case OK, NODEEXISTS -> Boolean.TRUE;
            case BADVERSION, NONODE, SESSIONEXPIRED -> Boolean.FALSE;
            case CONNECTIONLOSS, OPERATIONTIMEOUT -> null;
            default -> throw store.seats().failure(answer, seat.node());
        };
    }
}
