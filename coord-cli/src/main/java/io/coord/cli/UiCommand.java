package io.coord.cli;

import io.coord.CoordClient;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.BindException;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code coord ui}: serves the read-only web console ({@link WebConsole}) for one namespace until
 * interrupted (Ctrl-C).
 */
@Command(name = "ui", mixinStandardHelpOptions = true,
        description = {"Serves a read-only web console of a namespace on localhost: locks, queues, elections and groups,",
            "barriers, config keys and the doctor's findings, updated every second. Nothing it does writes to",
            "ZooKeeper. Runs until interrupted (Ctrl-C)."})
final class UiCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    ConnectOptions connection;

    @Option(names = "--port", paramLabel = "PORT", defaultValue = "8080", description = "the HTTP port, 0 for any free one (default: ${DEFAULT-VALUE})")
    int port;

    @Option(names = "--bind", paramLabel = "ADDRESS", defaultValue = "127.0.0.1",
            description = "the address to listen on (default: ${DEFAULT-VALUE}; the console has no login, so keep it on loopback)")
    String bind;

    @Option(names = "--for", paramLabel = "DURATION", converter = DurationConverter.class, hidden = true,
            description = "stop after DURATION (tests)")
    Duration duration;

    @Override
    public Integer call() throws InterruptedException {
        if (port < 0 || port > 65_535) {
            throw new ParameterException(spec.commandLine(), "--port must be within 0..65535, got " + port);
        }
        PrintWriter out = spec.commandLine().getOut();
        try (CoordClient client = connection.connect(spec)) {
            requireNamespace(client);
            try (WebConsole console = start(client, FindingsSource.doctor(client))) {
                out.println("coord ui: serving " + console.url() + " (read-only; Ctrl-C stops)");
                out.flush();
                CountDownLatch forever = new CountDownLatch(1);
                if (duration == null) {
                    forever.await();
                } else {
                    forever.await(duration.toMillis(), TimeUnit.MILLISECONDS);
                }
            }
        }
        return CoordCommand.OK;
    }

    /**
     * A namespace that does not exist is a usage error, checked from outside it: Curator creates a
     * missing namespace node at a client's first use, and the console must not write.
     */
    private void requireNamespace(CoordClient client) throws InterruptedException {
        String ns = client.settings().namespace();
        if (ns == null) {
            return;
        }
        try {
            if (client.curator().usingNamespace(null).checkExists().forPath("/" + ns) == null) {
                throw new ParameterException(spec.commandLine(), "namespace " + ns + " does not exist on " + connection.connect
                        + " (nothing to show; check --namespace)");
            }
        } catch (InterruptedException | ParameterException e) {
            throw e;
        } catch (Exception e) {
            throw new io.coord.CoordException("cannot read namespace " + ns + ": " + e.getMessage(), e);
        }
    }

    private WebConsole start(CoordClient client, FindingsSource findings) {
        try {
            return WebConsole.start(client, bind, port, findings);
        } catch (BindException e) {
            throw new ParameterException(spec.commandLine(), "cannot listen on " + bind + ":" + port + ": " + e.getMessage()
                    + " (another program has the port? pick one with --port)");
        } catch (IOException | IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "cannot listen on " + bind + ":" + port + ": " + e.getMessage());
        }
    }
}
