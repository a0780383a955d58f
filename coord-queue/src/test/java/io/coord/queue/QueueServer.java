package io.coord.queue;

import io.coord.CoordClient;
import io.coord.CoordSettings;
import io.coord.test.EmbeddedEnsemble;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real ZooKeeper (one server, or a quorum of three) for this module's tests: each test gets its
 * own namespace, and every client, queue and worker a test makes through this fixture is closed
 * after it, also on failure. A private stand-in for coord-test's ZooKeeperExtension/Faults.
 */
final class QueueServer implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {
    private static final AtomicInteger NAMESPACES = new AtomicInteger();

    private final EmbeddedEnsemble.Options options;
    private final List<AutoCloseable> resources = new ArrayList<>();
    private EmbeddedEnsemble ensemble;
    private String namespace;

    private QueueServer(EmbeddedEnsemble.Options options) {
        this.options = options;
    }

    static QueueServer single() {
        return new QueueServer(EmbeddedEnsemble.Options.single());
    }

    static QueueServer quorum() {
        return new QueueServer(EmbeddedEnsemble.Options.quorum());
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        ensemble = EmbeddedEnsemble.start(options);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (ensemble != null) {
            ensemble.close();
        }
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        namespace = "qt" + NAMESPACES.incrementAndGet();
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        List<AutoCloseable> toClose;
        synchronized (resources) {
            toClose = new ArrayList<>(resources);
            resources.clear();
        }
        Exception first = null;
        for (int i = toClose.size() - 1; i >= 0; i--) {
            try {
                toClose.get(i).close();
            } catch (Exception e) {
                first = first == null ? e : first;
            }
        }
        for (int i = 0; i < ensemble.size(); i++) {
            if (!ensemble.isRunning(i)) {
                ensemble.restart(i);
            }
        }
        if (first != null) {
            throw first;
        }
    }

    EmbeddedEnsemble ensemble() {
        return ensemble;
    }

    String namespace() {
        return namespace;
    }

    CoordSettings.Builder settings() {
        return CoordSettings.builder().connectString(ensemble.connectString()).namespace(namespace)
                .sessionTimeout(Duration.ofSeconds(4)).connectionTimeout(Duration.ofSeconds(15));
    }

    CoordClient client() throws InterruptedException {
        return client(b -> b);
    }

    CoordClient client(UnaryOperator<CoordSettings.Builder> customize) throws InterruptedException {
        return track(CoordClient.connect(customize.apply(settings().build().toBuilder()).build()));
    }

    <T> TaskQueue<T> queue(CoordClient client, String name, Class<T> type, QueueOptions options) {
        return track(TaskQueue.open(client, name, io.coord.Codec.json(type), options));
    }

    <R extends AutoCloseable> R track(R resource) {
        synchronized (resources) {
            resources.add(resource);
        }
        return resource;
    }

    /** Polls {@code condition} until it holds or {@code budget} runs out; fails naming {@code what}. */
    static void await(String what, Duration budget, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + budget.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not true within " + budget + ": " + what);
            }
            Thread.sleep(10);
        }
    }

    /** F2: ends {@code client}'s session on the server (a second handle joins it and closes it). */
    static void expireSession(CoordClient client) throws Exception {
        ZooKeeper zk = client.curator().getZookeeperClient().getZooKeeper();
        expireSession(client.curator().getZookeeperClient().getCurrentConnectionString(), zk.getSessionId(),
                zk.getSessionPasswd(), zk.getSessionTimeout());
    }

    static void expireSession(String connect, long sessionId, byte[] password, int timeoutMs) throws Exception {
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper twin = new ZooKeeper(connect, timeoutMs, e -> {
            if (e.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        }, sessionId, password);
        try {
            if (!connected.await(10, TimeUnit.SECONDS)) {
                throw new AssertionError("twin handle for session 0x" + Long.toHexString(sessionId) + " did not connect");
            }
        } finally {
            twin.close();
        }
    }
}
