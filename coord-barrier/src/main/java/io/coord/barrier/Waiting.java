package io.coord.barrier;

import io.coord.BarrierBrokenException;
import io.coord.ConnectionLostException;
import io.coord.CoordException;
import io.coord.LeaseState;
import io.coord.LockLostException;
import io.coord.SessionExpiredException;
import io.coord.barrier.BarrierRule.Cause;
import io.coord.barrier.BarrierRule.Step;
import io.coord.barrier.BarrierStatus.Phase;
import io.coord.barrier.BarrierStore.View;
import io.coord.barrier.Generation.Members;
import io.coord.barrier.Generation.Seat;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.curator.framework.WatcherRemoveCuratorFramework;
import org.apache.zookeeper.KeeperException;

/**
 * One {@code enter} or one {@code leave}: read, ask {@link BarrierRule}, carry out its step, and
 * when it says wait, wait for a wake-up and read again. Nothing here decides from an event.
 *
 * <p>Time: the caller's timeout runs on {@link System#nanoTime()}. When it passes, the waiter
 * breaks the generation (unless the read shows it decided). If ZooKeeper cannot be reached at
 * all, the waiter keeps trying for one more session timeout (by then its own session has expired
 * on the server, so the others cannot be waiting for it) and then gives up with
 * {@link ConnectionLostException}: the outcome is unknown to this member.
 */
final class Waiting {
    private static final long RETRY_NANOS = Duration.ofMillis(500).toNanos();
    /** Longer timeouts are taken as this one: deadlines stay far from overflowing {@code nanoTime} arithmetic. */
    private static final Duration MAX_TIMEOUT = Duration.ofDays(365);

    private final ZkDoubleBarrier barrier;
    private final BarrierStore store;
    private final Duration timeout;
    private final long started = System.nanoTime();
    private final long deadline;
    private final long giveUp;
    private final WatcherRemoveCuratorFramework watching;
    private final Map<Long, String> names = new HashMap<>();
    private Signal signal;
    private Cause cause = Cause.NONE;

    Waiting(ZkDoubleBarrier barrier, Duration timeout) {
        this.barrier = barrier;
        this.store = barrier.store();
        this.timeout = timeout;
        this.deadline = started + (timeout.compareTo(MAX_TIMEOUT) > 0 ? MAX_TIMEOUT : timeout).toNanos();
        long session = Math.max(store.zk().client().negotiatedSessionTimeout().toNanos(), Duration.ofSeconds(1).toNanos());
        this.giveUp = deadline + session + Duration.ofSeconds(2).toNanos();
        this.watching = store.zk().curator().newWatcherRemoveCuratorFramework();
    }

    WatcherRemoveCuratorFramework watching() {
        return watching;
    }

    Signal signal() {
        return signal;
    }

    BarrierSeat enter() throws InterruptedException {
        String outcome = "failed";
        try (Signal s = Signal.open(store.zk())) {
            signal = s;
            ZkDoubleBarrier.Joined joined = barrier.join(this);
            BarrierSeat seat = joined.seat();
            s.follow(seat);
            try {
                awaitEntered(seat, joined);
            } catch (InterruptedException | RuntimeException | Error e) {
                outcome = outcome(e);
                seat.close();
                throw e;
            }
            outcome = "released";
            barrier.entered(seat);
            if (cause == Cause.INTERRUPT) {
                Thread.currentThread().interrupt();
            }
            return seat;
        } catch (BarrierBrokenException e) {
            outcome = "broken";
            throw e;
        } finally {
            watching.removeWatchers();
            barrier.metrics().recordTime("coord.barrier.enter.wait", Duration.ofNanos(System.nanoTime() - started),
                    "barrier", barrier.name(), "outcome", outcome);
        }
    }

    void leave(BarrierSeat seat) throws InterruptedException {
        String outcome = "failed";
        try (Signal s = Signal.open(store.zk())) {
            signal = s;
            s.follow(seat);
            awaitLeft(seat);
            outcome = "released";
            if (cause == Cause.INTERRUPT) {
                Thread.currentThread().interrupt();
            }
        } catch (InterruptedException | RuntimeException | Error e) {
            outcome = outcome(e);
            throw e;
        } finally {
            seat.close();
            watching.removeWatchers();
            barrier.metrics().recordTime("coord.barrier.leave.wait", Duration.ofNanos(System.nanoTime() - started),
                    "barrier", barrier.name(), "outcome", outcome);
        }
    }

    private void awaitEntered(BarrierSeat seat, ZkDoubleBarrier.Joined first) throws InterruptedException {
        Generation g = new Generation(store.root(), seat.generation());
        long mine = seat.sequence();
        View view = first.view();
        long epoch = first.epoch();
        while (true) {
            try {
                if (view == null) {
                    view = store.readGeneration(watching, signal, g.number());
                }
                Step step = BarrierRule.enter(view.record(), mine, null, cause);
                Members members = null;
                if (step.action() == BarrierRule.Action.READ_MEMBERS) {
                    members = store.readMembers(watching, g, mine == 0 ? signal : null);
                    remember(members);
                    step = BarrierRule.enter(view.record(), mine, members, cause);
                }
                switch (step.action()) {
                    case RELEASED -> {
                        return;
                    }
                    case REFUSED -> throw new BarrierBrokenException("barrier " + barrier.name() + " generation " + g.number()
                            + " let its " + view.record().parties() + " parties through without member " + barrier.memberId()
                            + " (#" + mine + "): it was one more than the parties and is refused");
                    case BROKEN -> throw barrier.broken(view.record(), view.mtime(), null);
                    case DECIDE_READY -> {
                        if (store.tryReady(view.record(), view.version(), step.seats())) {
                            return;
                        }
                    }
                    case BREAK -> breakGeneration(view, step, members);
                    case WAIT -> {
                        if (watchAll(g, step.seats())) {
                            awaitSignal(epoch);
                        }
                    }
                    default -> throw new IllegalStateException("unexpected step " + step + " in enter");
                }
            } catch (ConnectionLostException | SessionExpiredException e) {
                awaitReconnect(epoch, e);
            } catch (InterruptedException e) {
                interrupted(e);
            }
            view = null;
            epoch = signal.epoch();
        }
    }

    private void awaitLeft(BarrierSeat seat) throws InterruptedException {
        Generation g = new Generation(store.root(), seat.generation());
        long mine = seat.sequence();
        boolean left = false;
        while (true) {
            long epoch = signal.epoch();
            try {
                View view = store.readGeneration(watching, signal, g.number());
                boolean lost = seat.state() == LeaseState.LOST;
                Members members = null;
                if (!left && lost && view.record().phase() == Phase.READY) {
                    // our marker may have gone in just before the session ended
                    members = store.readMembers(watching, g, null);
                    left = members.left().contains(mine);
                }
                Step step = BarrierRule.leave(view.record(), mine, members, left, lost, cause);
                if (step.action() == BarrierRule.Action.LEAVE) {
                    left = leaveOnce(seat, g, view, epoch);
                    if (!left) {
                        continue;
                    }
                    step = BarrierRule.leave(view.record(), mine, null, true, false, cause);
                }
                if (step.action() == BarrierRule.Action.READ_MEMBERS) {
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
                        if (store.tryDone(view.record(), view.version())) {
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
            }
        }
    }

    /**
     * Adds our left marker behind our seat's fence and the READY record's version. Returns whether
     * we have left; false means read again (the record moved, or our seat is uncertain or lost).
     */
    private boolean leaveOnce(BarrierSeat seat, Generation g, View view, long epoch) throws InterruptedException {
        if (seat.state() == LeaseState.UNCERTAIN) {
            awaitSignal(epoch);
            return false;
        }
        try {
            seat.lease().guardedTransaction(store.leaveOps(g, view.version(), seat.sequence(), barrier.memberId()));
            return true;
        } catch (LockLostException e) {
            return false;
        } catch (CoordException e) {
            if (Thread.interrupted()) {
                throw new InterruptedException("interrupted while leaving " + g.path());
            }
            Throwable c = e.getCause();
            if (c instanceof KeeperException.NodeExistsException) {
                return true;
            }
            if (c instanceof KeeperException.BadVersionException) {
                return false;
            }
            throw e;
        }
    }

    /** Records the break the rule asked for; throws if it was recorded, returns to read again if the record moved first. */
    private void breakGeneration(View view, Step step, Members members) throws InterruptedException {
        List<String> failed = labels(view.record().generation(), step.failed(), members);
        GenerationRecord broken = view.record().broken(step.why() + (cause == Cause.TIMEOUT ? " (" + barrier.memberId()
                + " waited " + timeout + ")" : ""), failed, barrier.memberId());
        if (view.version() < 0 || !store.tryBreak(broken, view.version())) {
            return;
        }
        barrier.recordedBreak(broken);
        if (cause == Cause.INTERRUPT) {
            throw new InterruptedException("interrupted; barrier " + barrier.name() + " generation " + broken.generation()
                    + " is now broken for every member");
        }
        throw barrier.broken(broken, 0, null);
    }

    /** Names for failed sequences: from what we read, else from the READY list; a vanished seat nobody saw stays a number. */
    private List<String> labels(long generation, List<Long> seqs, Members members) throws InterruptedException {
        Set<Long> all = new LinkedHashSet<>(seqs);
        if (members != null) {
            for (Long seen : names.keySet()) {
                if (!members.present().containsKey(seen) && !members.left().contains(seen)) {
                    all.add(seen);
                }
            }
        }
        if (!all.stream().allMatch(names::containsKey)) {
            for (String node : store.readAdmitted(generation)) {
                Generation.parseSeat(node).ifPresent(s -> names.putIfAbsent(s.seq(), s.memberId()));
            }
        }
        List<String> out = new ArrayList<>();
        for (long s : all) {
            out.add(names.containsKey(s) ? names.get(s) + " (#" + s + ")" : "#" + s + " (left before anyone read its name)");
        }
        return out;
    }

    private void remember(Members members) {
        members.present().values().forEach(s -> names.put(s.seq(), s.memberId()));
    }

    /** Watches each seat; false (read again now) if one is already gone. */
    private boolean watchAll(Generation g, List<Seat> seats) throws InterruptedException {
        for (Seat seat : seats) {
            if (!store.watchSeat(watching, g, seat, signal)) {
                return false;
            }
        }
        return true;
    }

    private void awaitSignal(long epoch) throws InterruptedException {
        if (cause == Cause.NONE && !signal.await(epoch, deadline)) {
            cause = Cause.TIMEOUT;
        }
    }

    /** No connection (or a new session coming): wait for a session event, bounded; give up past the deadline plus a session. */
    private void awaitReconnect(long epoch, CoordException e) throws InterruptedException {
        long now = System.nanoTime();
        if (now - giveUp >= 0) {
            throw new ConnectionLostException("barrier " + barrier.name() + ": ZooKeeper stayed unreachable past the " + timeout
                    + " timeout and one session timeout; member " + barrier.memberId() + " cannot learn the outcome"
                    + " (its seat is gone with its session)", e);
        }
        if (cause == Cause.NONE && now - deadline >= 0) {
            cause = Cause.TIMEOUT;
        }
        long until = giveUp - (now + RETRY_NANOS) < 0 ? giveUp : now + RETRY_NANOS;
        signal.await(epoch, until);
    }

    /** First interrupt: break the generation (next read) and report it; a second one gives up at once. */
    private void interrupted(InterruptedException e) throws InterruptedException {
        if (cause == Cause.INTERRUPT) {
            throw e;
        }
        cause = Cause.INTERRUPT;
    }

    private static String outcome(Throwable e) {
        if (e instanceof BarrierBrokenException) {
            return "broken";
        }
        if (e instanceof InterruptedException) {
            return "interrupted";
        }
        return "failed";
    }
}
