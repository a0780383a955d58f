package io.coord.naming;

import io.coord.CoordClient;
import io.coord.CoordSettings;
import io.coord.test.EmbeddedEnsemble;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real ZooKeeper (coord-test's {@link EmbeddedEnsemble}) for this module's tests: started once
 * per test class, a fresh namespace per test, every client made by {@link #newClient} closed after
 * the test. A small private stand-in with the shape of coord-test's ZooKeeperExtension.
 */
final class TestZk implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {
    static final Duration SESSION = Duration.ofSeconds(4);
    private static final AtomicInteger NAMESPACES = new AtomicInteger();

    private final EmbeddedEnsemble.Options options;
    private final List<CoordClient> clients = new ArrayList<>();
    private volatile EmbeddedEnsemble ensemble;
    private volatile String namespace;

    private TestZk(EmbeddedEnsemble.Options options) {
        this.options = options;
    }

    static TestZk single() {
        return new TestZk(EmbeddedEnsemble.Options.single());
    }

    static TestZk quorum() {
        return new TestZk(EmbeddedEnsemble.Options.quorum());
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        ensemble = EmbeddedEnsemble.start(options);
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        namespace = "t" + NAMESPACES.incrementAndGet();
    }

    /** Threads this module starts; each must be gone once the test closed what it opened. */
    private static final List<String> OUR_THREADS = List.of("coord-block-ids-", "coord-discovery-health-");

    @Override
    public void afterEach(ExtensionContext context) throws InterruptedException {
        synchronized (clients) {
            clients.forEach(CoordClient::close);
            clients.clear();
        }
        Awaits.until(Duration.ofSeconds(5), () -> leftThreads().isEmpty(), "threads left running: " + leftThreads());
        for (int i = 0; i < ensemble.size(); i++) {
            if (!ensemble.isRunning(i)) {
                ensemble.restart(i);
            }
        }
    }

    private static List<String> leftThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                .filter(n -> OUR_THREADS.stream().anyMatch(n::startsWith)).toList();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (ensemble != null) {
            ensemble.close();
        }
    }

    EmbeddedEnsemble ensemble() {
        return ensemble;
    }

    String namespace() {
        return namespace;
    }

    String connectString() {
        return ensemble.connectString();
    }

    CoordClient newClient() throws InterruptedException {
        return newClient(b -> b);
    }

    CoordClient newClient(UnaryOperator<CoordSettings.Builder> custom) throws InterruptedException {
        CoordSettings.Builder builder = CoordSettings.builder()
                .connectString(ensemble.connectString())
                .namespace(namespace)
                .sessionTimeout(SESSION)
                .connectionTimeout(SESSION);
        CoordClient client = CoordClient.connect(custom.apply(builder).build());
        synchronized (clients) {
            clients.add(client);
        }
        return client;
    }
}
