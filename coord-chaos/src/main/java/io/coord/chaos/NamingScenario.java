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
 * coord-naming's {@code SequenceIds} and {@code BlockIds}, alternately, as fast as they answer.
 *
 * <p>Invariants, from what coord-naming promises: 0 duplicate IDs per generator; per client,
 * strictly increasing IDs from each generator; and for {@code SequenceIds} the real-time order —
 * if A was acknowledged before B was invoked (in any client), id(A) &lt; id(B). {@code BlockIds}
 * promises no order across clients, so none is checked. Nothing is stored, so nothing can be lost:
 * {@code lost} is always 0 here; an indeterminate {@code next()} may leave a gap, which is allowed.
 */
final class NamingScenario implements Scenario {
    private static final int CLIENTS = 3;
    private static final Duration STEP = Duration.ofSeconds(60);

    @Override
    public String name() {
        return "naming";
    }

    @Override
    public List<ChaosResult> run(ChaosSuite.Run run) throws InterruptedException {
        ChaosContext ctx = run.context("naming");
        Map<FaultKind, Integer> counts = new EnumMap<>(FaultKind.class);
        Profile p = run.profile();
        counts.put(FaultKind.KILL_ZK_LEADER, p.scale(1));
        counts.put(FaultKind.KILL_ZK_FOLLOWER, p.scale(1));
        counts.put(FaultKind.EXPIRE, p.scale(1));
        counts.put(FaultKind.PAUSE, p.scale(1));
        counts.put(FaultKind.CUT, p.scale(2));
        FaultPlan plan = FaultPlan.of(ctx.random(), ctx.length(), counts);
        ctx.out().println("CHAOS-PLAN naming " + plan);

        List<WorkerLink> workers = ctx.startWorkers("naming", CLIENTS);
        AtomicLong stuck = new AtomicLong();
        boolean[] stop = {false};
        List<Thread> drivers = new ArrayList<>();
        for (WorkerLink w : workers) {
            Thread t = new Thread(() -> drive(ctx, w, stop, stuck), "chaos-drive-" + w.name());
            t.setDaemon(true);
            t.start();
            drivers.add(t);
        }
        ctx.awaitFirstAck();
        FaultRunner faults = ctx.startFaults(plan, null);
        Awaits.hold(ctx.length());
        boolean finished = faults.await(ChaosContext.faultOverrun(ctx.length()));
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
            ctx.out().println("CHAOS-NOTE naming the fault schedule did not finish in time");
        }
        faults.notes().forEach(n -> ctx.out().println("CHAOS-NOTE naming " + n));
        History h = ctx.history();
        ctx.out().println("CHAOS-TIMELINE naming " + Progress.timeline(h));

        List<History.Op> ok = h.ops().stream().filter(o -> o.outcome() == History.Outcome.OK).toList();
        long dupSeq = duplicates(ok, "seq");
        long dupBlock = duplicates(ok, "block");
        long perClient = perClientRegressions(ok, "seq") + perClientRegressions(ok, "block");
        long realTime = realTimeViolations(ok, "seq");
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("seq-ids", h.counts("seq").ok());
        d.put("block-ids", h.counts("block").ok());
        d.put("indeterminate", h.counts().info() + h.counts().pending());
        d.put("duplicates", dupSeq + dupBlock);
        d.put("per-client-regressions", perClient);
        d.put("real-time-violations", realTime);
        return List.of(new ChaosResult("naming", false, ok.size(), faults.scheduled(), faults.applied(),
                dupSeq + dupBlock + perClient + realTime, 0, stuck.get(), Progress.of(h, ChaosContext.SETTLE), d));
    }

    private static void drive(ChaosContext ctx, WorkerLink w, boolean[] stop, AtomicLong stuck) {
        long n = 0;
        try {
            while (true) {
                synchronized (stop) {
                    if (stop[0]) {
                        return;
                    }
                }
                String op = (n++ % 2 == 0) ? "seq" : "block";
                History.Handle h = ctx.history().invoke(w.name(), op, null);
                w.send(op);
                Optional<String> reply = w.next(Awaits.scaled(STEP));
                if (reply.isEmpty()) {
                    h.info(new TimeoutException("no answer from " + w.name()));
                    stuck.incrementAndGet();
                    ctx.out().println("CHAOS-NOTE naming " + w.name() + " gave no answer within " + STEP.toSeconds() + " s" + w.log());
                    return;
                }
                String r = reply.get();
                if (r.startsWith("ID ")) {
                    h.ok(Long.parseLong(r.substring(3).trim()));
                } else if (r.startsWith("ERR info")) {
                    h.info(new TimeoutException(r));
                } else {
                    h.fail(new IllegalStateException(r));
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            stuck.incrementAndGet();
            ctx.out().println("CHAOS-NOTE naming driver of " + w.name() + " failed: " + e);
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
