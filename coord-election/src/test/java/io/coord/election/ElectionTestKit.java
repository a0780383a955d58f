package io.coord.election;

import io.coord.CoordClient;
import io.coord.CoordMetrics;
import io.coord.CoordSettings;
import io.coord.test.EmbeddedEnsemble;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real ZooKeeper for the election tests (one server, tickTime 500 ms: sessions of 1..10 s), one
 * namespace per test, clients and elections closed after each test, and a small leak check: no
 * election thread of this module may outlive its test. (coord-test's ZooKeeperExtension and
 * LeakCheckExtension replace this once they land.)
 */
final class ElectionTestKit implements BeforeAllCallback, AfterAllCallback, AfterEachCallback {
    private static final AtomicInteger NAMESPACES = new AtomicInteger();

    private EmbeddedEnsemble ensemble;
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private String namespace;

    @Override
    public void beforeAll(ExtensionContext context) {
        ensemble = EmbeddedEnsemble.start(EmbeddedEnsemble.Options.single());
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        List<AutoCloseable> toClose;
        synchronized (closeables) {
            toClose = new ArrayList<>(closeables);
            closeables.clear();
        }
        // Elections before clients: reverse order of creation.
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
        namespace = null;
        await(Duration.ofSeconds(10), () -> electionThreads().isEmpty(), () -> "election threads left behind: " + electionThreads());
    }

    @Override
    public void afterAll(ExtensionContext context) {
        ensemble.close();
    }

    EmbeddedEnsemble ensemble() {
        return ensemble;
    }

    String connectString() {
        return ensemble.connectString();
    }

    String namespace() {
        if (namespace == null) {
            namespace = "e" + NAMESPACES.incrementAndGet();
        }
        return namespace;
    }

    CoordClient client() throws InterruptedException {
        return client(b -> b);
    }

    CoordClient client(UnaryOperator<CoordSettings.Builder> customize) throws InterruptedException {
        CoordSettings.Builder b = CoordSettings.builder().connectString(connectString()).namespace(namespace())
                .sessionTimeout(Duration.ofSeconds(3)).connectionTimeout(Duration.ofSeconds(3)).build().toBuilder();
        return track(CoordClient.connect(customize.apply(b).build()));
    }

    Election election(CoordClient client, String name, ElectionOptions options) {
        return track(Election.open(client, name, options));
    }

    <T extends AutoCloseable> T track(T closeable) {
        synchronized (closeables) {
            closeables.add(closeable);
        }
        return closeable;
    }

    static List<String> electionThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive)
                .map(Thread::getName).filter(n -> n.startsWith("coord-election-")).toList();
    }

    /** Polls until {@code condition} holds or {@code budget} runs out; fails naming {@code what}. */
    static void await(Duration budget, BooleanSupplier condition, Supplier<String> what) throws InterruptedException {
        long deadline = System.nanoTime() + budget.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("not true within " + budget + ": " + what.get());
            }
            Thread.sleep(5);
        }
    }

    /**
     * Ends {@code client}'s session on the server, as an expiry does: a second handle with the same
     * session id and password connects and closes.
     */
    static void expireOnServer(CoordClient client) throws Exception {
        ZooKeeper zk = client.curator().getZookeeperClient().getZooKeeper();
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper twin = new ZooKeeper(client.curator().getZookeeperClient().getCurrentConnectionString(),
                zk.getSessionTimeout(), e -> {
                    if (e.getState() == Watcher.Event.KeeperState.SyncConnected) {
                        connected.countDown();
                    }
                }, zk.getSessionId(), zk.getSessionPasswd());
        try {
            if (!connected.await(10, TimeUnit.SECONDS)) {
                throw new AssertionError("twin handle did not connect");
            }
        } finally {
            twin.close();
        }
    }

    /** Counts what Coord reports, per name and tags. */
    static final class RecordingMetrics implements CoordMetrics {
        private final Map<String, AtomicLong> counters = new ConcurrentHashMap<>();
        private final Map<String, List<Duration>> timers = new ConcurrentHashMap<>();

        @Override
        public void increment(String name, String... tags) {
            counters.computeIfAbsent(name, k -> new AtomicLong()).incrementAndGet();
        }

        @Override
        public void recordTime(String name, Duration duration, String... tags) {
            timers.computeIfAbsent(name, k -> java.util.Collections.synchronizedList(new ArrayList<>())).add(duration);
        }

        @Override
        public void gauge(String name, Supplier<? extends Number> value, String... tags) {
        }

        long count(String name) {
            AtomicLong c = counters.get(name);
            return c == null ? 0 : c.get();
        }

        List<Duration> times(String name) {
            List<Duration> t = timers.get(name);
            return t == null ? List.of() : List.copyOf(t);
        }
    }
}
