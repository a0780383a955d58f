package io.coord.cli;

import io.coord.test.EmbeddedEnsemble;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code coord server}: a real ZooKeeper in this process, on 127.0.0.1, for local development. It
 * prints one {@code connect: ...} line, serves until Ctrl-C (or {@link #stop()}), then closes the
 * ensemble: from a shutdown hook when the JVM is asked to exit, so the ports and a temporary data
 * directory are released either way.
 */
@Command(name = "server", mixinStandardHelpOptions = true,
        description = {"Runs an embedded ZooKeeper (1 server or 3) on 127.0.0.1 for local development.",
            "",
            "Prints the connect string, then serves until Ctrl-C."})
final class ServerCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--nodes", defaultValue = "1", paramLabel = "1|3", description = "one server, or a 3-node ensemble (default: ${DEFAULT-VALUE})")
    int nodes;

    @Option(names = "--port", defaultValue = "2181", paramLabel = "PORT",
            description = "client port of the first server (default: ${DEFAULT-VALUE}); a 3-node ensemble also uses PORT+1 and PORT+2 "
                + "for clients and PORT+100.., PORT+200.. between members; 0 picks free ports")
    int port;

    @Option(names = "--data-dir", paramLabel = "DIR",
            description = "keep the data in DIR/zk1, DIR/zk2, ... across restarts (default: a temporary directory, deleted on stop)")
    Path dataDir;

    private final CountDownLatch stopRequested = new CountDownLatch(1);
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final AtomicBoolean closing = new AtomicBoolean();

    @Override
    public Integer call() throws InterruptedException {
        if (nodes != 1 && nodes != 3) {
            throw new ParameterException(spec.commandLine(), "--nodes must be 1 or 3, got " + nodes);
        }
        EmbeddedEnsemble.Options options;
        try {
            options = (nodes == 1 ? EmbeddedEnsemble.Options.single() : EmbeddedEnsemble.Options.quorum()).withBasePort(port);
            if (dataDir != null) {
                options = options.withDataDir(dataDir.toAbsolutePath());
            }
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--port " + port + ": " + e.getMessage());
        }
        checkPortsFree(options);
        PrintWriter out = spec.commandLine().getOut();
        out.println(nodes == 1 ? "starting a ZooKeeper server on 127.0.0.1 ..." : "starting a 3-node ZooKeeper ensemble on 127.0.0.1 ...");
        out.flush();
        EmbeddedEnsemble ensemble = EmbeddedEnsemble.start(options);
        Thread hook = new Thread(() -> {
            stopRequested.countDown();
            shutDown(ensemble, out);
            awaitStopped();
        }, "coord-server-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            out.println("connect: " + ensemble.connectString());
            for (int i = 0; i < ensemble.size(); i++) {
                out.println("  " + ensemble.connectString(i) + "  " + ensemble.mode(i).orElse("not serving yet"));
            }
            out.println("data: " + (dataDir == null ? "temporary, deleted on stop" : dataDir.toAbsolutePath()));
            out.println("Ctrl-C stops " + (nodes == 1 ? "the server" : "the ensemble"));
            out.flush();
            stopRequested.await();
        } finally {
            shutDown(ensemble, out);
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // the JVM is exiting and the hook is doing the same close
            }
        }
        return CoordCommand.OK;
    }

    /**
     * Fails with a clear message if a port the ensemble needs is taken. ZooKeeper's own reaction to
     * a port in use is to log a stack trace and exit the JVM, which a CLI should not show.
     */
    private static void checkPortsFree(EmbeddedEnsemble.Options options) {
        int base = options.basePort();
        if (base == 0) {
            return;
        }
        List<Integer> ports = new ArrayList<>();
        for (int i = 0; i < options.nodes(); i++) {
            ports.add(base + i);
            if (options.nodes() > 1) {
                ports.add(base + 100 + i);
                ports.add(base + 200 + i);
            }
        }
        for (int p : ports) {
            try (ServerSocket socket = new ServerSocket()) {
                socket.setReuseAddress(true);
                socket.bind(new InetSocketAddress(p));
            } catch (IOException e) {
                throw new IllegalStateException("port " + p + " is already in use (another ZooKeeper?); choose another --port,"
                        + " or --port 0 for free ports");
            }
        }
    }

    /** Asks a running {@link #call()} to close the ensemble and return. */
    void stop() {
        stopRequested.countDown();
    }

    private void shutDown(EmbeddedEnsemble ensemble, PrintWriter out) {
        if (!closing.compareAndSet(false, true)) {
            return;
        }
        try {
            ensemble.close();
            out.println("stopped");
            out.flush();
        } finally {
            stopped.countDown();
        }
    }

    /** The shutdown hook must not return (letting the JVM halt) while the main thread is still closing. */
    private void awaitStopped() {
        try {
            stopped.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
