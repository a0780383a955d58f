package io.coord.chaos;

import io.coord.test.Awaits;
import io.coord.test.ForkedEnsemble;
import io.coord.test.History;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Applies a {@link FaultPlan} on its own thread, one fault at a time, and counts the faults that
 * were really applied: a run whose count differs from the schedule fails, because a fault that was
 * skipped proves nothing. Each fault is a window in the {@link History}, from injection until it is
 * healed (member restarted and a leader serving, worker resumed, proxy listening again).
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

    private synchronized void note(String s) {
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
                WorkerLink target = pickRunning(workers, f.pick());
                Optional<WorkerLink.SessionInfo> s = target.session();
                if (s.isEmpty()) {
                    return false;
                }
                try (History.FaultWindow w = ctx.history().fault("expire " + target.name())) {
                    return SessionKiller.expire(zk.connectString(), s.get(), session, Awaits.scaled(Duration.ofSeconds(10)));
                }
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
            default -> {
                if (hook == null) {
                    throw new IllegalStateException("scenario " + ctx.name() + " scheduled " + f.kind() + " but gave no hook for it");
                }
                return hook.apply(f, Awaits.scaled(Duration.ofSeconds(60)));
            }
        }
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

    public int scheduled() {
        return plan.size();
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
