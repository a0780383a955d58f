package io.coord.cli.demo;

import io.coord.CoordClient;
import io.coord.CoordException;
import io.coord.CoordSettings;
import io.coord.cli.WebConsole;
import io.coord.cli.demo.RunState.Worker;
import io.coord.config.ConfigOptions;
import io.coord.config.ConfigStore;
import io.coord.membership.Group;
import io.coord.membership.GroupListener;
import io.coord.membership.GroupView;
import io.coord.membership.MemberInfo;
import io.coord.naming.Discovery;
import io.coord.naming.Endpoint;
import io.coord.test.EmbeddedEnsemble;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;

/**
 * The demo's controller: starts the ensemble (unless given one) and the worker processes, owns
 * the ledger, plays the script of faults ({@link DemoScript}), then checks the run's invariants
 * ({@link Verdict}) and prints the summary.
 *
 * <p>{@link #close()} stops everything the run started (workers, the client, the ensemble) and
 * may be called from a shutdown hook while the run is still going (Ctrl-C).
 */
final class DemoRun implements AutoCloseable {
    private static final Duration CONTROLLER_SESSION = Duration.ofSeconds(10);
    /** How many workers set up at the same time. */
    private static final int CONNECT_AT_ONCE = 4;

    private final DemoOptions options;
    private final Narrator say;
    private final Ledger ledger;
    private final RunState state;
    private final String namespace = "coord-demo-" + ProcessHandle.current().pid() + "-" + System.currentTimeMillis();
    private final List<WorkerProcess> processes = new CopyOnWriteArrayList<>();
    private final ExecutorService listeners = Executors.newSingleThreadExecutor(r -> daemon(r, "demo-listeners"));
    private final ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "demo-progress"));
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile boolean finished;
    private volatile EmbeddedEnsemble ensemble;
    private volatile CoordClient client;
    private volatile WebConsole console;
    private Group<Map<String, Object>> group;
    private String connect;
    private long sessionTimeoutMs = -1;

    DemoRun(DemoOptions options, PrintWriter out, boolean terminal) {
        this.options = options;
        this.say = new Narrator(out, terminal);
        this.ledger = new Ledger(options.fenced());
        this.state = new RunState(say, ledger);
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    /** Runs the whole demo and returns its verdict (also printed). Never throws for a failed step: that is a failed verdict. */
    DemoResult run() throws InterruptedException {
        List<String> stopped = new ArrayList<>();
        try {
            startWorkers();
            setUp();
            connectWorkers();
            new DemoScript(options, state, ledger, say, client, group, sessionTimeoutMs).play();
        } catch (DemoFailure | CoordException | IllegalStateException | IllegalArgumentException e) {
            stopped.add("the run stopped early: " + e.getMessage());
            say.event("STOPPED: " + e.getMessage());
            for (Worker w : state.workers()) {
                String tail = w.process.stderrTail();
                if (!tail.isBlank() && !w.killed) {
                    say.plain(tail);
                }
            }
        }
        stopTicker();
        say.progress(state.progress(options.totalTasks()));
        say.endProgress();
        finished = true;
        DemoResult result = new Verdict(options, state, ledger, client, sessionTimeoutMs, say.elapsedSeconds()).check(stopped);
        Verdict.print(result, options, say);
        return result;
    }

    private void stopTicker() throws InterruptedException {
        ticker.shutdownNow();
        ticker.awaitTermination(5, TimeUnit.SECONDS);
    }

    private void setUp() throws InterruptedException {
        if (options.connect() == null) {
            say.event("starting a 3-node ZooKeeper ensemble on 127.0.0.1 ...");
            ensemble = EmbeddedEnsemble.start(EmbeddedEnsemble.Options.quorum());
            connect = ensemble.connectString();
            say.event("ensemble up: " + connect + " (member " + (ensemble.awaitLeader(10_000) + 1) + " leads)");
        } else {
            connect = options.connect();
            say.event("using the ensemble at " + connect);
        }
        client = CoordClient.connect(CoordSettings.builder().connectString(connect).namespace(namespace)
                .sessionTimeout(CONTROLLER_SESSION).connectionTimeout(DemoLayout.CONNECT_TIMEOUT).build());
        try {
            client.curator().create().creatingParentsIfNeeded().forPath(DemoLayout.DONE.value());
            // wave 1 is the coordinator's to fill at once; the script releases the others (DemoScript)
            client.curator().create().forPath(DemoLayout.RELEASED.value(), "1".getBytes(StandardCharsets.UTF_8));
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("could not create " + DemoLayout.DONE + " and " + DemoLayout.RELEASED + " in namespace "
                    + namespace + ": " + e.getMessage(), e);
        }
        ConfigStore store = ConfigStore.open(client, ConfigOptions.defaults());
        store.createIfAbsent(DemoLayout.BATCH_SIZE, 2);
        say.event("namespace /" + namespace + "; published batch.size=2 (v0) with coord-config");
        if (options.uiPort() != DemoOptions.NO_UI) {
            startConsole();
        }
        group = Group.open(client, DemoLayout.GROUP, mapType());
        group.addListener(new GroupListener<>() {
            private final Set<String> seen = new HashSet<>();

            @Override
            public void onJoined(MemberInfo<Map<String, Object>> member, GroupView<Map<String, Object>> view) {
                if (!seen.add(member.id())) {
                    say.event("membership: " + member.id() + " is back in the group (" + view.size() + " members)");
                }
            }

            @Override
            public void onLeft(MemberInfo<Map<String, Object>> member, GroupView<Map<String, Object>> view) {
                String left = view.size() == 0 ? "nobody is left" : view.size() + " left: " + String.join(", ", view.ids());
                say.event("membership: " + member.id() + (state.finished(member.id()) ? " left the group"
                        : " is out of the group: its session " + member.sessionHex() + " ended") + " (" + left + ")");
            }
        }, listeners);
    }

    @SuppressWarnings("unchecked")
    private static Class<Map<String, Object>> mapType() {
        return (Class<Map<String, Object>>) (Class<?>) Map.class;
    }

    /** Starts the worker JVMs first: they boot while the ensemble starts, and connect when told where ({@link #connectWorkers}). */
    private void startWorkers() {
        int n = options.workers();
        say.plain("coord demo: " + n + " worker processes, " + options.totalTasks() + " tasks in "
                + options.waves().length + " waves, seed " + options.seed()
                + (options.fenced() ? "" : ", FENCING OFF (control run: the checks below must fail)"));
        say.event("starting " + n + " worker JVMs (" + DemoWorker.class.getSimpleName() + ", same classpath) ...");
        for (int i = 1; i <= n; i++) {
            DemoWorker.Args args = new DemoWorker.Args("worker-" + i, n, options.seed(), options.waves(), options.applyMs(), 7000 + i);
            WorkerProcess process = WorkerProcess.start(args, state);
            processes.add(process);
            state.add(new Worker(args.name(), process));
            process.startReading();
        }
    }

    private void connectWorkers() throws InterruptedException {
        int n = options.workers();
        ticker.scheduleAtFixedRate(() -> say.progress(state.progress(options.totalTasks())), 250, 250, TimeUnit.MILLISECONDS);
        // A few at a time: a worker's set-up (connect, join, register, first config read) is its most CPU-hungry
        // part, and 16 of them at once on a loaded 2-core machine starved each other past their 3 s sessions.
        List<Worker> all = state.workers();
        for (int from = 0; from < n; from += CONNECT_AT_ONCE) {
            List<Worker> some = all.subList(from, Math.min(n, from + CONNECT_AT_ONCE));
            some.forEach(w -> w.process.command("CONNECT " + connect + " " + namespace));
            state.await(some.size() == n ? "all " + n + " workers up" : some.get(0).name + ".." + some.get(some.size() - 1).name + " up",
                    Duration.ofSeconds(90), () -> some.stream().allMatch(w -> w.ready) ? Boolean.TRUE : null);
        }
        for (Worker w : state.workers()) {
            if (w.timeoutMs < 2000 || w.timeoutMs > 4000) {
                throw new DemoFailure(w.name + " was granted a session timeout of " + w.timeoutMs + " ms (asked "
                        + DemoWorker.SESSION_TIMEOUT.toMillis() + "): the demo's faults are timed for 2000..4000 ms;"
                        + " with --connect, use an ensemble whose tickTime allows it (minSessionTimeout <= 3000)");
            }
        }
        sessionTimeoutMs = state.workers().get(0).timeoutMs;
        say.event("every worker's session timeout, as negotiated with the servers: " + state.workers().stream()
                .map(w -> Long.toString(w.timeoutMs)).distinct().collect(Collectors.joining("/")) + " ms");
        try (Discovery discovery = Discovery.open(client)) {
            List<Endpoint> instances = discovery.instances(DemoLayout.SERVICE);
            say.event("discovery: " + DemoLayout.SERVICE + " has " + instances.size() + " instances ("
                    + instances.stream().map(e -> e.id() + "@" + e.hostAndPort()).collect(Collectors.joining(", ")) + ")");
        }
        GroupView<Map<String, Object>> view = group.view();
        say.event("membership: " + DemoLayout.GROUP + " has " + view.size() + " members (view " + DemoLayout.hex(view.version()) + ")");
    }

    /** {@code --ui}: the web console of the run's namespace, on the controller's client, until the run closes. */
    private void startConsole() {
        try {
            console = WebConsole.start(client, "127.0.0.1", options.uiPort());
        } catch (IOException e) {
            throw new IllegalStateException("cannot serve the web console on 127.0.0.1:" + options.uiPort() + ": " + e.getMessage()
                    + " (pick another --ui-port)", e);
        }
        say.event("web console: " + console.url() + " (read-only; it stops when the run ends)");
    }

    /** Stops every worker, removes the run's namespace from a real ensemble, closes the client and the ensemble. Idempotent. */
    @Override
    public synchronized void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        ticker.shutdownNow();
        if (!finished) {
            say.event("interrupted: stopping the workers" + (ensemble != null ? " and the ensemble" : ""));
        }
        processes.forEach(p -> p.close(options.logs()));
        WebConsole web = console;
        if (web != null) {
            web.close();
        }
        CoordClient c = client;
        if (c != null) {
            if (group != null) {
                group.close();
            }
            if (options.connect() != null) {
                try {
                    c.curator().usingNamespace(null).delete().deletingChildrenIfNeeded().forPath("/" + namespace);
                } catch (Exception e) {
                    say.event("could not remove /" + namespace + " from " + connect + ": " + e.getMessage());
                }
            }
            c.close();
        }
        listeners.shutdownNow();
        EmbeddedEnsemble e = ensemble;
        if (e != null) {
            e.close();
        }
    }
}
