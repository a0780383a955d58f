package io.coord.chaos;

import io.coord.test.Awaits;
import io.coord.test.History;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Sequential and block IDs (RELIABILITY.md matrix, "Sequential IDs"). Client JVMs ask for IDs from
 * coord-naming's {@code SequenceIds} and {@code BlockIds}, in alternate batches, as fast as they
 * answer. The control ({@code naming-control}) asks a naive read-increment-write counter instead
 * (a plain {@code getData}, then {@code setData} without a version check): it must show duplicates.
 *
 * <p>Invariants, from what coord-naming promises: 0 duplicate IDs per generator; per client,
 * strictly increasing IDs from each generator; and for {@code SequenceIds} the real-time order —
 * if A was acknowledged before B was invoked (in any client), id(A) &lt; id(B). {@code BlockIds}
 * promises no order across clients, so none is checked. Nothing is stored, so nothing can be lost:
 * {@code lost} is always 0 here; an indeterminate {@code next()} may leave a gap, which is allowed.
 */
final class NamingScenario implements Scenario {
    private static final int CLIENTS = 8;
    private static final Duration STEP = Duration.ofSeconds(60);
    /** CI tier: IDs handed out, both generators together. */
    static final long IDS = 100_000;
    /** IDs per command: {@code SequenceIds} costs a write per ID, {@code BlockIds} one per block. */
    static final int SEQ_BATCH = 4;
    static final int BLOCK_BATCH = 40;
    private static final Duration CI_MAX = Duration.ofSeconds(180);
    private static final Duration CONTROL_MAX = Duration.ofSeconds(60);

    @Override
    public String name() {
        return "naming";
    }

    @Override
    public List<String> controls() {
        return List.of("naming-control");
    }

    @Override
    public List<ChaosResult> run(ChaosSuite.Run run) throws InterruptedException {
        ChaosContext ctx = run.context("naming");
        Map<FaultKind, Integer> counts = new EnumMap<>(FaultKind.class);
        Profile p = run.profile();
        counts.put(FaultKind.KILL_ZK_LEADER, p.faults(1, 3));
        counts.put(FaultKind.KILL_ZK_FOLLOWER, p.faults(1, 1));
        counts.put(FaultKind.EXPIRE, p.faults(1, 1));
        counts.put(FaultKind.PAUSE, p.faults(1, 1));
        counts.put(FaultKind.CUT, p.faults(2, 20));
        FaultPlan plan = FaultPlan.of(ctx.random(), ctx.length(), counts);
        ctx.out().println("CHAOS-PLAN naming " + plan);
        List<ChaosResult> results = new ArrayList<>();
        results.add(round(ctx, plan, false, p.volume(IDS), CI_MAX));
        ctx.close();
        // The control: a naive read-increment-write counter (no version check) under the first faults.
        FaultPlan control = ChaosContext.controlPlan(plan, FaultKind.CUT, 2);
        if (run.controls()) {
            results.add(round(run.context("naming-control"), control, true, 0, CONTROL_MAX));
        }
        return results;
    }

    private static ChaosResult round(ChaosContext ctx, FaultPlan plan, boolean naive, long target, Duration maxTime)
            throws InterruptedException {
        List<WorkerLink> workers = ctx.startWorkers("naming", CLIENTS);
        AtomicLong stuck = new AtomicLong();
        boolean[] stop = {false};
        List<Thread> drivers = new ArrayList<>();
        for (WorkerLink w : workers) {
            Thread t = new Thread(() -> drive(ctx, w, naive, stop, stuck), "chaos-drive-" + w.name());
            t.setDaemon(true);
            t.start();
            drivers.add(t);
        }
        ctx.awaitFirstAck();
        FaultRunner faults = ctx.startFaults(plan, null);
        boolean finished = ctx.runWorkload(faults, () -> ctx.history().counts().ok(), target, maxTime);
        synchronized (stop) {
            stop[0] = true;
        }
        for (Thread t : drivers) {
            t.join(Awaits.scaled(STEP.plusSeconds(10)).toMillis());
            if (t.isAlive()) {
                stuck.incrementAndGet();
            }
        }
        if (!finished) {
            ctx.out().println("CHAOS-NOTE " + ctx.name() + " the workload did not finish in time");
        }
        faults.notes().forEach(n -> ctx.out().println("CHAOS-NOTE " + ctx.name() + " " + n));
        History h = ctx.history();
        ctx.out().println("CHAOS-TIMELINE " + ctx.name() + " " + Progress.timeline(h));

        List<History.Op> ok = h.ops().stream().filter(o -> o.outcome() == History.Outcome.OK).toList();
        long dupSeq = duplicates(ok, "seq");
        long dupBlock = duplicates(ok, "block");
        long dupNaive = duplicates(ok, "naive");
        long perClient = perClientRegressions(ok, "seq") + perClientRegressions(ok, "block") + perClientRegressions(ok, "naive");
        long realTime = realTimeViolations(ok, "seq") + realTimeViolations(ok, "naive");
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("seq-ids", h.counts("seq").ok());
        d.put("block-ids", h.counts("block").ok());
        if (naive) {
            d.put("naive-ids", h.counts("naive").ok());
        }
        d.put("indeterminate", h.counts().info() + h.counts().pending());
        d.put("duplicates", dupSeq + dupBlock + dupNaive);
        d.put("per-client-regressions", perClient);
        d.put("real-time-violations", realTime);
        // one client paused, expired or cut off leaves seven asking; a follower kill leaves a quorum
        Progress progress = Progress.of(h, ChaosContext.SETTLE,
                w -> !w.name().startsWith("zk-") || w.name().startsWith("zk-" + FaultKind.KILL_ZK_FOLLOWER));
        return new ChaosResult(ctx.name(), naive, ok.size(), faults.scheduled(), faults.applied(),
                dupSeq + dupBlock + dupNaive + perClient + realTime, 0, stuck.get(), progress, d).withVolume(ok.size(), target);
    }

    /**
     * Drives one client: batches of {@link #SEQ_BATCH} sequence IDs and {@link #BLOCK_BATCH} block
     * IDs, alternately (or naive-counter IDs, in the control). Every ID of a batch is invoked
     * before the command goes out and completed when the answer comes: they count as concurrent.
     */
    private static void drive(ChaosContext ctx, WorkerLink w, boolean naive, boolean[] stop, AtomicLong stuck) {
        long n = 0;
        try {
            while (true) {
                synchronized (stop) {
                    if (stop[0]) {
                        return;
                    }
                }
                String op = naive ? "naive" : (n++ % 2 == 0) ? "seq" : "block";
                int batch = op.equals("block") ? BLOCK_BATCH : SEQ_BATCH;
                List<History.Handle> hs = new ArrayList<>();
                for (int i = 0; i < batch; i++) {
                    hs.add(ctx.history().invoke(w.name(), op, null));
                }
                w.send(op + " " + batch);
                Optional<String> reply = w.next(Awaits.scaled(STEP));
                if (reply.isEmpty()) {
                    hs.forEach(h -> h.info(new TimeoutException("no answer from " + w.name())));
                    stuck.incrementAndGet();
                    ctx.out().println("CHAOS-NOTE " + ctx.name() + " " + w.name() + " gave no answer within " + STEP.toSeconds() + " s"
                            + w.log());
                    return;
                }
                // IDS <id>... [ERR info|fail <exception>]: the IDs it got, then why it stopped early
                String[] f = reply.get().split(" ");
                if (!f[0].equals("IDS")) {
                    throw new IllegalStateException("expected 'IDS ...' from " + w.name() + ", got '" + reply.get() + "'");
                }
                int i = 1;
                for (; i < f.length && !f[i].equals("ERR"); i++) {
                    hs.get(i - 1).ok(Long.parseLong(f[i]));
                }
                int given = i - 1;
                if (given < batch) {
                    boolean info = i + 1 < f.length && f[i + 1].equals("info");
                    Exception e = new IllegalStateException(reply.get());
                    // the call that failed may have happened (info); the ones after it were never made
                    if (info) {
                        hs.get(given).info(new TimeoutException(reply.get()));
                    } else {
                        hs.get(given).fail(e);
                    }
                    for (int k = given + 1; k < batch; k++) {
                        hs.get(k).fail(new IllegalStateException("not asked: the batch stopped at an error"));
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            stuck.incrementAndGet();
            ctx.out().println("CHAOS-NOTE " + ctx.name() + " driver of " + w.name() + " failed: " + e);
        }
    }

    private static List<History.Op> of(List<History.Op> ok, String op) {
        return ok.stream().filter(o -> o.op().equals(op)).toList();
    }

    /** IDs handed out more than once (each extra copy counts). */
    static long duplicates(List<History.Op> ok, String op) {
        Set<Object> seen = new HashSet<>();
        long dup = 0;
        for (History.Op o : of(ok, op)) {
            if (!seen.add(o.result())) {
                dup++;
            }
        }
        return dup;
    }

    /** Per client, in invocation order, an ID not above the client's previous one. */
    static long perClientRegressions(List<History.Op> ok, String op) {
        Map<String, Long> last = new HashMap<>();
        long bad = 0;
        List<History.Op> ops = new ArrayList<>(of(ok, op));
        ops.sort(Comparator.comparingLong(History.Op::invokeNanos));
        for (History.Op o : ops) {
            long id = (Long) o.result();
            Long prev = last.put(o.process(), id);
            if (prev != null && id <= prev) {
                bad++;
            }
        }
        return bad;
    }

    /**
     * Real-time order: walking operations in invocation order, every operation acknowledged before
     * this one was invoked must have a smaller ID. O(n log n): the acks sorted by completion time
     * are swept once while tracking the largest ID among them.
     */
    static long realTimeViolations(List<History.Op> ok, String op) {
        List<History.Op> byInvoke = new ArrayList<>(of(ok, op));
        byInvoke.sort(Comparator.comparingLong(History.Op::invokeNanos));
        List<History.Op> byComplete = new ArrayList<>(byInvoke);
        byComplete.sort(Comparator.comparingLong(History.Op::completeNanos));
        long bad = 0;
        long maxDone = Long.MIN_VALUE;
        int j = 0;
        for (History.Op b : byInvoke) {
            while (j < byComplete.size() && byComplete.get(j).completeNanos() < b.invokeNanos()) {
                maxDone = Math.max(maxDone, (Long) byComplete.get(j).result());
                j++;
            }
            if ((Long) b.result() <= maxDone) {
                bad++;
            }
        }
        return bad;
    }
}
