package io.coord.cli.demo;

import io.coord.CoordClient;
import io.coord.CoordException;
import io.coord.CoordSettings;
import io.coord.cli.demo.DemoResult.Leader;
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
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
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
 * the ledger, plays the script of faults, then checks the run's invariants ({@link Verdict}).
 *
 * <p>The script, in order: every worker up and in the group; the start barrier; the first wave
 * enqueued; {@code batch.size} changed and applied everywhere; a worker paused (SIGSTOP) while it
 * holds the ledger lock, until another worker has written with a newer token, then resumed: its
 * write must be refused by the fence; a worker killed (kill -9) while it holds a task claim, and
 * the coordinator killed at the same moment: a new coordinator with a higher epoch, and the
 * claimed task done by someone else; the rest of the job; the survivors leave through the finish
 * barrier. Every step has a time bound; a step that does not happen fails the run (exit 1).
 *
 * <p>{@link #close()} stops everything the run started (workers, the client, the ensemble) and
 * may be called from a shutdown hook while the run is still going (Ctrl-C).
 */
final class DemoRun implements AutoCloseable {
    private static final Duration CONTROLLER_SESSION = Duration.ofSeconds(10);

    private final DemoOptions options;
    private final Narrator say;
    private final Ledger ledger;
    private final RunState state;
    private final Random choices;
    private final String namespace = "coord-demo-" + ProcessHandle.current().pid() + "-" + System.currentTimeMillis();
    private final List<WorkerProcess> processes = new CopyOnWriteArrayList<>();
    private final ExecutorService listeners = Executors.newSingleThreadExecutor(r -> daemon(r, "demo-listeners"));
    private final ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "demo-progress"));
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile boolean finished;
    private volatile EmbeddedEnsemble ensemble;
    private volatile CoordClient client;
    private Group<Map<String, Object>> group;
    private String connect;
    private long sessionTimeoutMs = -1;

    DemoRun(DemoOptions options, PrintWriter out, boolean terminal) {
        this.options = options;
        this.say = new Narrator(out, terminal);
        this.ledger = new Ledger(options.fenced());
        this.state = new RunState(say, ledger);
        this.choices = new Random(options.seed());
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
            setUp();
            startWorkers();
            script();
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
        say.plain("coord demo: " + options.workers() + " worker processes, " + options.totalTasks() + " tasks in "
                + options.waves().length + " waves, seed " + options.seed()
                + (options.fenced() ? "" : ", FENCING OFF (control run: the checks below must fail)"));
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
                .sessionTimeout(CONTROLLER_SESSION).connectionTimeout(Duration.ofSeconds(20)).build());
        try {
            client.curator().create().creatingParentsIfNeeded().forPath(DemoLayout.DONE.value());
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("could not create " + DemoLayout.DONE + " in namespace " + namespace + ": " + e.getMessage(), e);
        }
        ConfigStore store = ConfigStore.open(client, ConfigOptions.defaults());
        store.createIfAbsent(DemoLayout.BATCH_SIZE, 2);
        say.event("namespace /" + namespace + "; published batch.size=2 (v0) with coord-config");
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

    private void startWorkers() throws InterruptedException {
        int n = options.workers();
        say.event("starting " + n + " worker JVMs (" + DemoWorker.class.getSimpleName() + ", same classpath) ...");
        for (int i = 1; i <= n; i++) {
            DemoWorker.Args args = new DemoWorker.Args("worker-" + i, connect, namespace, n, options.seed(), options.waves(),
                    options.applyMs(), 7000 + i);
            WorkerProcess process = WorkerProcess.start(args, state);
            processes.add(process);
            state.add(new Worker(args.name(), process));
            process.startReading();
        }
        ticker.scheduleAtFixedRate(() -> say.progress(state.progress(options.totalTasks())), 250, 250, TimeUnit.MILLISECONDS);
        state.await("all " + n + " workers up", Duration.ofSeconds(90),
                () -> state.workers().stream().allMatch(w -> w.ready) ? Boolean.TRUE : null);
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

    private void script() throws InterruptedException {
        int n = options.workers();
        state.await("all " + n + " workers through the start barrier", Duration.ofSeconds(60),
                () -> state.barrierCount(DemoLayout.START_BARRIER, "left") >= n ? Boolean.TRUE : null);
        state.await("the coordinator filling wave 1", Duration.ofSeconds(30), () -> state.filledWaves().contains(1) ? Boolean.TRUE : null);

        changeConfig();
        pauseLockHolder();
        killClaimHolderAndCoordinator();

        state.await("the coordinator filling every wave", Duration.ofSeconds(60), () -> state.allFilled() ? Boolean.TRUE : null);
        int planned = options.totalTasks();
        awaitAllDone(planned);
        say.event("all " + planned + " tasks done; ledger " + ledger.balance());

        List<Worker> survivors = state.live();
        int k = survivors.size();
        say.event("membership: the group holds " + String.join(", ", group.view().ids()) + "; the finish barrier is for "
                + (k == 1 ? "that 1 worker" : "these " + k));
        survivors.forEach(w -> w.process.command("FINISH " + k));
        state.await("the " + k + " survivors leaving through the finish barrier", Duration.ofSeconds(60),
                () -> survivors.stream().allMatch(w -> w.bye) ? Boolean.TRUE : null);
        for (Worker w : survivors) {
            int code = w.process.awaitExit(Duration.ofSeconds(20))
                    .orElseThrow(() -> new DemoFailure(w.name + " did not exit within 20 s after the finish barrier"));
            if (code != 0) {
                throw new DemoFailure(w.name + " exited with " + code);
            }
        }
        say.event(survivors.stream().map(w -> w.name).collect(Collectors.joining(", ")) + (k == 1 ? " has" : " have")
                + " left the group and exited");
    }

    /** Mid-run, the admin changes {@code batch.size}; every worker must report applying the new version. */
    private void changeConfig() throws InterruptedException {
        state.await("the first tasks done", Duration.ofSeconds(30), () -> state.completions().size() >= 3 ? Boolean.TRUE : null);
        long version = ConfigStore.open(client, ConfigOptions.defaults()).put(DemoLayout.BATCH_SIZE, 3);
        say.event("admin publishes batch.size=3 (v" + version + ") with coord-config");
        state.await("every worker applying batch.size v" + version, Duration.ofSeconds(20),
                () -> state.live().stream().allMatch(w -> w.configVersions.contains(version)) ? Boolean.TRUE : null);
        say.event("all " + state.live().size() + " workers run batch.size v" + version);
    }

    /**
     * A worker that holds the ledger lock, has checked its lease and read the balance, is paused
     * for longer than its session timeout. Its session expires, the lock passes on, another worker
     * writes with a newer token; resumed, the paused worker sends its write with its old token.
     */
    private void pauseLockHolder() throws InterruptedException {
        Worker coordinator = state.await("a live coordinator", Duration.ofSeconds(20), state::coordinator);
        Worker target = pick(state.live().stream().filter(w -> w != coordinator).toList());
        target.process.command("STALL");
        String token = state.await(target.name + " holding the ledger lock", Duration.ofSeconds(30), () -> target.stallToken);
        long stale = Long.decode(token);
        say.event(target.name + " holds the ledger lock (token " + token + "), checked its lease and read the balance:"
                + " SIGSTOP " + target.name + " (pid " + target.process.pid() + ") before it writes");
        long pausedAt = System.nanoTime();
        target.process.pause();
        state.mark(target, () -> target.paused = true);
        state.await("a newer lock holder writing to the ledger", Duration.ofMillis(sessionTimeoutMs * 3 + 15_000),
                () -> ledger.highestToken() > stale ? Boolean.TRUE : null);
        long highest = ledger.highestToken();
        say.event(target.name + "'s session expired, so its lock node went: another worker got the lock and wrote with token "
                + DemoLayout.hex(highest) + " > " + token);
        target.process.resume();
        state.mark(target, () -> target.paused = false);
        say.event(String.format(java.util.Locale.ROOT, "SIGCONT %s after %.1f s paused (session timeout %d ms): it sends its write with token %s",
                target.name, (System.nanoTime() - pausedAt) / 1e9, sessionTimeoutMs, token));
        target.process.command("GO");
        state.await(target.name + "'s stale write reaching the ledger", Duration.ofSeconds(20), () -> target.rejected
                || ledger.staleAccepted().stream().anyMatch(s -> s.worker().equals(target.name)) ? Boolean.TRUE : null);
        if (!target.rejected) {
            say.event(target.name + "'s stale write was ACCEPTED: fencing is off, so the ledger has just lost updates");
        }
    }

    /**
     * A worker and the coordinator, each holding a task claim, are killed (kill -9) together. They
     * are stopped at the point where they hold a claim (and no lock): a process killed between its
     * ledger write and its completion would leave a task applied but not completed, which the
     * ledger (deliberately not idempotent) would then count twice.
     */
    private void killClaimHolderAndCoordinator() throws InterruptedException {
        Worker coordinator = state.await("a live coordinator", Duration.ofSeconds(30), state::coordinator);
        List<Worker> others = state.live().stream().filter(w -> w != coordinator).toList();
        List<Worker> preferred = others.stream().filter(w -> w.stallToken == null).toList();
        Worker holder = pick(preferred.isEmpty() ? others : preferred);
        holder.process.command("HOLD");
        coordinator.process.command("HOLD");
        long task = state.await(holder.name + " holding a task claim", Duration.ofSeconds(30), () -> holder.holding);
        long coordinatorTask = state.await(coordinator.name + " holding a task claim", Duration.ofSeconds(30), () -> coordinator.holding);
        Leader old = state.leaders().get(state.leaders().size() - 1);
        say.event(holder.name + " holds its claim on task " + task + ": kill -9 " + holder.name + " (pid " + holder.process.pid() + ")");
        holder.process.kill9();
        state.mark(holder, () -> holder.killed = true);
        say.event(coordinator.name + ", the coordinator (epoch " + DemoLayout.hex(old.epoch()) + "), holds its claim on task "
                + coordinatorTask + ": kill -9 " + coordinator.name + " (pid " + coordinator.process.pid() + ")");
        coordinator.process.kill9();
        state.mark(coordinator, () -> coordinator.killed = true);
        state.await("a new coordinator with an epoch above " + DemoLayout.hex(old.epoch()), Duration.ofMillis(sessionTimeoutMs * 3 + 20_000),
                () -> {
                    Worker now = state.coordinator();
                    List<Leader> all = state.leaders();
                    return now != null && all.get(all.size() - 1).epoch() > old.epoch() ? Boolean.TRUE : null;
                });
        for (Worker killed : List.of(holder, coordinator)) {
            long t = killed == holder ? task : coordinatorTask;
            String by = state.await("task " + t + " done by another worker", Duration.ofSeconds(40), () -> {
                String applied = ledger.appliedBy(t);
                return applied != null && !applied.equals(killed.name) ? applied : null;
            });
            say.event("task " + t + ", claimed by the killed " + killed.name + ", came back and was done by " + by);
        }
    }

    /** Waits until every planned task has its done marker in ZooKeeper (created with its completion). */
    private void awaitAllDone(int planned) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            int done;
            try {
                done = client.curator().getChildren().forPath(DemoLayout.DONE.value()).size();
            } catch (InterruptedException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException("could not list " + DemoLayout.DONE + ": " + e.getMessage(), e);
            }
            if (done >= planned) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new DemoFailure("all " + planned + " tasks done did not happen within 60 s (" + done + " done markers)");
            }
            TimeUnit.MILLISECONDS.sleep(200); // a poll of ZooKeeper, the authority on completions
        }
    }

    private Worker pick(List<Worker> candidates) {
        if (candidates.isEmpty()) {
            throw new DemoFailure("no live worker left to run the next fault on");
        }
        return candidates.get(choices.nextInt(candidates.size()));
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
        processes.forEach(WorkerProcess::close);
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
