package io.coord.config;

import io.coord.AclPolicy;
import io.coord.CoordClient;
import io.coord.CoordSession;
import io.coord.CoordSettings;
import io.coord.Credentials;
import io.coord.SessionExpiredException;
import io.coord.SessionState;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.netcrusher.core.reactor.NioReactor;
import org.netcrusher.tcp.TcpCrusher;
import org.netcrusher.tcp.TcpCrusherBuilder;

/**
 * A real ZooKeeper server on loopback (tickTime 200 ms: sessions of 0.4–4 s) and everything a
 * test opens on it, closed in reverse order by {@link #close()}, also when the test failed.
 * A private fixture until coord-test's ZooKeeperExtension, Faults and ClientProxy land on main.
 */
final class ConfigTestKit implements AutoCloseable {
    static final int TICK_MS = 200;
    static final Duration SESSION = Duration.ofSeconds(3);
    /** Generous: connecting includes the server's auth confirmation, slow on a loaded 2-core machine. */
    static final Duration CONNECT = Duration.ofSeconds(10);

    final TestingServer server;
    private final Deque<AutoCloseable> toClose = new ArrayDeque<>();

    private ConfigTestKit(TestingServer server) {
        this.server = server;
    }

    static ConfigTestKit start() throws Exception {
        InstanceSpec spec = new InstanceSpec(null, -1, -1, -1, true, -1, TICK_MS, -1,
                Map.of("admin.enableServer", "false"), "127.0.0.1");
        return new ConfigTestKit(new TestingServer(spec, true));
    }

    String connectString() {
        return server.getConnectString();
    }

    CoordSettings.Builder settings(String connectString) {
        return CoordSettings.builder().connectString(connectString).sessionTimeout(SESSION)
                .connectionTimeout(CONNECT);
    }

    CoordClient client() throws InterruptedException {
        return client(settings(connectString()).build());
    }

    CoordClient client(AclPolicy policy, Credentials... credentials) throws InterruptedException {
        CoordSettings.Builder b = settings(connectString()).aclPolicy(policy);
        for (Credentials c : credentials) {
            b.credentials(c);
        }
        return client(b.build());
    }

    CoordClient client(CoordSettings settings) throws InterruptedException {
        return closeLater(CoordClient.connect(settings));
    }

    <T extends AutoCloseable> T closeLater(T resource) {
        toClose.push(resource);
        return resource;
    }

    /** A loopback proxy in front of the server, to drop (F4) or black-hole (F5) one client's connection. */
    Proxy proxy() {
        return closeLater(new Proxy(server.getPort()));
    }

    /** Polls {@code condition} every 10 ms until it holds or {@code budget} is spent, then fails naming {@code what}. */
    static void await(String what, Duration budget, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + budget.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("not within " + budget + ": " + what);
            }
            Thread.sleep(10);
        }
    }

    static void await(Supplier<String> what, Duration budget, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + budget.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("not within " + budget + ": " + what.get());
            }
            Thread.sleep(10);
        }
    }

    /** F2: a real server-side expiry: a second handle on the client's session id and password, then closed. */
    void expire(CoordClient client) throws Exception {
        ZooKeeper zk = client.curator().getZookeeperClient().getZooKeeper();
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper twin = new ZooKeeper(connectString(), (int) SESSION.toMillis(), e -> {
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

    /** The id of the client's live session, or 0 while it has none. */
    static long liveSessionId(CoordClient client) {
        try {
            CoordSession s = client.session();
            return s.state() == SessionState.CONNECTED ? s.id() : 0;
        } catch (SessionExpiredException e) {
            return 0;
        }
    }

    @Override
    public void close() throws IOException {
        Exception first = null;
        while (!toClose.isEmpty()) {
            try {
                toClose.pop().close();
            } catch (Exception e) {
                if (first == null) {
                    first = e;
                }
            }
        }
        server.close();
        if (first != null) {
            throw new IOException("closing a test resource failed", first);
        }
    }

    /** A netcrusher TCP proxy on loopback in front of one server. */
    static final class Proxy implements AutoCloseable {
        private final NioReactor reactor;
        private final TcpCrusher crusher;
        private final int port;

        Proxy(int serverPort) {
            try {
                reactor = new NioReactor(5);
                try (ServerSocket probe = new ServerSocket(0)) {
                    port = probe.getLocalPort();
                }
            } catch (IOException e) {
                throw new UncheckedIOException("could not start a proxy", e);
            }
            crusher = TcpCrusherBuilder.builder().withReactor(reactor).withBindAddress("127.0.0.1", port)
                    .withConnectAddress("127.0.0.1", serverPort).buildAndOpen();
        }

        String connectString() {
            return "127.0.0.1:" + port;
        }

        /** F4: drops every connection through the proxy (the client reconnects, same session). */
        void dropConnections() {
            crusher.closeAllPairs();
        }

        /** F5: nothing passes either way until {@link #unfreeze()}. */
        void freeze() {
            crusher.freeze();
        }

        void unfreeze() {
            if (crusher.isFrozen()) {
                crusher.unfreeze();
            }
        }

        @Override
        public void close() {
            crusher.close();
            reactor.close();
        }
    }
}
