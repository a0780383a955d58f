package io.coord;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real ZooKeeper server for coord-core's own tests (coord-core cannot use coord-test, which
 * depends on it). tickTime 500 ms, so sessions from 1 s to 10 s are allowed. Each test gets its
 * own namespace; clients made through {@link #client} are closed after each test.
 */
final class CoreTestServer implements BeforeAllCallback, AfterAllCallback, AfterEachCallback {
    static final int TICK_MS = 500;
    private static final AtomicInteger NAMESPACES = new AtomicInteger();

    private TestingServer server;
    private final List<CoordClient> clients = new ArrayList<>();
    private String namespace;

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        InstanceSpec spec = new InstanceSpec(null, -1, -1, -1, true, -1, TICK_MS, -1,
                Map.of("4lw.commands.whitelist", "*", "admin.enableServer", "false"), "127.0.0.1");
        server = new TestingServer(spec, true);
    }

    @Override
    public void afterEach(ExtensionContext context) {
        synchronized (clients) {
            clients.forEach(CoordClient::close);
            clients.clear();
        }
        namespace = null;
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        server.close();
    }

    TestingServer server() {
        return server;
    }

    String connectString() {
        return server.getConnectString();
    }

    /** A namespace for the current test, the same for every client of this test. */
    String namespace() {
        if (namespace == null) {
            namespace = "t" + NAMESPACES.incrementAndGet();
        }
        return namespace;
    }

    CoordSettings.Builder settings() {
        return CoordSettings.builder().connectString(connectString()).namespace(namespace())
                .sessionTimeout(Duration.ofSeconds(3)).connectionTimeout(Duration.ofSeconds(10));
    }

    CoordClient client() throws InterruptedException {
        return client(b -> b);
    }

    CoordClient client(UnaryOperator<CoordSettings.Builder> customize) throws InterruptedException {
        // toBuilder() lets a test override any default once more
        CoordClient c = CoordClient.connect(customize.apply(settings().build().toBuilder()).build());
        synchronized (clients) {
            clients.add(c);
        }
        return c;
    }

    /** Polls {@code condition} until it holds or {@code budget} runs out; fails naming {@code what}. */
    static void await(Duration budget, BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + budget.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not true within " + budget + ": " + what);
            }
            Thread.sleep(10);
        }
    }

    static void expireOnServer(CoordClient client) throws Exception {
        CoreTestSupport.expireOnServer(client);
    }
}
