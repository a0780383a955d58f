package io.coord.election;

import io.coord.CoordClient;
import io.coord.CoordMetrics;
import io.coord.CoordSettings;
import io.coord.test.Awaits;
import io.coord.test.EmbeddedEnsemble;
import io.coord.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * coord-test's {@link ZooKeeperExtension} (one server, a namespace per test, clients closed and
 * leak checks after each test) plus what elections need around it: every {@link Election} a test
 * opens is closed first (before the clients), and no election thread (they are daemons, which the
 * leak check does not count) may outlive its test.
 */
final class ElectionTestKit implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {
    private final ZooKeeperExtension zk = ZooKeeperExtension.single();
    private final List<AutoCloseable> closeables = new ArrayList<>();

    @Override
    public void beforeAll(ExtensionContext context) {
        zk.beforeAll(context);
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        zk.beforeEach(context);
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        List<AutoCloseable> toClose;
        synchronized (closeables) {
            toClose = new ArrayList<>(closeables);
            closeables.clear();
        }
        try {
            for (int i = toClose.size() - 1; i >= 0; i--) {
                toClose.get(i).close();
            }
        } finally {
            zk.afterEach(context);
        }
        await(Duration.ofSeconds(10), () -> electionThreads().isEmpty(), () -> "election threads left behind: " + electionThreads());
    }

    @Override
    public void afterAll(ExtensionContext context) {
        zk.afterAll(context);
    }

    EmbeddedEnsemble ensemble() {
        return zk.ensemble();
    }

    String connectString() {
        return zk.connectString();
    }

    String namespace() {
        return zk.namespace();
    }

    /** A client with a 3 s session (unless {@code customize} sets another), closed after the test. */
    CoordClient client(UnaryOperator<CoordSettings.Builder> customize) {
        return zk.newClient(b -> {
            CoordSettings.Builder custom = customize.apply(b);
            try {
                custom.sessionTimeout(Duration.ofSeconds(3)).connectionTimeout(Duration.ofSeconds(3));
            } catch (io.coord.ConfigurationException chosenByTheTest) {
                // the test set its own timeouts
            }
            return custom;
        });
    }

    CoordClient client() {
        return client(b -> b);
    }

    Election election(CoordClient client, String name, ElectionOptions options) {
        return track(Election.open(client, name, options));
    }

    /** Closed after the test, before the clients, in reverse order. */
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

    /**
     * Polls until {@code condition} holds or {@code budget} (scaled by coord-test's timing factor)
     * runs out; fails naming {@code what}, evaluated at the failure so it can show the state.
     */
    static void await(Duration budget, BooleanSupplier condition, Supplier<String> what) throws InterruptedException {
        long deadline = System.nanoTime() + Awaits.scaled(budget).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("not true within " + Awaits.scaled(budget) + ": " + what.get());
            }
            Thread.sleep(5);
        }
    }

    /** How many candidates {@code e} has now, for a wait's condition (-1 if interrupted). */
    static int candidateCount(Election e) {
        try {
            return e.candidates().size();
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    /** Counts what Coord reports, per name. */
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
