package io.coord.cli;

import io.coord.ConnectionLostException;
import io.coord.CoordClient;
import io.coord.CoordException;
import io.coord.CoordSettings;
import io.coord.CoordTimeoutException;
import io.coord.Credentials;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ClientInfo;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code coord status}: asks every member for its mode and version ({@code srvr}), then opens a
 * session with {@link CoordClient#connect} and reports its id, the requested and negotiated
 * session timeouts, and the identity. An ensemble no member of which answers is a one-line error
 * and exit code 3, found out without waiting for the connect timeout.
 */
@Command(name = "status", mixinStandardHelpOptions = true,
        description = {"Shows an ensemble's servers and what a session on it gets.",
            "",
            "Asks each server for its mode and version (the srvr four-letter word, where the server allows it), "
                + "then opens a session and shows its id, the requested vs negotiated session timeout and the "
                + "authenticated identity."})
final class StatusCommand implements Callable<Integer> {
    private static final Pattern REMOTE = Pattern.compile("remoteserver:(\\S+)");
    private static final Duration MAX_PROBE_TIMEOUT = Duration.ofSeconds(3);

    @Spec
    CommandSpec spec;

    @Mixin
    ConnectOptions connection;

    @Option(names = "--json", description = "print one JSON object instead of text")
    boolean json;

    @Option(names = "--session-timeout", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "session timeout to request, e.g. 10s (default: the client default, 30s)")
    Duration sessionTimeout;

    @Override
    public Integer call() throws InterruptedException {
        CoordSettings settings = settings();
        List<String> addresses = ServerProbe.hosts(settings.connectString());
        Duration probeTimeout = connection.connectTimeout.compareTo(MAX_PROBE_TIMEOUT) < 0 ? connection.connectTimeout : MAX_PROBE_TIMEOUT;
        List<ServerReport> servers = ServerProbe.probeAll(addresses, probeTimeout);
        if (servers.stream().noneMatch(ServerReport::reachable)) {
            String why = "cannot reach ZooKeeper at " + servers.stream()
                    .map(s -> s.address() + " (" + s.note() + ")").collect(Collectors.joining(", "));
            return fail(StatusReport.failed(connection.connect, servers, why), false, CoordCommand.UNAVAILABLE);
        }
        StatusReport report;
        try (CoordClient client = CoordClient.connect(settings)) {
            ZooKeeper zk = zooKeeper(client);
            report = new StatusReport(connection.connect, servers, client.session().idHex(), connectedTo(zk),
                    client.requestedSessionTimeout().toMillis(), client.negotiatedSessionTimeout().toMillis(),
                    identity(settings), whoAmI(zk), null);
        } catch (CoordTimeoutException | ConnectionLostException e) {
            return fail(StatusReport.failed(connection.connect, servers, e.getMessage()), true, CoordCommand.UNAVAILABLE);
        } catch (CoordException e) {
            return fail(StatusReport.failed(connection.connect, servers, e.getMessage()), true, CoordCommand.FAILED);
        }
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            out.println(report.json());
        } else {
            report.text().forEach(out::println);
        }
        out.flush();
        return CoordCommand.OK;
    }

    private CoordSettings settings() {
        return connection.settings(spec, b -> sessionTimeout == null ? b : b.sessionTimeout(sessionTimeout));
    }

    /** Prints what is known (text only if some server answered), then the one-line error. */
    private int fail(StatusReport report, boolean someReachable, int code) {
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            out.println(report.json());
        } else if (someReachable) {
            report.text().forEach(out::println);
        }
        out.flush();
        PrintWriter err = spec.commandLine().getErr();
        err.println(spec.qualifiedName() + ": " + report.error());
        err.flush();
        return code;
    }

    private static String identity(CoordSettings settings) {
        return settings.credentials().isEmpty() ? "anonymous"
                : settings.credentials().stream().map(Credentials::principal).collect(Collectors.joining(", "));
    }

    private static ZooKeeper zooKeeper(CoordClient client) {
        try {
            return client.curator().getZookeeperClient().getZooKeeper();
        } catch (Exception e) {
            throw new ConnectionLostException("the ZooKeeper handle went away: " + Main.oneLine(e), e);
        }
    }

    /** The identities the server attached to this session; null if the server cannot say (older than 3.7). */
    private static List<String> whoAmI(ZooKeeper zk) throws InterruptedException {
        try {
            List<ClientInfo> infos = zk.whoAmI();
            return infos == null ? null : infos.stream().map(i -> i.getAuthScheme() + ":" + i.getUser()).toList();
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** The member this session talks to, read from the handle's description ({@code remoteserver:host/ip:port}). */
    private static String connectedTo(ZooKeeper zk) {
        Matcher m = REMOTE.matcher(String.valueOf(zk));
        if (!m.find() || m.group(1).equals("null")) {
            return null;
        }
        String remote = m.group(1);
        int slash = remote.indexOf('/');
        return slash >= 0 && slash < remote.length() - 1 ? remote.substring(slash + 1) : remote;
    }
}
