package io.coord.chaos;

import io.coord.CoordClient;
import io.coord.CoordSettings;
import io.coord.test.Awaits;
import io.coord.test.ForkedEnsemble;
import io.coord.test.History;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;

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
    private final Duration requestedSession;
    private final PrintWriter out;
    private final History history = new History();
    private final List<WorkerLink> workers = new CopyOnWriteArrayList<>();
    private volatile Duration negotiatedSession;
    private FaultRunner faults;
    private CoordClient client;

    ChaosContext(String name, ForkedEnsemble ensemble, long seed, Duration length, Duration requestedSession, PrintWriter out) {
        this.name = name;
        this.ensemble = ensemble;
        this.random = new Random(seed ^ name.hashCode());
        this.length = length;
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
     * Starts {@code count} workers of {@code kind} ({@code kind-1}, {@code kind-2}, ...) in
     * parallel, each behind its own proxy, and waits until all are connected. Fails if any
     * negotiated a session timeout other than the requested one.
     */
    public List<WorkerLink> startWorkers(String kind, int count, String... args) throws InterruptedException {
        List<WorkerLink> started = new ArrayList<>();
        for (int i = 1; i <= count; i++) {
            // numbered across calls, so a replacement for a killed worker gets a name of its own
            String workerName = kind + "-" + (workers.size() + 1);
            WorkerLink w = WorkerLink.start(kind, workerName, ensemble.connectString(), namespace(), requestedSession, args);
            workers.add(w);
            started.add(w);
        }
        for (WorkerLink w : started) {
            long negotiated = w.awaitReady(Awaits.scaled(Duration.ofSeconds(60)));
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

    @Override
    public void close() {
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
    }
}
