package io.coord.config;

import io.coord.AclPolicy;
import io.coord.CoordClient;
import io.coord.CoordSession;
import io.coord.CoordSettings;
import io.coord.Credentials;
import io.coord.SessionExpiredException;
import io.coord.SessionState;
import io.coord.test.Awaits;
import io.coord.test.ClientProxy;
import io.coord.test.Faults;
import io.coord.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * What the config tests share on top of coord-test's {@link ZooKeeperExtension} (which makes and
 * closes the clients, and fails a test that leaks threads or ephemerals): readers and proxies
 * closed in reverse order by {@link #close()} (call it from {@code @AfterEach}, which runs before
 * the extension closes the clients), faults, and bounded waits.
 */
final class ConfigTestKit implements AutoCloseable {
    private final ZooKeeperExtension zk;
    private final Deque<AutoCloseable> toClose = new ArrayDeque<>();

    ConfigTestKit(ZooKeeperExtension zk) {
        this.zk = zk;
    }

    ZooKeeperExtension zk() {
        return zk;
    }

    CoordClient client() {
        return zk.newClient();
    }

    CoordClient client(UnaryOperator<CoordSettings.Builder> customize) {
        return zk.newClient(customize);
    }

    CoordClient client(AclPolicy policy, Credentials... credentials) {
        return zk.newClient(b -> {
            b.aclPolicy(policy);
            for (Credentials c : credentials) {
                b.credentials(c);
            }
            return b;
        });
    }

    /** Settings for a reader that connects by itself ({@link LiveConfig#watch(CoordSettings, ConfigKey, ConfigOptions)}). */
    CoordSettings settings(Duration connectionTimeout) {
        return CoordSettings.builder().connectString(zk.connectString()).namespace(zk.namespace())
                .sessionTimeout(ZooKeeperExtension.DEFAULT_SESSION_TIMEOUT).connectionTimeout(connectionTimeout).build();
    }

    <T extends AutoCloseable> T closeLater(T resource) {
        toClose.push(resource);
        return resource;
    }

    /** A loopback proxy in front of the server, to cut (F4) or black-hole (F5) the clients that use it. */
    ClientProxy proxy() {
        return closeLater(ClientProxy.to(zk.connectString()));
    }

    /** F2: a real server-side session expiry. */
    void expire(CoordClient client) {
        Faults.expireSession(client, zk.ensemble());
    }

    /** Polls {@code condition} until it holds or {@code budget} (scaled by coord.test.timing) is spent, then fails naming {@code what}. */
    static void await(Supplier<String> what, Duration budget, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Awaits.scaled(budget).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("not within " + Awaits.scaled(budget) + ": " + what.get());
            }
            Thread.sleep(10);
        }
    }

    static void await(String what, Duration budget, BooleanSupplier condition) throws InterruptedException {
        await(() -> what, budget, condition);
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
    public void close() {
        RuntimeException first = null;
        while (!toClose.isEmpty()) {
            try {
                toClose.pop().close();
            } catch (Exception e) {
                if (first == null) {
                    first = new IllegalStateException("closing a test resource failed", e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
