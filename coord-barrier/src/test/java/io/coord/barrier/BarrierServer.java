package io.coord.barrier;

import io.coord.CoordClient;
import io.coord.CoordMetrics;
import io.coord.CoordSettings;
import io.coord.test.EmbeddedEnsemble;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;

/**
 * A private test fixture (until coord-test's ZooKeeperExtension and Faults land on main): one
 * embedded ZooKeeper on loopback (tickTime 500 ms, so sessions of 1–10 s are allowed), clients on
 * a fresh namespace per test, a real server-side session expiry, and bounded polling.
 */
final class BarrierServer implements AutoCloseable {
    private static final AtomicInteger NAMESPACES = new AtomicInteger();

    private final EmbeddedEnsemble ensemble;
    private final List<CoordClient> clients = new CopyOnWriteArrayList<>();
    private String namespace;

    BarrierServer() {
        this.ensemble = EmbeddedEnsemble.start(EmbeddedEnsemble.Options.single());
        newNamespace();
    }

    String connectString() {
        return ensemble.connectString();
    }

    EmbeddedEnsemble ensemble() {
        return ensemble;
    }

    String namespace() {
        return namespace;
    }

    /** A fresh namespace: tests of one class do not see each other's nodes. */
    void newNamespace() {
        namespace = "barrier-test-" + NAMESPACES.incrementAndGet();
    }

    CoordClient client() throws InterruptedException {
        return client(Duration.ofSeconds(4), connectString(), CoordMetrics.noop());
    }

    CoordClient client(Duration sessionTimeout) throws InterruptedException {
        return client(sessionTimeout, connectString(), CoordMetrics.noop());
    }

    /** A client on this test's namespace; closed by {@link #closeClients()}. */
    CoordClient client(Duration sessionTimeout, String connect, CoordMetrics metrics) throws InterruptedException {
        CoordClient client = CoordClient.connect(CoordSettings.builder().connectString(connect).namespace(namespace)
                .sessionTimeout(sessionTimeout).connectionTimeout(Duration.ofSeconds(10)).metrics(metrics).build());
        clients.add(client);
        return client;
    }

    void closeClients() {
        for (CoordClient c : clients) {
            try {
                c.close();
            } catch (RuntimeException e) {
                // keep closing the others
            }
        }
        clients.clear();
    }

    /**
     * Expires {@code client}'s session on the server (fault F2): a second handle joins the same
     * session with its id and password and closes it; the server deletes its ephemerals at once.
     */
    long expireSession(CoordClient client) throws InterruptedException {
        ZooKeeper zk;
        try {
            zk = client.curator().getZookeeperClient().getZooKeeper();
        } catch (Exception e) {
            throw new IllegalStateException("no ZooKeeper handle in " + client, e);
        }
        long id = zk.getSessionId();
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper killer;
        try {
            killer = new ZooKeeper(connectString(), 4000, e -> {
                if (e.getState() == Watcher.Event.KeeperState.SyncConnected) {
                    connected.countDown();
                }
            }, id, zk.getSessionPasswd());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try {
            if (!connected.await(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("could not join session 0x" + Long.toHexString(id));
            }
        } finally {
            killer.close();
        }
        return id;
    }

    /** Polls {@code condition} until it holds, at most {@code budget}; fails naming {@code what}. */
    static void await(String what, Duration budget, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + budget.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("not within " + budget.toMillis() + " ms: " + what);
            }
            Thread.sleep(10);
        }
    }

    @Override
    public void close() {
        closeClients();
        ensemble.close();
    }
}
