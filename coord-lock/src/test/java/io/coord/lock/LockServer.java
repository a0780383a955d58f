package io.coord.lock;

import io.coord.CoordClient;
import io.coord.CoordSettings;
import io.coord.test.EmbeddedEnsemble;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real ZooKeeper (one embedded server, tickTime 500 ms: sessions of 1..10 s) for this module's
 * tests, with a namespace per test and every client closed after it. A stand-in with the same
 * method names as coord-test's ZooKeeperExtension until that lands.
 */
final class LockServer implements BeforeAllCallback, AfterAllCallback, AfterEachCallback {
    static final Duration SESSION = Duration.ofSeconds(4);
    private static final AtomicInteger NAMESPACES = new AtomicInteger();

    private EmbeddedEnsemble ensemble;
    private final List<CoordClient> clients = new ArrayList<>();
    private String namespace;

    @Override
    public void beforeAll(ExtensionContext context) {
        ensemble = EmbeddedEnsemble.start(EmbeddedEnsemble.Options.single());
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
            namespace = "lk" + NAMESPACES.incrementAndGet();
        }
        return namespace;
    }

    CoordClient newClient() {
        return newClient(b -> b);
    }

    CoordClient newClient(UnaryOperator<CoordSettings.Builder> customize) {
        CoordSettings.Builder base = CoordSettings.builder().connectString(connectString()).namespace(namespace())
                .sessionTimeout(SESSION).connectionTimeout(SESSION);
        try {
            CoordClient c = CoordClient.connect(customize.apply(base.build().toBuilder()).build());
            synchronized (clients) {
                clients.add(c);
            }
            return c;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while connecting", e);
        }
    }

    /** The server's answer to a four-letter word. */
    String fourLetter(String word) {
        Optional<String> out = EmbeddedEnsemble.fourLetterWord(ensemble.clientPort(0), word);
        return out.orElseThrow(() -> new AssertionError("no answer to " + word));
    }

    /**
     * Ends {@code client}'s session on the server for real (fault F2): a second handle joins the
     * session with its id and password and closes it; the server deletes its ephemerals at once.
     */
    static long expire(CoordClient client) throws Exception {
        org.apache.zookeeper.ZooKeeper zk = client.curator().getZookeeperClient().getZooKeeper();
        java.util.concurrent.CountDownLatch connected = new java.util.concurrent.CountDownLatch(1);
        org.apache.zookeeper.ZooKeeper twin = new org.apache.zookeeper.ZooKeeper(
                client.curator().getZookeeperClient().getCurrentConnectionString(), zk.getSessionTimeout(), e -> {
                    if (e.getState() == org.apache.zookeeper.Watcher.Event.KeeperState.SyncConnected) {
                        connected.countDown();
                    }
                }, zk.getSessionId(), zk.getSessionPasswd());
        try {
            if (!connected.await(10, java.util.concurrent.TimeUnit.SECONDS)) {
                throw new AssertionError("the twin handle did not connect");
            }
        } finally {
            twin.close();
        }
        return zk.getSessionId();
    }

    /** {@link Locks#inspect} for polling conditions. */
    static LockInfo inspect(CoordClient client, io.coord.CoordPath path) {
        try {
            return Locks.inspect(client, path);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** Polls until {@code condition} holds or {@code budget} runs out; fails naming {@code what}. */
    static void await(String what, Duration budget, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + budget.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("not true within " + budget + ": " + what);
            }
            Thread.sleep(10);
        }
    }
}
