package io.coord.membership;

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
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A small private fixture: one real ZooKeeper server (EmbeddedEnsemble, tickTime 500 ms, so
 * sessions of 1–10 s are allowed), a namespace per test, clients closed after each test, and a
 * server-side session expiry. Stands in for coord-test's ZooKeeperExtension and Faults until they
 * are on main.
 */
final class TestZk implements BeforeAllCallback, AfterAllCallback, AfterEachCallback {
    static final Duration SESSION = Duration.ofSeconds(4);
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
        List<AutoCloseable> all;
        synchronized (closeables) {
            all = new ArrayList<>(closeables);
            closeables.clear();
        }
        java.util.Collections.reverse(all);
        for (AutoCloseable c : all) {
            c.close();
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
            namespace = "m" + NAMESPACES.incrementAndGet();
        }
        return namespace;
    }

    CoordClient newClient() {
        return newClient(b -> b);
    }

    /** A client on this test's namespace; {@code customize} may set the connect string or timeouts. */
    CoordClient newClient(UnaryOperator<CoordSettings.Builder> customize) {
        CoordSettings base = CoordSettings.builder().connectString(connectString()).namespace(namespace())
                .sessionTimeout(SESSION).connectionTimeout(Duration.ofSeconds(10)).build();
        try {
            return closeAfter(CoordClient.connect(customize.apply(base.toBuilder()).build()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while connecting", e);
        }
    }

    /** Closes {@code c} after the test (in reverse order of registration). */
    <T extends AutoCloseable> T closeAfter(T c) {
        synchronized (closeables) {
            closeables.add(c);
        }
        return c;
    }

    /**
     * Expires {@code client}'s session on the server: a second handle joins the same session and
     * closes it. The server deletes its ephemerals at once. Returns the expired session id.
     */
    long expireSession(CoordClient client) throws Exception {
        ZooKeeper zk = client.curator().getZookeeperClient().getZooKeeper();
        long id = zk.getSessionId();
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper killer = new ZooKeeper(connectString(), (int) SESSION.toMillis(), e -> {
            if (e.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        }, id, zk.getSessionPasswd());
        try {
            if (!connected.await(10, TimeUnit.SECONDS)) {
                throw new AssertionError("the second handle for session 0x" + Long.toHexString(id) + " did not connect");
            }
        } finally {
            killer.close();
        }
        return id;
    }

    /** Waits, at most {@code timeout}, until {@code condition} holds; fails naming {@code what}. */
    static Duration await(String what, Duration timeout, BooleanSupplier condition) {
        long start = System.nanoTime();
        long deadline = start + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + timeout + " waiting until " + what);
            }
            try {
                Thread.sleep(10); // polling a condition read from the system under test; bounded above
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while waiting until " + what, e);
            }
        }
        return Duration.ofNanos(System.nanoTime() - start);
    }
}
