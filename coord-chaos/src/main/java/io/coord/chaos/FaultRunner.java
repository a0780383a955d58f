package io.coord.chaos;

import io.coord.test.Awaits;
import io.coord.test.Faults;
import io.coord.test.ForkedEnsemble;
import io.coord.test.History;
import io.coord.test.SteppedClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Applies a {@link FaultPlan} on its own thread, one fault at a time, and counts the faults that
 * were really applied: a run whose count differs from the schedule fails, because a fault that was
 * skipped proves nothing. Each fault is a window in the {@link History}, from injection until it is
 * healed (member restarted or resumed and a leader serving, links between members restored,
 * worker resumed, proxy listening again, a stepped clock back to real time).
 */
public final class FaultRunner implements AutoCloseable {
    /** The scenario's part: faults aimed at a role only it knows (lock holder, leader). */
    @FunctionalInterface
    public interface Hook {
        /**
         * Applies {@code fault} (opening and closing its window in the history) and returns whether
         * it was applied; waits at most {@code bound}.
         */
        boolean apply(FaultPlan.Fault fault, Duration bound) throws InterruptedException;
    }

    private final ChaosContext ctx;
    private final FaultPlan plan;
    private final Hook hook;
    private final AtomicInteger applied = new AtomicInteger();
    private final List<String> notes = new ArrayList<>();
    private final Thread thread;
    private volatile boolean stop;
    private volatile boolean done;

    FaultRunner(ChaosContext ctx, FaultPlan plan, Hook hook) {
        this.ctx = ctx;
        this.plan = plan;
        this.hook = hook;
        this.thread = new Thread(this::runAll, "chaos-faults-" + ctx.name());
        thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    private void runAll() {
        long start = System.nanoTime();
        long earliest = start;
        try {
            for (FaultPlan.Fault f : plan.faults()) {
                if (skipped(f)) {
                    continue;
                }
                long at = Math.max(start + f.atMillis() * 1_000_000, earliest);
                while (!stop && System.nanoTime() < at) {
                    Thread.sleep(Math.max(1, Math.min(100, (at - System.nanoTime()) / 1_000_000)));
                }
                if (stop) {
                    return;
                }
                boolean ok;
                try {
                    ok = apply(f);
                } catch (RuntimeException | AssertionError e) {
                    ok = false;
                    note(f + " failed: " + e);
                }
                if (ok) {
                    applied.incrementAndGet();
                } else {
                    note(f + " not applied");
                }
                ctx.out().println("CHAOS-FAULT " + ctx.name() + " " + f.kind() + (ok ? " applied" : " NOT applied")
                        + String.format(" at %.1fs", (System.nanoTime() - start) / 1e9));
                earliest = System.nanoTime() + FaultPlan.MIN_GAP.toNanos();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            done = true;
        }
    }

    /** Records why a fault was not applied (printed as CHAOS-NOTE, carried by a short result). */
    synchronized void note(String s) {
        notes.add(s);
    }

    synchronized List<String> notes() {
        return List.copyOf(notes);
    }

    private boolean apply(FaultPlan.Fault f) throws InterruptedException {
        ForkedEnsemble zk = ctx.ensemble();
        Duration session = ctx.negotiatedSession();
        List<WorkerLink> workers = ctx.workers();
        switch (f.kind()) {
            case KILL_ZK_LEADER, KILL_ZK_FOLLOWER -> {
                int leader = zk.awaitLeader(Awaits.scaled(Duration.ofSeconds(30)).toMillis());
                int victim = leader;
                if (f.kind() == FaultKind.KILL_ZK_FOLLOWER) {
                    List<Integer> followers = new ArrayList<>();
                    for (int i = 0; i < zk.size(); i++) {
                        if (i != leader) {
                            followers.add(i);
                        }
                    }
                    victim = followers.get(f.pick() % followers.size());
                }
                try (History.FaultWindow w = ctx.history().fault("zk-" + f.kind() + " member " + victim)) {
                    zk.kill9(victim);
                    Awaits.hold(Duration.ofSeconds(1));
                    zk.restart(victim);
                    zk.awaitLeader(Awaits.scaled(Duration.ofSeconds(60)).toMillis());
                    final int v = victim;
                    Awaits.until("member " + v + " serving again", Duration.ofSeconds(60), () -> zk.mode(v).isPresent());
                }
                return true;
            }
            case EXPIRE -> {
                return expire(zk, workers, f.pick(), session);
            }
            case PAUSE -> {
                WorkerLink target = pickRunning(workers, f.pick());
                try (History.FaultWindow w = ctx.history().fault("pause " + target.name())) {
                    target.pause();
                    try {
                        Awaits.hold(ctx.pauseLength());
                    } finally {
                        target.resume();
                    }
                }
                return true;
            }
            case CUT -> {
                WorkerLink target = pickRunning(workers, f.pick());
                try (History.FaultWindow w = ctx.history().fault("cut " + target.name())) {
                    target.proxy().refuse();
                    try {
                        Awaits.hold(Duration.ofSeconds(1));
                    } finally {
                        target.proxy().accept();
                    }
                }
                return true;
            }
            case PAUSE_ZK_LEADER -> {
                return pauseZkLeader(zk);
            }
            case LOSE_QUORUM -> {
                return loseQuorum(zk, session);
            }
            case PARTITION_ZK -> {
                return partition(zk, f.pick());
            }
            case CLOCK_STEP -> {
                return stepClock(f.pick(), session);
            }
            default -> {
                if (hook == null) {
                    throw new IllegalStateException("scenario " + ctx.name() + " scheduled " + f.kind() + " but gave no hook for it");
                }
                return hook.apply(f, Awaits.scaled(Duration.ofSeconds(60)));
            }
        }
    }

    /**
     * F2: expires the session of the running worker {@code pick} points at. A worker just back from
     * another fault (a pause past its session) may not have reported its new session yet, so the
     * server no longer knows the one it reported and joining it fails: then the next running worker
     * is tried, within a bound, so the fault lands on a live session instead of being skipped.
     */
    private boolean expire(ForkedEnsemble zk, List<WorkerLink> workers, int pick, Duration session) throws InterruptedException {
        long deadline = System.nanoTime() + Awaits.scaled(Duration.ofSeconds(20)).toNanos();
        for (int attempt = 0; ; attempt++) {
            WorkerLink target = pickRunning(workers, pick + attempt);
            Optional<WorkerLink.SessionInfo> s = target.session();
            if (s.isEmpty()) {
                note("EXPIRE: " + target.name() + " has reported no session yet");
            } else {
                try (History.FaultWindow w = ctx.history().fault("expire " + target.name())) {
                    if (SessionKiller.expire(zk.connectString(), s.get(), session, Awaits.scaled(Duration.ofSeconds(10)))) {
                        return true;
                    }
                }
                note("EXPIRE: could not join " + target.name() + "'s session 0x" + Long.toHexString(s.get().id())
                        + " (already ended, or no answer)");
            }
            if (System.nanoTime() >= deadline) {
                return false;
            }
            Thread.sleep(200); // the next worker, or the same one once it has reported its new session
        }
    }

    /**
     * F7: SIGSTOP of the leader until the others elected a new one (at least 3x syncLimit x
     * tickTime, so the followers surely gave up on it), then SIGCONT and wait until it serves again.
     */
    private boolean pauseZkLeader(ForkedEnsemble zk) {
        int leader = zk.awaitLeader(Awaits.scaled(Duration.ofSeconds(30)).toMillis());
        boolean elected;
        try (History.FaultWindow w = ctx.history().fault("zk-PAUSE_ZK_LEADER member " + leader)) {
            zk.pause(leader);
            try {
                Awaits.hold(ForkedEnsemble.SYNC_LIMIT.multipliedBy(3));
                elected = awaitQuietly(Duration.ofSeconds(30), () -> zk.leaderIndex().filter(l -> l != leader).isPresent());
                if (!elected) {
                    note("PAUSE_ZK_LEADER: no new leader while member " + leader + " was stopped");
                }
            } finally {
                zk.resume(leader);
            }
            awaitServing(zk);
        }
        return elected;
    }

    /**
     * F8: 2 of the 3 members stopped (SIGSTOP) for 2.5x the session timeout, then resumed. The window stays
     * open one session timeout after the restore: a leader elected then re-times the old sessions
     * from the restore, so their ephemerals (a lock node, a leader's node) block the recipes that
     * long, as part of this fault.
     */
    private boolean loseQuorum(ForkedEnsemble zk, Duration session) {
        List<Integer> all = java.util.stream.IntStream.range(0, zk.size()).boxed().toList();
        try (History.FaultWindow w = ctx.history().fault("zk-LOSE_QUORUM")) {
            try {
                List<Integer> stopped = Faults.loseQuorum(zk);
                note("LOSE_QUORUM: members " + stopped + " stopped");
                Awaits.hold(ctx.pauseLength());
            } finally {
                Faults.restore(zk, all);
            }
            Awaits.hold(session);
        }
        return true;
    }

    /**
     * F9: one member cut off from the other two for 2.5x the session timeout, then healed. Applied
     * only if the majority elected a leader and the cut-off member stopped serving meanwhile
     * (clients of that member then move to the majority).
     */
    private boolean partition(ForkedEnsemble zk, int pick) {
        int leader = zk.awaitLeader(Awaits.scaled(Duration.ofSeconds(30)).toMillis());
        int victim = leader;
        if (pick % 2 == 1) {
            List<Integer> followers = java.util.stream.IntStream.range(0, zk.size()).filter(i -> i != leader).boxed().toList();
            victim = followers.get((pick / 2) % followers.size());
        }
        final int v = victim;
        boolean effective;
        try (History.FaultWindow w = ctx.history().fault("zk-PARTITION_ZK member " + v + (v == leader ? " (leader)" : ""))) {
            long start = System.nanoTime();
            zk.isolate(v);
            try {
                effective = awaitQuietly(Duration.ofSeconds(30), () -> zk.mode(v).isEmpty()
                        && java.util.stream.IntStream.range(0, zk.size()).anyMatch(i -> i != v && zk.mode(i).filter("leader"::equals).isPresent()));
                if (!effective) {
                    note("PARTITION_ZK: member " + v + " still serving or no leader among the others");
                }
                Duration left = ctx.pauseLength().minusNanos(System.nanoTime() - start);
                Awaits.hold(left.isNegative() ? Duration.ZERO : left);
            } finally {
                zk.heal();
            }
            awaitServing(zk);
        }
        return effective;
    }

    /**
     * F12: the clock worker is cut off from the ensemble (black hole) until surely SUSPENDED,
     * then its wall clock steps by hours while it waits out its session, then the link comes back
     * and, a second later, its clock returns to real time.
     */
    private boolean stepClock(int pick, Duration session) {
        Optional<WorkerLink> target = ctx.clockWorker();
        if (target.isEmpty() || !target.get().isAlive() || target.get().isPaused()) {
            note("CLOCK_STEP: no running worker on a stepped clock");
            return false;
        }
        WorkerLink t = target.get();
        SteppedClock clock = ctx.clock();
        Duration step = Duration.ofHours((1 + (pick / 2) % 3) * (pick % 2 == 0 ? 1 : -1));
        try (History.FaultWindow w = ctx.history().fault("clock-step " + t.name() + " " + (step.isNegative() ? "" : "+") + step.toHours() + "h")) {
            long start = System.nanoTime();
            t.proxy().freeze();
            try {
                Awaits.hold(session); // Curator notes SUSPENDED (by its wall clock) after 2/3 of the session
                clock.set(step);
                Duration left = ctx.pauseLength().minusNanos(System.nanoTime() - start);
                Awaits.hold(left.isNegative() ? Duration.ZERO : left);
            } finally {
                t.proxy().unfreeze();
            }
            Awaits.hold(SteppedClock.LAG);
            clock.set(Duration.ZERO);
            Awaits.hold(SteppedClock.LAG);
        }
        return true;
    }

    private static boolean awaitQuietly(Duration bound, java.util.function.BooleanSupplier condition) {
        try {
            Awaits.until("a fault to take effect", bound, condition);
            return true;
        } catch (AssertionError e) {
            return false;
        }
    }

    private static void awaitServing(ForkedEnsemble zk) {
        zk.awaitLeader(Awaits.scaled(Duration.ofSeconds(60)).toMillis());
        for (int i = 0; i < zk.size(); i++) {
            final int m = i;
            Awaits.until("member " + m + " serving again", Duration.ofSeconds(60), () -> zk.mode(m).isPresent());
        }
    }

    /** A scheduled fault this run cannot apply for want of a tool (F12 without libfaketime): neither scheduled nor applied. */
    private boolean skipped(FaultPlan.Fault f) {
        return f.kind().needsSteppedClock() && ctx.clockWorker().isEmpty();
    }

    /** The worker {@code pick} points at, skipping paused or dead ones. */
    private static WorkerLink pickRunning(List<WorkerLink> workers, int pick) {
        for (int i = 0; i < workers.size(); i++) {
            WorkerLink w = workers.get((pick + i) % workers.size());
            if (w.isAlive() && !w.isPaused()) {
                return w;
            }
        }
        throw new IllegalStateException("no running worker to aim a fault at");
    }

    /** The faults of the plan this run can apply (F12 needs libfaketime). */
    public int scheduled() {
        return (int) plan.faults().stream().filter(f -> !skipped(f)).count();
    }

    public int applied() {
        return applied.get();
    }

    public boolean isDone() {
        return done;
    }

    /** Waits (at most {@code bound}) for the schedule to finish; false if it did not. */
    public boolean await(Duration bound) throws InterruptedException {
        thread.join(Math.max(1, bound.toMillis()));
        return done;
    }

    /** Stops applying faults (one in progress is healed first, by its own finally). */
    @Override
    public void close() {
        stop = true;
        try {
            thread.join(Awaits.scaled(Duration.ofSeconds(90)).toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
