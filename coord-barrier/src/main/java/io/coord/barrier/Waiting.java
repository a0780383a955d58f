package io.coord.barrier;

import io.coord.BarrierBrokenException;
import io.coord.ConnectionLostException;
import io.coord.CoordException;
import io.coord.barrier.BarrierRule.Cause;
import io.coord.barrier.BarrierRule.Step;
import io.coord.barrier.BarrierStatus.Phase;
import io.coord.barrier.BarrierStore.View;
import io.coord.barrier.Generation.Members;
import io.coord.barrier.Generation.Seat;
import io.coord.internal.WakeSignal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.curator.framework.WatcherRemoveCuratorFramework;

/**
 * What {@link Entering} and {@link Leaving} share: one call's deadline, its watches and wake-up
 * signal (coord-core's {@link WakeSignal}, with the barrier's {@link RootWatch} on it), and the
 * steps that end a wait (recording a break, waiting out a lost connection, an interrupt). Nothing
 * here decides from an event: every wake-up leads to another read (the one server fact an enter
 * acts on is {@link DecisionWatch}'s, checked in {@link Entering}).
 *
 * <p>Time: the caller's timeout runs on {@link System#nanoTime()}. When it passes, the waiter
 * breaks the generation (unless the next read shows it decided). If ZooKeeper cannot be reached
 * at all, the waiter keeps trying for one more session timeout (by then its own session has
 * expired on the server, so nobody can be waiting for it) and then gives up with
 * {@link ConnectionLostException}: the outcome is unknown to this member.
 */
abstract class Waiting {
    private static final long RETRY_NANOS = Duration.ofMillis(500).toNanos();
    /** Longer timeouts are taken as this one: deadlines stay far from overflowing {@code nanoTime} arithmetic. */
    private static final Duration MAX_TIMEOUT = Duration.ofDays(365);

    final ZkDoubleBarrier barrier;
    final BarrierStore store;
    final Duration timeout;
    final long started = System.nanoTime();
    final long deadline;
    final long giveUp;
    /** This call's watches, set through {@link #signal}: closing it removes them, unless handed off. */
    WatcherRemoveCuratorFramework watching;
    private final Map<Long, String> names = new HashMap<>();
    WakeSignal signal;
    RootWatch rootWatch;
    Cause cause = Cause.NONE;
    /** The signal's epoch before the reads the next wait is about. */
    long epoch;
    /** Whether this call waits by unwinding ({@link Suspend}) instead of parking its thread: an async call. */
    private boolean async;

    /**
     * How an async call waits: instead of parking, a wait unwinds the call's step with this, and
     * {@link AsyncBarrierCall} runs the step again after a wake-up after {@link #epoch} or at
     * {@link #until} (nanoTime). The steps keep their state in fields, so running one again
     * carries on where the wait was, as the sync loop does after its wait returns.
     */
    static final class Suspend extends RuntimeException {
        final long epoch;
        final long until;
        /** Whether reaching {@link #until} is the caller's deadline (the cause becomes TIMEOUT), not a retry pause. */
        final boolean deadline;

        Suspend(long epoch, long until, boolean deadline) {
            super(null, null, false, false);
            this.epoch = epoch;
            this.until = until;
            this.deadline = deadline;
        }
    }

    Waiting(ZkDoubleBarrier barrier, Duration timeout) {
        this.barrier = barrier;
        this.store = barrier.store();
        this.timeout = timeout;
        this.deadline = started + (timeout.compareTo(MAX_TIMEOUT) > 0 ? MAX_TIMEOUT : timeout).toNanos();
        long session = Math.max(store.zk().client().negotiatedSessionTimeout().toNanos(), Duration.ofSeconds(1).toNanos());
        this.giveUp = deadline + session + Duration.ofSeconds(2).toNanos();
    }

    /**
     * Opens this call's signal (it also wakes on every change of the client's sessions: suspend,
     * reconnect, end, a new session) and the root watch on it; the caller closes it.
     */
    WakeSignal openSignal() {
        signal = new WakeSignal(store.zk()).followSessions();
        rootWatch = new RootWatch(signal);
        watching = signal.watching();
        epoch = signal.epoch();
        return signal;
    }

    /** Makes this call wait by unwinding: see {@link Suspend}. Before the first step. */
    void runAsync() {
        async = true;
    }

    boolean async() {
        return async;
    }

    /** Before a step runs again after a wait: as the sync loop goes on after its wait returned. */
    void resumed() {
        epoch = signal.epoch();
    }

    /** The deadline passed while suspended with no wake-up: as the sync wait returning false. */
    void timedOut() {
        if (cause == Cause.NONE) {
            cause = Cause.TIMEOUT;
        }
    }

    /** Ends the call's registrations and removes its watches (those not handed off). */
    void ended() {
        signal.close();
    }

    /**
     * The view to decide on: {@code view} itself if it came from the root (its version known),
     * else the root read now; null if the root has moved to another generation or phase since
     * {@code view} was read (read again instead of deciding).
     */
    View forDecision(View view) throws InterruptedException {
        if (view.version() >= 0) {
            return view;
        }
        BarrierStore.Root root = store.readRoot(store.zk().curator(), null);
        if (root == null || root.record().generation() != view.record().generation() || root.record().phase() != view.record().phase()) {
            return null;
        }
        return new View(root.record(), root.version(), root.mtime());
    }

    /** Reads the root, setting this call's root watch (the decision watch); null if the barrier was never used. */
    BarrierStore.Root readRootWatched() throws InterruptedException {
        long before = rootWatch.mark();
        BarrierStore.Root root = store.readRoot(watching, rootWatch);
        if (root != null) {
            rootWatch.set(before);
        }
        return root;
    }

    /**
     * Generation {@code g}'s state after a wake-up, for a call waiting while the generation is in
     * phase {@code waitingIn} (OPEN in enter, READY in leave). First a listing of the generation's
     * markers, setting no watch: the decision it waits for, if made, shows there (the usual
     * wake-up: its own root watch fired on it). If not, and the root watch may be used up (it
     * fired, or the connection changed), the root is read with the watch set again; with the
     * watch still armed, a decision will fire it.
     */
    View reread(Generation g, Phase waitingIn) throws InterruptedException {
        View markers = store.readGeneration(watching, null, g.number(), barrier.parties());
        if (markers.record().phase() != waitingIn) {
            return markers;
        }
        View watched = watchDecision(g, markers);
        if (watched != null) {
            return watched;
        }
        BarrierStore.Root root = readRootWatched();
        if (root != null && root.record().generation() == g.number()) {
            return new View(root.record(), root.version(), root.mtime());
        }
        // the root moved on since the listing: this generation is decided, its markers say how
        return store.readGeneration(watching, null, g.number(), barrier.parties());
    }

    /**
     * With the generation still in the phase the call waits in ({@code markers}): the view to wait
     * on if the call's decision watch is in place, else null (the caller reads the root with its
     * root watch). Here the decision watch is the root watch; {@link Entering} has its own.
     */
    View watchDecision(Generation g, View markers) throws InterruptedException {
        return rootWatch.armed() ? markers : null;
    }

    /** Whether the generation has its {@link Generation#DECISION} node, as far as this call knows (a break deletes it). */
    boolean decisionNode() {
        return true;
    }

    /** Records the break the rule asked for and throws; returns (to read again) if the record moved first. */
    void breakGeneration(View seen, Step step, Members members) throws InterruptedException {
        View view = forDecision(seen);
        if (view == null) {
            return;
        }
        List<String> failed = labels(view.record().generation(), step.failed(), members);
        String why = step.why() + (cause == Cause.TIMEOUT ? " (" + barrier.memberId() + " waited " + timeout + ")" : "");
        GenerationRecord broken = view.record().broken(why, failed, barrier.memberId());
        if (!store.tryBreak(broken, view.version(), decisionNode())) {
            return;
        }
        barrier.recordedBreak(broken);
        if (cause == Cause.INTERRUPT) {
            throw new InterruptedException("interrupted; barrier " + barrier.name() + " generation " + broken.generation()
                    + " is now broken for every member");
        }
        throw barrier.broken(broken, 0, null);
    }

    /** Names for failed sequences: from what we read, else from the READY list; a seat nobody saw stays a number. */
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
            out.add(names.containsKey(s) ? names.get(s) + " (#" + s + ")" : "#" + s + " (vanished before anyone read its name)");
        }
        return out;
    }

    void remember(Members members) {
        members.present().values().forEach(s -> names.put(s.seq(), s.memberId()));
    }

    /** Watches each seat; false (read again now) if one is already gone. */
    boolean watchAll(Generation g, List<Seat> seats) throws InterruptedException {
        for (Seat seat : seats) {
            if (!store.watchSeat(watching, g, seat, signal)) {
                return false;
            }
        }
        return true;
    }

    /** Waits for a wake-up after {@code epoch}; the deadline passing makes the cause TIMEOUT. */
    void awaitSignal(long epoch) throws InterruptedException {
        if (async) {
            if (cause == Cause.NONE && signal.epoch() == epoch) {
                if (System.nanoTime() - deadline >= 0) {
                    cause = Cause.TIMEOUT;
                } else {
                    throw new Suspend(epoch, deadline, true);
                }
            }
            return;
        }
        if (cause == Cause.NONE && !signal.await(epoch, deadline)) {
            cause = Cause.TIMEOUT;
        }
    }

    /** No connection (or a new session coming): wait for a session event, bounded; give up past the deadline plus a session. */
    void awaitReconnect(long epoch, CoordException e) throws InterruptedException {
        long now = System.nanoTime();
        if (now - giveUp >= 0) {
            throw new ConnectionLostException("barrier " + barrier.name() + ": ZooKeeper stayed unreachable past the " + timeout
                    + " timeout and one session timeout; member " + barrier.memberId() + " cannot learn the outcome"
                    + " (its seat ends with its session)", e);
        }
        if (cause == Cause.NONE && now - deadline >= 0) {
            cause = Cause.TIMEOUT;
        }
        long until = giveUp - (now + RETRY_NANOS) < 0 ? giveUp : now + RETRY_NANOS;
        if (async) {
            if (signal.epoch() == epoch) {
                throw new Suspend(epoch, until, false);
            }
            return;
        }
        signal.await(epoch, until);
    }

    /** First interrupt: break the generation (on the next read) and report it; a second one gives up at once. */
    void interrupted(InterruptedException e) throws InterruptedException {
        Thread.interrupted(); // Curator may have set the flag again; the exception is the signal
        if (cause == Cause.INTERRUPT) {
            throw e;
        }
        cause = Cause.INTERRUPT;
    }

    /**
     * Ends the call: the wait time recorded under {@code metric} with its outcome. This call's
     * watches went with its signal's close, or were handed on to be removed later.
     */
    void finish(String metric, String outcome) {
        barrier.metrics().recordTime(metric, Duration.ofNanos(System.nanoTime() - started), "barrier", barrier.name(),
                "outcome", outcome);
    }

    static String outcome(Throwable e) {
        if (e instanceof BarrierBrokenException) {
            return "broken";
        }
        if (e instanceof InterruptedException) {
            return "interrupted";
        }
        return "failed";
    }
}
