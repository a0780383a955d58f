package io.coord.chaos;

import io.coord.CoordPath;
import io.coord.lock.Locks;
import io.coord.test.Awaits;
import io.coord.test.GuardedResource;
import io.coord.test.History;
import io.coord.test.Violations;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The fenced counter (RELIABILITY.md matrix, "Fair fenced lock"). Worker JVMs loop: take the
 * coord-lock mutex, write BEGIN with their token to a {@link GuardedResource} held here, increment
 * a counter node in ZooKeeper (fenced: {@code multi(check(lock node), setData)}), write END, release.
 *
 * <p>Invariants: the counter ends within [acknowledged, acknowledged + indeterminate] increments;
 * 0 stale tokens accepted; 0 token regressions (the tokens of successive accepted holders strictly
 * increase); 0 overlapping accepted critical sections (a
 * section is accepted when both its BEGIN and END were; two overlap when one's BEGIN comes between
 * the other's BEGIN and END at the resource); and no write refused to a worker whose lock node
 * still belonged to its live session (that would be two holders at once).
 *
 * <p>The <b>control</b> runs the same schedule with {@link GuardedResource#unfenced()} and plain
 * writes; it must show a violation. The schedule guarantees one stale write attempt per
 * {@link FaultKind#PAUSE_HOLDER}: the holder is stopped right after it was granted the lock, held
 * past its session until another worker's write was accepted, then resumed, and its first act is
 * its BEGIN with the old token.
 */
final class LockScenario implements Scenario {
    static final CoordPath LOCK = Locks.path("chaos", "counter");
    static final CoordPath COUNTER = CoordPath.of("/chaos/counter");
    private static final int WORKERS = 4;
    private static final Duration STEP = Duration.ofSeconds(30);
    /** CI tier: fenced cycles (acknowledged increments) by {@link #WORKERS} client JVMs. */
    static final long CYCLES = 2_000;
    /**
     * The most the CI tier's main run may take once its faults started; the control's. Its 24
     * faults (F7, F8, F9 and F12 among them) take about 145 s one at a time, with few cycles
     * meanwhile, and a fault-free 2-core machine does about 25 cycles/s: 2 000 cycles need about
     * 230 s (measured on a clean clone, seed in the note).
     */
    private static final Duration CI_MAX = Duration.ofSeconds(300);
    private static final Duration CONTROL_MAX = Duration.ofSeconds(60);

    @Override
    public String name() {
        return "lock";
    }

    @Override
    public List<String> controls() {
        return List.of("lock-control");
    }

    @Override
    public List<ChaosResult> run(ChaosSuite.Run run) throws InterruptedException {
        ChaosContext fenced = run.context("lock");
        Map<FaultKind, Integer> counts = new EnumMap<>(FaultKind.class);
        Profile p = run.profile();
        counts.put(FaultKind.KILL_ZK_LEADER, p.faults(1, 2));
        counts.put(FaultKind.EXPIRE, p.faults(2, 5));
        counts.put(FaultKind.PAUSE_HOLDER, p.faults(1, 3));
        counts.put(FaultKind.CUT, p.faults(2, 10));
        FaultPlan.addServerAndClockFaults(counts, p);
        FaultPlan plan = FaultPlan.of(fenced.random(), fenced.length(), counts);
        fenced.out().println("CHAOS-PLAN lock " + plan);
        List<ChaosResult> results = new ArrayList<>();
        results.add(new Round(fenced, plan, true, p.volume(CYCLES), CI_MAX).run());
        fenced.close();
        // The control: the same schedule, unfenced, up to its first paused holder (whose stale write bites).
        FaultPlan control = ChaosContext.controlPlan(plan, FaultKind.PAUSE_HOLDER, 1);
        if (run.controls()) {
            results.add(new Round(run.context("lock-control"), control, false, 0, CONTROL_MAX).run());
        }
        return results;
    }

    /** One run of the scenario: fenced, or the control. */
    private static final class Round {
        private final ChaosContext ctx;
        private final FaultPlan plan;
        private final boolean fenced;
        private final long target;
        private final Duration maxTime;
        private final GuardedResource resource;
        private final AtomicReference<CompletableFuture<Boolean>> pauseRequest = new AtomicReference<>();
        private final AtomicLong staleRejected = new AtomicLong();
        private final AtomicLong heldButRejected = new AtomicLong();
        private final AtomicLong stuck = new AtomicLong();
        private volatile boolean stop;

        // the resource's own order of accepted writes (guarded by this)
        private long seq;
        private long highestAccepted = Long.MIN_VALUE;
        private long lastBeginToken = Long.MIN_VALUE;
        private long holderRegressions;
        private final Map<String, long[]> open = new HashMap<>();
        private final List<long[]> sections = new ArrayList<>();
        // grants in the order the controller heard of them, and how soon each lost holder stopped (guarded by this)
        private final List<LockChecks.Grant> grants = new ArrayList<>();
        private final Map<String, LockChecks.Grant> holding = new HashMap<>();
        private final Map<Long, Long> holdEnded = new HashMap<>();
        private final Map<Long, Long> lostAt = new HashMap<>();
        private final List<long[]> resumedHolders = new ArrayList<>(); // {token, resumeNanos}

        Round(ChaosContext ctx, FaultPlan plan, boolean fenced, long target, Duration maxTime) {
            this.ctx = ctx;
            this.plan = plan;
            this.fenced = fenced;
            this.target = target;
            this.maxTime = maxTime;
            this.resource = fenced ? GuardedResource.fenced() : GuardedResource.unfenced();
        }

        ChaosResult run() throws InterruptedException {
            try {
                ctx.client().curator().create().creatingParentsIfNeeded().forPath(COUNTER.value(), "0".getBytes(StandardCharsets.UTF_8));
            } catch (InterruptedException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException("could not create the counter " + COUNTER + " in " + ctx.namespace(), e);
            }
            ctx.prepareFaults(plan);
            List<WorkerLink> workers = ctx.startWorkers("lock", WORKERS, fenced ? "fenced" : "unfenced");
            List<Thread> drivers = new ArrayList<>();
            for (WorkerLink w : workers) {
                Thread t = new Thread(() -> drive(w), "chaos-drive-" + ctx.name() + "-" + w.name());
                t.setDaemon(true);
                t.start();
                drivers.add(t);
            }
            ctx.awaitFirstAck();
            FaultRunner faults = ctx.startFaults(plan, this::pauseHolder);
            boolean finished = ctx.runWorkload(faults, () -> ctx.history().counts("incr").ok(), target, maxTime);
            stop = true;
            for (Thread t : drivers) {
                t.join(Awaits.scaled(Duration.ofSeconds(60)).toMillis());
                if (t.isAlive()) {
                    stuck.incrementAndGet();
                }
            }
            if (!finished) {
                ctx.out().println("CHAOS-NOTE " + ctx.name() + " the fault schedule did not finish in time");
            }
            faults.notes().forEach(n -> ctx.out().println("CHAOS-NOTE " + ctx.name() + " " + n));
            return check(faults);
        }

        private ChaosResult check(FaultRunner faults) throws InterruptedException {
            long counter;
            try {
                counter = Long.parseLong(new String(ctx.client().curator().getData().forPath(COUNTER.value()), StandardCharsets.UTF_8));
            } catch (InterruptedException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException("could not read the final counter in " + ctx.namespace(), e);
            }
            History h = ctx.history();
            ctx.out().println("CHAOS-TIMELINE " + ctx.name() + " " + Progress.timeline(h));
            History.CounterCheck cc = h.checkCounter("incr", counter);
            long invented = Math.max(0, counter - cc.acknowledged() - cc.indeterminate());
            long overlaps = overlaps() + heldButRejected.get();
            Violations v = resource.violations().plus(new Violations(0, overlaps, 0, 0));
            long regressions;
            synchronized (this) {
                regressions = holderRegressions;
            }
            Duration stopBound = Awaits.scaled(ctx.negotiatedSession().plusSeconds(1));
            LockChecks.Fifo fifo;
            LockChecks.Stops stops;
            synchronized (this) {
                fifo = LockChecks.fifo(grants, h.windows());
                stops = LockChecks.stops(h.windows(), grants, holdEnded, lostAt, resumedHolders, stopBound.toNanos());
            }
            fifo.overtakes().forEach(o -> ctx.out().println("CHAOS-NOTE " + ctx.name() + " FIFO overtake: " + o));
            stops.late().forEach(o -> ctx.out().println("CHAOS-NOTE " + ctx.name() + " lost holder stopped late: " + o));
            long violations = v.total() + invented + regressions + fifo.overtakes().size() + stops.late().size();
            Map<String, Object> d = new LinkedHashMap<>();
            d.put("counter", counter);
            d.put("acked", cc.acknowledged());
            d.put("indeterminate", cc.indeterminate());
            d.put("stale-accepted", v.staleWrites());
            d.put("stale-rejected", staleRejected.get());
            d.put("overlaps", overlaps);
            d.put("token-regressions", v.tokenRegressions() + regressions);
            d.put("accepted-writes", resource.acceptedWrites());
            d.put("fifo-grants-checked", fifo.checked());
            d.put("fifo-overtakes", (long) fifo.overtakes().size());
            d.put("lost-holders-timed", stops.timed());
            d.put("lost-holders-late", (long) stops.late().size());
            d.put("slowest-stop-ms", stops.slowestNanos() / 1_000_000);
            d.put("stop-bound-ms", stopBound.toMillis());
            // No fault window is one a mutex rides out at half speed: a cut-off of the holder stalls every
            // waiter until it is back (measured: 13.7/s inside against 52/s warm-up under CI's loaded pass),
            // so the floor holds outside the windows only.
            Progress progress = Progress.of(h, ChaosContext.SETTLE, w -> false);
            return new ChaosResult(ctx.name(), !fenced, cc.acknowledged(), faults.scheduled(), faults.applied(), violations, cc.lost(),
                    stuck.get(), progress, d).withVolume(cc.acknowledged(), target);
        }

        /** Drives one worker, cycle after cycle, until told to stop or the worker stops answering. */
        private void drive(WorkerLink w) {
            try {
                while (!stop) {
                    long asked = System.nanoTime();
                    History.Handle acquire = ctx.history().invoke(w.name(), "acquire", null);
                    w.send("cycle");
                    String held = read(w, acquire);
                    if (held == null) {
                        return;
                    }
                    if (held.startsWith("ERR ")) {
                        if (held.startsWith("ERR info")) {
                            acquire.info(new TimeoutException(held));
                        } else {
                            acquire.fail(new IllegalStateException(held));
                        }
                        continue;
                    }
                    long token = Long.parseLong(field(held, "HELD", 1));
                    acquire.ok(token);
                    granted(w.name(), token, asked);
                    CompletableFuture<Boolean> request = pauseRequest.getAndSet(null);
                    if (request != null) {
                        request.complete(pauseWhileHolding(w, token));
                    }
                    w.send("go");
                    String begin = read(w, null);
                    if (begin == null) {
                        return;
                    }
                    long t = Long.parseLong(field(begin, "BEGIN", 1));
                    if (begin(w.name(), t)) {
                        History.Handle incr = ctx.history().invoke(w.name(), "incr", t);
                        w.send("ACCEPTED");
                        String r = read(w, incr);
                        if (r == null) {
                            return;
                        }
                        String[] p = r.split(" ");
                        switch (p[1]) {
                            case "ok" -> incr.ok(Long.parseLong(p[2]));
                            case "info" -> incr.info(new TimeoutException(r));
                            default -> incr.fail(new IllegalStateException(r));
                        }
                        String end = read(w, null);
                        if (end == null) {
                            return;
                        }
                        w.send(end(w.name(), Long.parseLong(field(end, "END", 1))) ? "ACCEPTED" : "REJECTED");
                    } else {
                        staleRejected.incrementAndGet();
                        w.send("REJECTED");
                        String check = read(w, null);
                        if (check == null) {
                            return;
                        }
                        if (field(check, "HELD-CHECK", 1).equals("yes")) {
                            heldButRejected.incrementAndGet();
                            ctx.out().println("CHAOS-NOTE " + ctx.name() + " " + w.name() + " was refused with token " + t
                                    + " while its lock node was still its own");
                        }
                    }
                    if (read(w, null) == null) { // DONE
                        return;
                    }
                    released(w.name());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException e) {
                stuck.incrementAndGet();
                ctx.out().println("CHAOS-NOTE " + ctx.name() + " driver of " + w.name() + " failed: " + e + w.log());
            }
        }

        /** The worker's next line, or null (and the run is marked stuck) if none came within the bound. */
        private String read(WorkerLink w, History.Handle pending) throws InterruptedException {
            Optional<String> line = w.next(Awaits.scaled(STEP));
            while (line.isPresent() && line.get().startsWith("LOST ")) {
                lost(Long.parseLong(line.get().substring(5).trim()));
                line = w.next(Awaits.scaled(STEP));
            }
            if (line.isEmpty()) {
                if (pending != null) {
                    pending.info(new TimeoutException("no answer from " + w.name()));
                }
                if (!stop || w.isAlive()) {
                    stuck.incrementAndGet();
                    ctx.out().println("CHAOS-NOTE " + ctx.name() + " " + w.name() + " gave no answer within " + STEP.toSeconds() + " s" + w.log());
                }
                return null;
            }
            return line.get();
        }

        private static String field(String line, String tag, int index) {
            String[] p = line.split(" ");
            if (!p[0].equals(tag) || p.length <= index) {
                throw new IllegalStateException("expected '" + tag + " ...' from the worker, got '" + line + "'");
            }
            return p[index];
        }

        private synchronized void granted(String worker, long token, long askedNanos) {
            LockChecks.Grant g = new LockChecks.Grant(worker, token, askedNanos, System.nanoTime());
            grants.add(g);
            holding.put(worker, g);
        }

        private synchronized void released(String worker) {
            LockChecks.Grant g = holding.remove(worker);
            if (g != null) {
                holdEnded.put(g.token(), System.nanoTime());
            }
        }

        private synchronized void lost(long token) {
            lostAt.putIfAbsent(token, System.nanoTime());
        }

        private synchronized boolean begin(String worker, long token) {
            boolean accepted = resource.write(token);
            if (accepted) {
                // successive holders' tokens strictly increase: an equal one would be one lease granted twice
                if (token <= lastBeginToken) {
                    holderRegressions++;
                }
                lastBeginToken = token;
                highestAccepted = Math.max(highestAccepted, token);
                open.put(worker, new long[] {seq++, 0});
            }
            return accepted;
        }

        private synchronized boolean end(String worker, long token) {
            boolean accepted = resource.write(token);
            long[] section = open.remove(worker);
            if (accepted && section != null) {
                section[1] = seq++;
                sections.add(section);
            }
            return accepted;
        }

        /** Accepted sections (BEGIN and END both accepted) that overlap another one at the resource. */
        private synchronized long overlaps() {
            List<long[]> s = new ArrayList<>(sections);
            s.sort((a, b) -> Long.compare(a[0], b[0]));
            long count = 0;
            long lastEnd = Long.MIN_VALUE;
            for (long[] x : s) {
                if (x[0] < lastEnd) {
                    count++;
                }
                lastEnd = Math.max(lastEnd, x[1]);
            }
            return count;
        }

        private synchronized long highestAccepted() {
            return highestAccepted;
        }

        /** Hook for {@link FaultKind#PAUSE_HOLDER}: the next worker granted the lock is paused by its driver. */
        private boolean pauseHolder(FaultPlan.Fault fault, Duration bound) throws InterruptedException {
            if (fault.kind() != FaultKind.PAUSE_HOLDER) {
                throw new IllegalStateException("the lock scenario cannot apply " + fault.kind());
            }
            CompletableFuture<Boolean> done = new CompletableFuture<>();
            pauseRequest.set(done);
            try {
                return done.get(bound.toMillis(), TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                pauseRequest.compareAndSet(done, null);
                return done.getNow(false);
            } catch (java.util.concurrent.ExecutionException e) {
                return false;
            }
        }

        /**
         * SIGSTOP of {@code w} right after it was granted {@code token}, for the pause length and
         * then until another holder's write was accepted (so its next write is surely stale).
         */
        private boolean pauseWhileHolding(WorkerLink w, long token) throws InterruptedException {
            try (History.FaultWindow window = ctx.history().fault("pause-holder " + w.name())) {
                w.pause();
                try {
                    Awaits.hold(ctx.pauseLength());
                    long deadline = System.nanoTime() + Awaits.scaled(Duration.ofSeconds(20)).toNanos();
                    while (highestAccepted() <= token && System.nanoTime() < deadline) {
                        Thread.sleep(20);
                    }
                    return highestAccepted() > token;
                } finally {
                    w.resume();
                    synchronized (this) {
                        resumedHolders.add(new long[] {token, System.nanoTime()});
                    }
                }
            }
        }
    }
}
