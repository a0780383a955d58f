package io.coord.cli;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Asks each member of an ensemble {@code srvr} (a four-letter word on the client port) for its
 * mode and version. Servers may refuse four-letter words ({@code 4lw.commands.whitelist}) or not
 * answer them at all (a TLS-only port); the report then says so instead of guessing.
 */
final class ServerProbe {
    private static final int MAX_ANSWER_BYTES = 64 * 1024;

    private ServerProbe() {
    }

    /** The {@code host:port} entries of a connect string, without its chroot. */
    static List<String> hosts(String connectString) {
        String hostPart = connectString;
        int slash = connectString.indexOf('/');
        if (slash >= 0) {
            hostPart = connectString.substring(0, slash);
        }
        List<String> hosts = new ArrayList<>();
        for (String h : hostPart.split(",")) {
            if (!h.isBlank()) {
                hosts.add(h.trim());
            }
        }
        return hosts;
    }

    /** Probes every address at once, each bounded by {@code timeout}; results in the given order. */
    static List<ServerReport> probeAll(List<String> addresses, Duration timeout) throws InterruptedException {
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, addresses.size()), r -> {
            Thread t = new Thread(r, "coord-status-probe");
            t.setDaemon(true);
            return t;
        });
        try {
            List<CompletableFuture<ServerReport>> futures = addresses.stream()
                    .map(a -> CompletableFuture.supplyAsync(() -> probe(a, timeout), pool))
                    .toList();
            List<ServerReport> reports = new ArrayList<>();
            long deadline = System.nanoTime() + 3 * timeout.toNanos();
            for (int i = 0; i < addresses.size(); i++) {
                try {
                    reports.add(futures.get(i).get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
                } catch (ExecutionException e) {
                    reports.add(new ServerReport(addresses.get(i), false, null, null, "probe failed: " + Main.oneLine(e.getCause())));
                } catch (TimeoutException e) {
                    reports.add(ServerReport.unreachable(addresses.get(i), "no answer within " + timeout.toMillis() + " ms"));
                }
            }
            return reports;
        } finally {
            pool.shutdownNow();
        }
    }

    /** Connects to {@code address}, sends {@code srvr}, and reads the answer until the server closes. */
    static ServerReport probe(String address, Duration timeout) {
        int colon = address.lastIndexOf(':');
        String host = address.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port = Integer.parseInt(address.substring(colon + 1));
        int millis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis()));
        try (Socket socket = new Socket()) {
            try {
                socket.connect(new InetSocketAddress(host, port), millis);
            } catch (UnknownHostException e) {
                return ServerReport.unreachable(address, "unknown host " + host);
            } catch (ConnectException e) {
                return ServerReport.unreachable(address, "connection refused");
            } catch (SocketTimeoutException e) {
                return ServerReport.unreachable(address, "no connection within " + millis + " ms");
            } catch (IllegalArgumentException e) {
                return ServerReport.unreachable(address, "unknown host " + host);
            }
            socket.setSoTimeout(millis);
            OutputStream out = socket.getOutputStream();
            out.write("srvr".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            ByteArrayOutputStream answer = new ByteArrayOutputStream();
            InputStream in = socket.getInputStream();
            byte[] buffer = new byte[4096];
            try {
                for (int n; answer.size() < MAX_ANSWER_BYTES && (n = in.read(buffer)) >= 0; ) {
                    answer.write(buffer, 0, n);
                }
            } catch (SocketTimeoutException e) {
                if (answer.size() == 0) {
                    return new ServerReport(address, true, null, null, "accepted the connection but did not answer srvr within "
                            + millis + " ms (not ZooKeeper, or a TLS-only port?)");
                }
            }
            return parse(address, answer.toString(StandardCharsets.UTF_8));
        } catch (IOException e) {
            return new ServerReport(address, true, null, null, "connection failed while asking srvr: " + Main.oneLine(e));
        }
    }

    /** Reads mode and version from a {@code srvr} answer, or explains why they are not in it. */
    static ServerReport parse(String address, String answer) {
        if (answer.isBlank()) {
            return new ServerReport(address, true, null, null,
                    "closed the connection without answering srvr (four-letter words disabled, or a TLS-only port?)");
        }
        if (answer.contains("is not executed because it is not in the whitelist")) {
            return new ServerReport(address, true, null, null,
                    "mode and version unknown: this server does not allow srvr (4lw.commands.whitelist)");
        }
        if (answer.contains("not currently serving requests")) {
            return new ServerReport(address, true, null, null, "not serving requests (no quorum, or still starting)");
        }
        String mode = null;
        String version = null;
        for (String line : answer.split("\\R")) {
            if (line.startsWith("Mode:")) {
                mode = line.substring("Mode:".length()).trim();
            } else if (line.startsWith("Zookeeper version:")) {
                version = line.substring("Zookeeper version:".length()).split(",")[0].trim().replaceFirst("-[0-9a-f]{40}$", "");
            }
        }
        String note = mode == null ? "unexpected answer to srvr: " + answer.lines().findFirst().orElse("").strip() : null;
        return new ServerReport(address, true, mode, version, note);
    }
}
