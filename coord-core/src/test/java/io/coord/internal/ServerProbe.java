package io.coord.internal;

import io.coord.CoordPath;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * What this package's waiting tests share: a real server (started before a test class, stopped
 * after it) whose four-letter words are open, so a test can ask it which watches it holds; and
 * bounded waits stretched by {@code -Dcoord.test.timing} (coord-test's {@code Awaits} cannot be
 * used here: it depends on coord-core).
 */
final class ServerProbe implements BeforeAllCallback, AfterAllCallback {
    private TestingServer server;

    /** Starts the server on loopback, tickTime 500 ms, with {@code wchp} allowed. */
    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        server = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, 500, -1,
                Map.of("4lw.commands.whitelist", "*", "admin.enableServer", "false"), "127.0.0.1"), true);
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        server.close();
    }

    String connectString() {
        return server.getConnectString();
    }

    /** Whether the server's {@code wchp} (watches by path) lists {@code node} under {@code namespace}. */
    boolean watched(String namespace, CoordPath node) {
        String path = "/" + namespace + node.value();
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", server.getPort()), 5_000);
            socket.setSoTimeout(5_000);
            OutputStream out = socket.getOutputStream();
            out.write("wchp".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            ByteArrayOutputStream answer = new ByteArrayOutputStream();
            socket.getInputStream().transferTo(answer);
            return answer.toString(StandardCharsets.US_ASCII).lines().anyMatch(line -> line.trim().equals(path));
        } catch (java.io.IOException e) {
            throw new AssertionError("wchp failed", e);
        }
    }

    /** Polls {@code condition} until it holds, at most 10 s (scaled); fails naming {@code what}. */
    static void until(String what, BooleanSupplier condition) throws InterruptedException {
        long budget = TimeUnit.MILLISECONDS.toNanos(scaledMillis(10_000));
        long deadline = System.nanoTime() + budget;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("not within " + Duration.ofNanos(budget) + ": " + what);
            }
            Thread.sleep(10);
        }
    }

    /** {@code millis} stretched by {@code -Dcoord.test.timing} (default 1, at least 0.1). */
    static long scaledMillis(long millis) {
        String value = System.getProperty("coord.test.timing", "1").trim();
        double factor;
        try {
            factor = Double.parseDouble(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("coord.test.timing must be a number >= 0.1, got '" + value + "'", e);
        }
        return (long) (millis * Math.max(factor, 0.1));
    }
}
