package io.coord.chaos;

import io.coord.CoordClient;
import io.coord.CoordSettings;
import io.coord.test.Awaits;
import io.coord.test.ForkedEnsemble;
import io.coord.test.History;
import io.coord.test.SteppedClock;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.LongSupplier;

/**
 * Everything one scenario run holds on the controller side: the shared ensemble, the seed's random
 * source, the history, the workers and the fault runner. Closing it stops the faults, then every
 * worker (and its proxy), then the controller's own client; it never throws.
 */
public final class ChaosContext implements AutoCloseable {
    /**
     * Time after a healed fault still counted in its window for the throughput floor: what a
     * client needs to notice, reconnect or start a new session (half the 2 s session timeout).
     */
    public static final Duration SETTLE = Duration.ofSeconds(1);
    private final String name;
    private final ForkedEnsemble ensemble;
    private final Random random;
    private final Duration length;
    private final Profile profile;
    private final Duration requestedSession;
    private final PrintWriter out;
    private final History history = new History();
    private final long createdNanos = System.nanoTime();
    private volatile long closedNanos;
    private final List<WorkerLink> workers = new CopyOnWriteArrayList<>();
    private volatile Duration negotiatedSession;
    private FaultRunner faults;
    private CoordClient client;
    /** F12: whether the next worker started runs on {@link #clock}, then the worker that does. */
    private volatile boolean clockWanted;
    private volatile SteppedClock clock;
    private volatile WorkerLink clockWorker;

    ChaosContext(String name, ForkedEnsemble ensemble, long seed, Duration length, Duration requestedSession, PrintWriter out) {
        this(name, ensemble, seed, new Profile("short", length, 0), requestedSession, out);
    }

    ChaosContext(String name, ForkedEnsemble ensemble, long seed, Profile profile, Duration requestedSession, PrintWriter out) {
        this.name = name;
        this.ensemble = ensemble;
        this.random = new Random(seed ^ name.hashCode());
        this.length = profile.perScenario();
        this.profile = profile;
        this.requestedSession = requestedSession;
        this.negotiatedSession = requestedSession;
        this.out = out;
    }

    /**
     * How long a scenario waits, after its workload time, for the rest of its fault schedule:
     * faults run one at a time and some last several seconds, so a schedule may run past the
     * workload time; it must still end (bounded), or the run fails on the fault count.
     */
    public static Duration faultOverrun(Duration length) {
        Duration d = Duration.ofSeconds(120);
        return Awaits.scaled(length.compareTo(d) > 0 ? length : d);
    }

    /** How many faults of other kinds a control keeps from the main schedule, besides the biting ones. */
    static final int CONTROL_OTHERS = 3;

    /**
     * A control's schedule: the main run's {@code plan}, in its order, up to and including its
     * {@code count}-th fault of kind {@code biting} (the one that bites without the safety
     * feature), keeping only the first {@value #CONTROL_OTHERS} faults of other kinds, each due
     * one second after the previous one from the warm-up on (the runner keeps its gap). A control
     * only has to show that the faults bite, so it need not run the whole schedule.
     */
    public static FaultPlan controlPlan(FaultPlan plan, FaultKind biting, int count) {
        List<FaultPlan.Fault> faults = new ArrayList<>();
        int seen = 0;
        int others = 0;
        for (FaultPlan.Fault f : plan.faults()) {
            boolean bites = f.kind() == biting;
            if (!bites && others++ >= CONTROL_OTHERS) {
                continue;
            }
            faults.add(new FaultPlan.Fault(f.kind(), FaultPlan.WARMUP.toMillis() + 1000L * faults.size(), f.pick()));
            if (bites && ++seen == count) {
                break;
            }
        }
        return new FaultPlan(faults);
    }

    /** The scenario's name, as in its CHAOS line. */
    public String name() {
        return name;
    }

    public ForkedEnsemble ensemble() {
        return ensemble;
    }

    /** Seeded from the run's seed and the scenario name: the same seed gives the same schedule. */
    public Random random() {
        return random;
    }

    /** How long the scenario should run its workload (faults are spread over it). */
    public Duration length() {
        return length;
    }

    /** The profile this run belongs to. */
    public Profile profile() {
        return profile;
    }

    /**
     * Lets the workload run until it has run the profile's {@linkplain Profile#minimum() minimum
     * time}, {@code volume} has reached {@code target} and the fault schedule has finished, at most
     * the profile's {@linkplain Profile#maxTime max time} for {@code ciMax} (scaled by the timing
     * factor). Returns whether all three happened; if the time ran out it says so on a
     * {@code CHAOS-NOTE} line, and the result then fails on its volume or its fault count.
     */
    public boolean runWorkload(FaultRunner faults, LongSupplier volume, long target, Duration ciMax) throws InterruptedException {
        long start = System.nanoTime();
        long minEnd = start + profile.minimum().toNanos();
        Duration max = Awaits.scaled(profile.maxTime(ciMax));
        long deadline = start + max.toNanos();
        while (true) {
            long now = System.nanoTime();
            if (now >= minEnd && faults.isDone() && volume.getAsLong() >= target) {
                return true;
            }
            if (now >= deadline) {
                out.println("CHAOS-NOTE " + name + " stopped at its max time of " + max.toSeconds() + " s: volume "
                        + volume.getAsLong() + "/" + target + ", faults applied " + faults.applied() + "/" + faults.scheduled()
                        + (faults.isDone() ? "" : " (schedule unfinished)"));
                return false;
            }
            Thread.sleep(50); // polling the workload's progress, bounded by the deadline
        }
    }

    public History history() {
        return history;
    }

    public PrintWriter out() {
        return out;
    }

    /** The ZooKeeper namespace (chroot) of this scenario, so scenarios sharing the ensemble never meet. */
    public String namespace() {
        return "chaos-" + name;
    }

    /** The session timeout every worker negotiated (asserted equal to the requested one). */
    public Duration negotiatedSession() {
        return negotiatedSession;
    }

    /** How long a SIGSTOP lasts: 2.5x the negotiated session timeout, so the session surely expires. */
    public Duration pauseLength() {
        return Duration.ofMillis(negotiatedSession.toMillis() * 5 / 2);
    }

    /**
     * Call before {@link #startWorkers} with the plan the scenario will run: a plan that holds
     * {@link FaultKind#CLOCK_STEP} makes the first worker start under libfaketime (F12), or, where
     * libfaketime is missing, prints one line saying so and those faults are skipped.
     */
    public void prepareFaults(FaultPlan plan) {
        if (plan.faults().stream().anyMatch(f -> f.kind().needsSteppedClock())) {
            if (SteppedClock.available()) {
                clockWanted = true;
            } else {
                out.println("CHAOS-NOTE " + name + " F12 (CLOCK_STEP) skipped: " + SteppedClock.MISSING);
            }
        }
    }

    /** The worker on a stepped clock (F12), if {@link #prepareFaults} asked for one and it started. */
    public java.util.Optional<WorkerLink> clockWorker() {
        return java.util.Optional.ofNullable(clockWorker);
    }

    /** The stepped clock of {@link #clockWorker()}. */
    SteppedClock clock() {
        return clock;
    }

    /**
     * Starts {@code count} workers of {@code kind} ({@code kind-1}, {@code kind-2}, ...) in
     * parallel, each behind its own proxy, and waits until all are connected. Fails if any
     * negotiated a session timeout other than the requested one.
     */
    public List<WorkerLink> startWorkers(String kind, int count, String... args) throws InterruptedException {
        List<WorkerLink> started = new ArrayList<>();
        for (int i = 1; i <= count; i++) {
            // numbered across calls, so a replacement for a killed worker gets a name of its own
            String workerName = kind + "-" + (workers.size() + 1);
            SteppedClock c = null;
            if (clockWanted && clockWorker == null) {
                c = SteppedClock.create();
                clock = c;
            }
            WorkerLink w = WorkerLink.start(kind, workerName, ensemble.connectString(), namespace(), requestedSession, c, args);
            workers.add(w);
            started.add(w);
            if (c != null) {
                clockWorker = w;
            }
        }
        for (WorkerLink w : started) {
            // the worker under libfaketime keeps its longer bound; it started with the others
            long negotiated = w.awaitReady(Awaits.scaled((w == clockWorker ? WorkerLink.STEPPED_START : WorkerLink.START).plusSeconds(10)));
            if (negotiated != requestedSession.toMillis()) {
                throw new IllegalStateException("worker " + w.name() + " negotiated a session timeout of " + negotiated
                        + " ms, requested " + requestedSession.toMillis() + " ms: the fault timings would be wrong");
            }
            negotiatedSession = Duration.ofMillis(negotiated);
        }
        return started;
    }

    /**
     * Waits (at most 60 s, scaled) until the workload has made its first acknowledged operation,
     * so the fault-free warm-up that sets the throughput floor measures a running workload, not
     * JVM start-up.
     */
    public void awaitFirstAck() {
        Awaits.until(name + "'s first acknowledged operation", Duration.ofSeconds(60),
                () -> history.counts().ok() > 0);
    }

    /** Every worker started so far. */
    public List<WorkerLink> workers() {
        return List.copyOf(workers);
    }

    /** Starts applying {@code plan}; {@code hook} applies the scenario's own kinds (may be null if none). */
    /** What the fault runner noted (faults not applied and why); empty if faults never started. */
    List<String> faultNotes() {
        return faults == null ? List.of() : faults.notes();
    }

    /** For a scenario's fault hook: records why its fault was not applied, with the runner's notes. */
    void noteFault(String note) {
        if (faults == null) {
            throw new IllegalStateException("faults not started for " + name);
        }
        faults.note(note);
    }

    public FaultRunner startFaults(FaultPlan plan, FaultRunner.Hook hook) {
        if (faults != null) {
            throw new IllegalStateException("faults already started for " + name);
        }
        faults = new FaultRunner(this, plan, hook);
        faults.start();
        return faults;
    }

    /** The controller's own client, directly at the ensemble (no proxy, no faults), in this namespace. */
    public synchronized CoordClient client() throws InterruptedException {
        if (client == null) {
            client = CoordClient.connect(ChaosAcl.secured(CoordSettings.builder()).connectString(ensemble.connectString()).namespace(namespace())
                    .sessionTimeout(Duration.ofSeconds(10)).connectionTimeout(Duration.ofSeconds(30)).build());
        }
        return client;
    }

    /** From creation until {@link #close()} began (or until now, if still open). */
    public Duration elapsed() {
        long end = closedNanos != 0 ? closedNanos : System.nanoTime();
        return Duration.ofNanos(end - createdNanos);
    }

    /** Idempotent: a scenario may close a context it is done with (before its control), the suite closes it again. */
    @Override
    public void close() {
        synchronized (this) {
            if (closedNanos != 0) {
                return;
            }
            closedNanos = System.nanoTime();
        }
        if (faults != null) {
            faults.close();
        }
        List<Thread> closers = new ArrayList<>();
        for (WorkerLink w : workers) {
            Thread t = new Thread(w::close, "chaos-close-" + w.name());
            t.start();
            closers.add(t);
        }
        for (Thread t : closers) {
            try {
                t.join(Awaits.scaled(Duration.ofSeconds(30)).toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        synchronized (this) {
            if (client != null) {
                client.close();
            }
        }
        if (clock != null) {
            clock.close();
        }
    }
}
