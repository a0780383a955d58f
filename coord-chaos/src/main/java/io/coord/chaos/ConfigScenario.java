package io.coord.chaos;

import io.coord.ConnectionLostException;
import io.coord.CoordClient;
import io.coord.CoordTimeoutException;
import io.coord.config.ConfigOptions;
import io.coord.config.ConfigStore;
import io.coord.test.Awaits;
import io.coord.test.History;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Chaos scenario "config": the controller publishes version after version of
 * {@link ConfigSetting#KEY} (one write in ten invalid, written around the store: bad JSON, a value
 * the validator refuses, an oversize value) while reader JVMs ({@link ConfigReader}) report every
 * value they apply. Faults: a reader's session expired, a reader's connections cut, a kill of the
 * ensemble's leader. After the schedule, one last good value is published and every reader must
 * apply it within {@link #CONVERGENCE}. {@link ConfigChecker} checks 0 invalid applied, 0 version
 * regressions per reader, and convergence.
 *
 * <p>History: {@code write} (a good value through the store; ok with its version, info when
 * indeterminate) and {@code write-invalid} (a raw setData of an invalid value).
 */
final class ConfigScenario implements Scenario {
    /** How soon after the final write every reader must have applied it (RELIABILITY.md: 2 s; stretched by the timing factor). */
    static final Duration CONVERGENCE = Duration.ofSeconds(2);
    private static final int READERS = 10;
    /** The control only has to show one invalid value applied. */
    private static final int CONTROL_READERS = 3;
    /** Writes per second. */
    private static final int RATE = 20;
    /** CI tier: updates (good and invalid together; one in ten is invalid). */
    static final long UPDATES = 1_000;
    private static final Duration CI_MAX = Duration.ofSeconds(180);
    private static final Duration CONTROL_MAX = Duration.ofSeconds(60);

    private ChaosContext ctx;
    /** Whether readers validate (the key's validator, the size limit); false in the control. */
    private boolean validating = true;
    private final Map<String, List<ConfigChecker.Applied>> reports = new ConcurrentHashMap<>();
    private final AtomicLong rejections = new AtomicLong();
    private final List<String> odd = new CopyOnWriteArrayList<>();
    private final List<Thread> pumps = new ArrayList<>();
    private volatile boolean stop;
    private volatile boolean stopWriting;

    @Override
    public String name() {
        return "config";
    }

    @Override
    public List<String> controls() {
        return List.of("config-control");
    }

    @Override
    public List<ChaosResult> run(ChaosSuite.Run run) throws InterruptedException {
        ChaosContext main = run.context("config");
        Profile p = run.profile();
        Map<FaultKind, Integer> counts = new EnumMap<>(FaultKind.class);
        counts.put(FaultKind.EXPIRE, p.faults(2, 3));
        counts.put(FaultKind.CUT, p.faults(2, 20));
        counts.put(FaultKind.KILL_ZK_LEADER, p.faults(1, 1));
        FaultPlan plan = FaultPlan.of(main.random(), main.length(), counts);
        main.out().println("CHAOS-PLAN config " + plan);
        List<ChaosResult> results = new ArrayList<>();
        results.add(new ConfigScenario().round(main, plan, true, READERS, p.volume(UPDATES), CI_MAX));
        main.close();
        // The control: readers without the validator and the size limit apply the invalid values.
        FaultPlan control = ChaosContext.controlPlan(plan, FaultKind.CUT, 2);
        if (run.controls()) {
            results.add(new ConfigScenario().round(run.context("config-control"), control, false, CONTROL_READERS, 0, CONTROL_MAX));
        }
        return results;
    }

    private ChaosResult round(ChaosContext context, FaultPlan plan, boolean validate, int readers, long target, Duration maxTime)
            throws InterruptedException {
        this.ctx = context;
        this.validating = validate;
        try {
            return runWith(plan, readers, target, maxTime);
        } finally {
            stop = true;
            for (Thread t : pumps) {
                t.join(2_000);
            }
        }
    }

    private ChaosResult runWith(FaultPlan plan, int readers, long target, Duration maxTime) throws InterruptedException {
        CoordClient admin = ctx.client();
        ConfigStore store = ConfigStore.open(admin, ConfigOptions.builder().instanceId("controller")
                .maxValueBytes(ConfigSetting.MAX_BYTES).build());
        Set<Long> published = ConcurrentHashMap.newKeySet();
        AtomicLong seq = new AtomicLong();
        // The first value, so readers start from a live one.
        published.add(1L);
        store.createIfAbsent(ConfigSetting.KEY, new ConfigSetting(seq.incrementAndGet(), "x"));
        for (WorkerLink w : ctx.startWorkers("config", readers, validating ? "validating" : "unvalidated")) {
            adopt(w);
        }
        List<String> writerErrors = new CopyOnWriteArrayList<>();
        Thread writer = new Thread(() -> {
            try {
                write(store, admin, seq, published);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException e) {
                writerErrors.add(e.toString());
            }
        }, "chaos-config-writer");
        writer.setDaemon(true);
        writer.start();

        // Faults start once the workload runs: the warm-up rate (the floor's reference) needs acknowledgements.
        long ready = System.nanoTime() + Awaits.scaled(Duration.ofSeconds(30)).toNanos();
        while (System.nanoTime() < ready && !(ctx.history().counts("write").ok() >= 5
                && ctx.workers().stream().allMatch(w -> !reports.get(w.name()).isEmpty()))) {
            TimeUnit.MILLISECONDS.sleep(20); // polling the history, bounded by the deadline
        }
        FaultRunner faults = ctx.startFaults(plan, null);
        History h0 = ctx.history();
        boolean finished = ctx.runWorkload(faults, () -> h0.counts("write").ok() + h0.counts("write-invalid").ok(), target, maxTime);
        stopWriting = true;
        long stuck = 0;
        writer.join(Awaits.scaled(Duration.ofSeconds(60)).toMillis());
        if (writer.isAlive()) {
            stuck++;
            writer.interrupt();
        }
        if (!finished) {
            ctx.out().println("CHAOS-NOTE " + ctx.name() + " the workload did not finish in time");
        }
        faults.notes().forEach(n -> ctx.out().println("CHAOS-NOTE " + ctx.name() + " " + n));
        writerErrors.forEach(n -> ctx.out().println("CHAOS-NOTE " + ctx.name() + " writer failed: " + n));
        stuck += writerErrors.size();

        // The final good write, acknowledged (retried while indeterminate), after every fault healed.
        long finalSeq = seq.incrementAndGet();
        published.add(finalSeq);
        long finalNanos = 0;
        long deadline = System.nanoTime() + Awaits.scaled(Duration.ofSeconds(30)).toNanos();
        while (finalNanos == 0 && System.nanoTime() < deadline) {
            History.Handle h = ctx.history().invoke("writer", "write", finalSeq);
            try {
                long version = store.put(ConfigSetting.KEY, new ConfigSetting(finalSeq, "final"));
                finalNanos = System.nanoTime();
                h.ok(version);
            } catch (ConnectionLostException | CoordTimeoutException e) {
                h.info(e); // the same value again is harmless: readers compare the final seq
            }
        }
        if (finalNanos == 0) {
            throw new IllegalStateException("the final write of seq " + finalSeq + " was not acknowledged within 30 s");
        }
        long convergeDeadline = finalNanos + Awaits.scaled(Duration.ofSeconds(30)).toNanos();
        while (System.nanoTime() < convergeDeadline && !converged(finalSeq)) {
            TimeUnit.MILLISECONDS.sleep(20); // polling the reports, bounded by the deadline
        }
        stuck += ctx.workers().stream().filter(w -> !w.isAlive()).count();
        return check(faults, published, finalSeq, finalNanos, stuck, target);
    }

    private boolean converged(long finalSeq) {
        for (WorkerLink w : ctx.workers()) {
            List<ConfigChecker.Applied> list = reports.get(w.name());
            if (list == null || list.isEmpty() || list.get(list.size() - 1).seq() != finalSeq) {
                return false;
            }
        }
        return true;
    }

    private ChaosResult check(FaultRunner faults, Set<Long> published, long finalSeq, long finalNanos, long stuck, long target) {
        Map<String, List<ConfigChecker.Applied>> snapshot = new LinkedHashMap<>();
        for (WorkerLink w : ctx.workers()) {
            snapshot.put(w.name(), List.copyOf(reports.getOrDefault(w.name(), List.of())));
        }
        Duration convergence = Awaits.scaled(CONVERGENCE);
        ConfigChecker.Verdict v = ConfigChecker.check(snapshot, published, finalSeq, finalNanos, convergence.toNanos(),
                ConfigSetting.MAX_BYTES - 40);
        v.problems().forEach(pr -> ctx.out().println("CHAOS-NOTE " + ctx.name() + " " + pr));
        odd.forEach(o -> ctx.out().println("CHAOS-NOTE " + ctx.name() + " reader said: " + o));
        History h = ctx.history();
        ctx.out().println("CHAOS-TIMELINE " + ctx.name() + " " + Progress.timeline(h));
        History.Counts good = h.counts("write");
        History.Counts bad = h.counts("write-invalid");
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("writes", good.ok());
        d.put("write-info", good.info());
        d.put("invalid-writes", bad.ok() + bad.info());
        d.put("applied", v.applied());
        d.put("rejected", rejections.get());
        d.put("invalid-applied", v.invalid());
        d.put("regressions", v.regressions());
        d.put("late", v.late());
        d.put("not-converged", v.notConverged());
        d.put("slowest-convergence-ms", v.slowestNanos() / 1_000_000);
        d.put("convergence-bound-ms", convergence.toMillis());
        // a reader cut off or expired leaves the writer (whose writes are the operations) and the other readers going
        Progress progress = Progress.of(h, ChaosContext.SETTLE, w -> !w.name().startsWith("zk-"));
        return new ChaosResult(ctx.name(), !validating, good.ok() + bad.ok(), faults.scheduled(), faults.applied(), v.violations(),
                v.notConverged(), stuck + odd.size(), progress, d).withVolume(good.ok() + bad.ok(), target);
    }

    /**
     * Writes at {@link #RATE} until told to stop: nine good values through the store, then one
     * invalid value written around it (rotating bad JSON, a refused value, an oversize value).
     */
    private void write(ConfigStore store, CoordClient admin, AtomicLong seq, Set<Long> published) throws InterruptedException {
        long pace = TimeUnit.SECONDS.toNanos(1) / RATE;
        long start = System.nanoTime();
        String path = ConfigSetting.KEY.path().value();
        String big = "y".repeat(ConfigSetting.MAX_BYTES * 2);
        for (int i = 0; !stopWriting && !stop; i++) {
            long wait = start + pace * i - System.nanoTime();
            if (wait > 0) {
                TimeUnit.NANOSECONDS.sleep(wait); // pacing, not synchronization
            }
            if (i % 10 == 9) {
                long s = seq.incrementAndGet();
                String json = switch ((i / 10) % 3) {
                    case 0 -> "{\"seq\": " + s + ", \"pad\": ";                      // bad JSON
                    case 1 -> "{\"seq\": " + (-s) + ", \"pad\": \"refused\"}";        // the validator says no
                    default -> "{\"seq\": " + s + ", \"pad\": \"" + big + "\"}";      // over the size limit
                };
                History.Handle h = ctx.history().invoke("writer", "write-invalid", s);
                try {
                    admin.curator().setData().forPath(path, json.getBytes(StandardCharsets.UTF_8));
                    h.ok(s);
                } catch (InterruptedException e) {
                    throw e;
                } catch (Exception e) {
                    h.failed(e);
                }
                continue;
            }
            long s = seq.incrementAndGet();
            published.add(s); // before the write: an indeterminate one may still be applied
            History.Handle h = ctx.history().invoke("writer", "write", s);
            try {
                h.ok(store.put(ConfigSetting.KEY, new ConfigSetting(s, "x")));
            } catch (RuntimeException e) {
                h.failed(e);
            }
        }
    }

    /** Reads a reader's reports until the run ends or the reader does. */
    private void adopt(WorkerLink w) {
        reports.put(w.name(), Collections.synchronizedList(new ArrayList<>()));
        Thread t = new Thread(() -> {
            try {
                while (!stop) {
                    Optional<String> line = w.next(Duration.ofMillis(200));
                    if (line.isPresent()) {
                        take(w.name(), line.get(), System.nanoTime());
                    } else if (!w.isAlive()) {
                        return;
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "chaos-config-pump-" + w.name());
        t.setDaemon(true);
        t.start();
        pumps.add(t);
    }

    private void take(String reader, String line, long nanos) {
        String[] f = line.split(" ");
        try {
            switch (f[0]) {
                case "APPLIED" -> reports.get(reader).add(new ConfigChecker.Applied(Long.parseLong(f[1]), Long.parseLong(f[2]),
                        Long.parseLong(f[3]), Integer.parseInt(f[4]), nanos));
                case "REJECTED" -> rejections.incrementAndGet();
                default -> odd.add(reader + ": " + line);
            }
        } catch (RuntimeException e) {
            odd.add(reader + ": unreadable " + line);
        }
    }
}
