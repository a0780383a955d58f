package io.coord.cli.demo;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code coord demo}: a small batch job in separate worker processes that uses every recipe, with
 * faults injected on the way, and checks its own invariants. Exit code 0 when they all hold, 1
 * when one fails (the output names it).
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = {"Runs a batch job in worker JVMs that uses every recipe, under faults.",
            "",
            "Starts a 3-node ZooKeeper ensemble on loopback (or uses --connect) and N",
            "worker processes. They join a group and register a service; one is elected",
            "coordinator and fills a task queue with ids from SequenceIds and BlockIds;",
            "all meet at a double barrier, then post the tasks to a ledger under a lock,",
            "each write carrying the lock's fencing token. Mid-run batch.size changes and",
            "every worker hot-reloads it. A lock holder is paused past its session",
            "timeout (its late write must be refused); a claim holder and the coordinator",
            "are killed (their tasks come back, a new coordinator takes over with a higher",
            "epoch). The survivors leave through a barrier. The run then checks its own",
            "invariants: ledger exact, every task done once, no stale write accepted,",
            "epochs increase, config applied everywhere."},
        footer = {"", "Exit codes: 0 every invariant holds, 1 one failed (named in the output), 2 usage error."})
public final class DemoCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--workers", defaultValue = "4", paramLabel = "N",
            description = "worker processes, " + DemoOptions.MIN_WORKERS + ".." + DemoOptions.MAX_WORKERS + " (default: ${DEFAULT-VALUE})")
    int workers;

    @Option(names = {"-c", "--connect"}, paramLabel = "HOST:PORT[,...]",
            description = "run against this ensemble instead of an embedded one (it must grant a 3 s session);"
                + " everything goes under a namespace of its own, removed at the end")
    String connect;

    @Option(names = "--seed", paramLabel = "S", description = "seeds the task amounts and the choice of workers to pause and kill (default: random, printed)")
    Long seed;

    @Option(names = "--logs", paramLabel = "DIR", description = "keep each worker's log in DIR/worker-N.log")
    Path logs;

    @Option(names = "--ui", description = "serve the read-only web console (coord ui) of the run's namespace while it runs, and print its URL")
    boolean ui;

    @Option(names = "--ui-port", paramLabel = "P", defaultValue = "8080",
            description = "with --ui: the console's port on 127.0.0.1, 0 for any free one (default: ${DEFAULT-VALUE})")
    int uiPort;

    @Option(names = "--unfenced", hidden = true,
            description = "control run: the ledger accepts stale tokens, so the run's own checks must fail (exit 1)")
    boolean unfenced;

    @Override
    public Integer call() throws InterruptedException {
        quietExpectedWarnings();
        DemoOptions options;
        try {
            options = DemoOptions.defaults(seed != null ? seed : System.nanoTime() % 100_000)
                    .withWorkers(workers).withConnect(connect).withFenced(!unfenced).withLogs(logs)
                    .withUi(ui ? uiPort : DemoOptions.NO_UI);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        return run(options, spec.commandLine().getOut(), System.console() != null).exitCode();
    }

    /**
     * The demo causes some warnings on purpose and narrates them itself: the fence's log of the
     * rejected write, and the embedded servers' log (with a stack trace) of each killed worker's
     * connection. Only those two loggers are raised to ERROR, and only for this command
     * (slf4j-simple reads a logger's level when the logger is first created).
     */
    private static void quietExpectedWarnings() {
        System.setProperty("org.slf4j.simpleLogger.log.io.coord.fence.InMemoryFenceGuard", "error");
        System.setProperty("org.slf4j.simpleLogger.log.org.apache.zookeeper.server.NIOServerCnxn", "error");
    }

    /**
     * Runs the demo with {@code options}, printing to {@code out}. A shutdown hook stops the
     * workers and the ensemble if the JVM is asked to exit meanwhile (Ctrl-C).
     */
    static DemoResult run(DemoOptions options, PrintWriter out, boolean terminal) throws InterruptedException {
        DemoRun run = new DemoRun(options, out, terminal);
        // close() is synchronized: a hook that comes while the main thread closes waits for it to finish
        Thread hook = new Thread(run::close, "coord-demo-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            return run.run();
        } finally {
            run.close();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // the JVM is exiting and the hook does the same close
            }
        }
    }
}
