package io.coord.chaos;

import io.coord.test.Awaits;
import io.coord.test.GuardedResource;
import io.coord.test.History;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Leader election (RELIABILITY.md matrix, "Leader election"). Candidate JVMs run coord-election's
 * {@code lead} with requeue; a leader writes to a fenced {@link GuardedResource} held here with its
 * epoch (the czxid of its candidate node) every 20 ms.
 *
 * <p>Invariants: every epoch's accepted writes come from one candidate; accepted epochs never go
 * back (no token regression, no stale write accepted); no write is refused to a candidate whose
 * node still belongs to its live session (that would be two leaders); and the leaderless gap —
 * the longest time without an accepted write, not counting time while an ensemble member is down —
 * stays within the negotiated session timeout + 3 s.
 *
 * <p>{@link FaultKind#PAUSE_LEADER} stops the candidate that wrote last for 2.5x its session, and
 * resumes it only once a newer epoch's write was accepted: the old leader wakes up stale.
 */
final class ElectionScenario implements Scenario {
    private static final int CANDIDATES = 5;
    /** CI tier: leader changes (accepted epochs after the first). */
    static final long CHANGES = 200;
    /** A leader resigns after this many accepted writes (about 250 ms), so leadership moves on its own too. */
    static final int TERM_WRITES = 10;
    private static final Duration CI_MAX = Duration.ofSeconds(180);
    private static final Duration CONTROL_MAX = Duration.ofSeconds(60);

    @Override
    public String name() {
        return "election";
    }

    @Override
    public List<String> controls() {
        return List.of("election-control");
    }

    @Override
    public List<ChaosResult> run(ChaosSuite.Run run) throws InterruptedException {
        ChaosContext ctx = run.context("election");
        Map<FaultKind, Integer> counts = new EnumMap<>(FaultKind.class);
        Profile p = run.profile();
        counts.put(FaultKind.PAUSE_LEADER, p.faults(2, 10));
        counts.put(FaultKind.KILL_ZK_LEADER, p.faults(1, 3));
        counts.put(FaultKind.EXPIRE, p.faults(1, 2));
        counts.put(FaultKind.CUT, p.faults(1, 2));
        FaultPlan.addServerAndClockFaults(counts, p);
        FaultPlan plan = FaultPlan.of(ctx.random(), ctx.length(), counts);
        ctx.out().println("CHAOS-PLAN election " + plan);
        List<ChaosResult> results = new ArrayList<>();
        results.add(new Round(ctx, plan, true, p.volume(CHANGES), CI_MAX).run());
        ctx.close();
        // The control: no epoch fencing (the resource accepts any epoch, the leader never checks its
        // lease), up to the second paused leader, which wakes up and writes with its old epoch.
        FaultPlan control = ChaosContext.controlPlan(plan, FaultKind.PAUSE_LEADER, 2);
        if (run.controls()) {
            results.add(new Round(run.context("election-control"), control, false, 0, CONTROL_MAX).run());
        }
        return results;
    }

    private static final class Round {
        private final ChaosContext ctx;
        private final FaultPlan plan;
        private final boolean fenced;
        private final long target;
        private final Duration maxTime;
        private final GuardedResource resource;
        private final AtomicLong twoLeaders = new AtomicLong();
        private final AtomicLong staleRejected = new AtomicLong();
        private final AtomicLong leaderships = new AtomicLong();
        private final AtomicLong stuck = new AtomicLong();
        private volatile boolean stop;

        // guarded by this
        private final Map<Long, String> epochOwner = new HashMap<>();
        private long epochConflicts;
        private final List<Long> acceptTimes = new ArrayList<>();
        private long lastEpoch = Long.MIN_VALUE;
        private String lastWriter;

        Round(ChaosContext ctx, FaultPlan plan, boolean fenced, long target, Duration maxTime) {
            this.ctx = ctx;
            this.plan = plan;
            this.fenced = fenced;
            this.target = target;
            this.maxTime = maxTime;
            this.resource = fenced ? GuardedResource.fenced() : GuardedResource.unfenced();
        }

        ChaosResult run() throws InterruptedException {
            ctx.prepareFaults(plan);
            List<WorkerLink> workers = ctx.startWorkers("election", CANDIDATES, fenced ? "fenced" : "unfenced",
                    Integer.toString(TERM_WRITES));
            List<Thread> drivers = new ArrayList<>();
            for (WorkerLink w : workers) {
                Thread t = new Thread(() -> serve(w), "chaos-serve-" + w.name());
                t.setDaemon(true);
                t.start();
                drivers.add(t);
            }
            ctx.awaitFirstAck();
            FaultRunner faults = ctx.startFaults(plan, this::pauseLeader);
            boolean finished = ctx.runWorkload(faults, () -> Math.max(0, epochCount() - 1), target, maxTime);
            // the gap after the last fault counts too: measure up to now
            long end = System.nanoTime();
            stop = true;
            for (Thread t : drivers) {
                t.join(Awaits.scaled(Duration.ofSeconds(10)).toMillis());
            }
            if (!finished) {
                ctx.out().println("CHAOS-NOTE " + ctx.name() + " the workload did not finish in time");
            }
            faults.notes().forEach(n -> ctx.out().println("CHAOS-NOTE " + ctx.name() + " " + n));
            return check(faults, end);
        }

        private ChaosResult check(FaultRunner faults, long end) {
            History h = ctx.history();
            ctx.out().println("CHAOS-TIMELINE " + ctx.name() + " " + Progress.timeline(h));
            long gapNanos = longestGap(end);
            Duration bound = Awaits.scaled(ctx.negotiatedSession().plusSeconds(3));
            long gapViolations = gapNanos > bound.toNanos() ? 1 : 0;
            var v = resource.violations();
            long conflicts;
            synchronized (this) {
                conflicts = epochConflicts;
            }
            long violations = v.total() + conflicts + twoLeaders.get() + gapViolations;
            Map<String, Object> d = new LinkedHashMap<>();
            d.put("leader-changes", Math.max(0, epochCount() - 1));
            d.put("leaderships", leaderships.get());
            d.put("epochs", epochCount());
            d.put("epoch-conflicts", conflicts);
            d.put("two-leaders", twoLeaders.get());
            d.put("stale-accepted", v.staleWrites());
            d.put("stale-rejected", staleRejected.get());
            d.put("token-regressions", v.tokenRegressions());
            d.put("longest-gap-ms", gapNanos / 1_000_000);
            d.put("gap-bound-ms", bound.toMillis());
            return new ChaosResult(ctx.name(), !fenced, resource.acceptedWrites(), faults.scheduled(), faults.applied(), violations, 0,
                    stuck.get(), Progress.of(h, ChaosContext.SETTLE), d).withVolume(Math.max(0, epochCount() - 1), target);
        }

        private synchronized int epochCount() {
            return epochOwner.size();
        }

        private synchronized String lastWriter() {
            return lastWriter;
        }

        /** Longest time between accepted writes (and from the last one to {@code end}), minus ensemble-fault time. */
        private long longestGap(long end) {
            List<Long> times;
            synchronized (this) {
                times = new ArrayList<>(acceptTimes);
            }
            times.add(end);
            List<History.Window> zk = ctx.history().windows().stream().filter(w -> w.name().startsWith("zk-")).toList();
            long longest = 0;
            for (int i = 1; i < times.size(); i++) {
                long a = times.get(i - 1);
                long b = times.get(i);
                long excluded = 0;
                for (History.Window w : zk) {
                    excluded += Math.max(0, Math.min(b, w.endNanos()) - Math.max(a, w.startNanos()));
                }
                longest = Math.max(longest, b - a - excluded);
            }
            return longest;
        }

        /** Answers one candidate's writes until the run stops. */
        private void serve(WorkerLink w) {
            try {
                while (!stop) {
                    Optional<String> line = w.next(Duration.ofMillis(200));
                    if (line.isEmpty()) {
                        if (!w.isAlive() && !stop) {
                            stuck.incrementAndGet();
                            ctx.out().println("CHAOS-NOTE election " + w.name() + " died" + w.log());
                            return;
                        }
                        continue;
                    }
                    String[] p = line.get().split(" ");
                    switch (p[0]) {
                        case "LEADING" -> leaderships.incrementAndGet();
                        case "WRITE" -> {
                            long epoch = Long.parseLong(p[1]);
                            History.Handle op = ctx.history().invoke(w.name(), "write", epoch);
                            if (write(w.name(), epoch)) {
                                op.ok(epoch);
                                w.send("ACCEPTED " + p[2]);
                            } else {
                                op.fail(new IllegalStateException("stale epoch " + epoch));
                                staleRejected.incrementAndGet();
                                w.send("REJECTED " + p[2]);
                            }
                        }
                        case "HELD-CHECK" -> {
                            if (p[1].equals("yes")) {
                                twoLeaders.incrementAndGet();
                                ctx.out().println("CHAOS-NOTE election " + w.name() + " was refused while its node was still its own");
                            }
                        }
                        default -> {
                            stuck.incrementAndGet();
                            ctx.out().println("CHAOS-NOTE election unexpected line from " + w.name() + ": " + line.get());
                        }
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException e) {
                stuck.incrementAndGet();
                ctx.out().println("CHAOS-NOTE election server of " + w.name() + " failed: " + e);
            }
        }

        private synchronized boolean write(String worker, long epoch) {
            boolean accepted = resource.write(epoch);
            if (accepted) {
                String owner = epochOwner.putIfAbsent(epoch, worker);
                if (owner != null && !owner.equals(worker)) {
                    epochConflicts++;
                }
                acceptTimes.add(System.nanoTime());
                lastEpoch = Math.max(lastEpoch, epoch);
                lastWriter = worker;
            }
            return accepted;
        }

        private synchronized long lastEpoch() {
            return lastEpoch;
        }

        /** Hook for {@link FaultKind#PAUSE_LEADER}: stops the last writer until a newer epoch writes. */
        private boolean pauseLeader(FaultPlan.Fault fault, Duration bound) throws InterruptedException {
            if (fault.kind() != FaultKind.PAUSE_LEADER) {
                throw new IllegalStateException("the election scenario cannot apply " + fault.kind());
            }
            String leader = lastWriter();
            long epoch = lastEpoch();
            WorkerLink target = ctx.workers().stream().filter(w -> w.name().equals(leader)).findFirst().orElse(null);
            if (target == null || target.isPaused() || !target.isAlive()) {
                ctx.noteFault("PAUSE_LEADER: the last writer " + leader + " is not running");
                return false;
            }
            try (History.FaultWindow window = ctx.history().fault("pause-leader " + target.name())) {
                target.pause();
                try {
                    Awaits.hold(ctx.pauseLength());
                    long deadline = System.nanoTime() + Awaits.scaled(Duration.ofSeconds(20)).toNanos();
                    while (lastEpoch() <= epoch && System.nanoTime() < deadline) {
                        Thread.sleep(20);
                    }
                    if (lastEpoch() <= epoch) {
                        ctx.noteFault("PAUSE_LEADER: no epoch after " + epoch + " while "
                                + target.name() + " was stopped");
                    }
                    return lastEpoch() > epoch;
                } finally {
                    target.resume();
                }
            }
        }
    }
}
