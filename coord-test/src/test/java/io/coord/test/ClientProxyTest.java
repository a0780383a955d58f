package io.coord.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.CoordSession;
import io.coord.SessionState;
import java.time.Duration;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** F4 through the proxy, F5 (black hole), and connection refused. */
class ClientProxyTest {
    private static final Duration SESSION = Duration.ofSeconds(2);

    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.single();

    @Test
    void cutResetsTheConnectionAndTheSameSessionComesBack() throws Exception {
        try (ClientProxy proxy = ClientProxy.to(zk.ensemble())) {
            // 4 s: a reconnect to a single server can take up to 2 s (see FaultsTest)
            CoordClient client = zk.newClient(b -> b.connectString(proxy.connectString()));
            client.curator().create().withMode(CreateMode.EPHEMERAL).forPath("/mine");
            CoordSession session = client.session();
            SessionEvents events = SessionEvents.attach(client);
            // One connection once settled: a first attempt that timed out on a busy machine leaves a pair
            // the proxy closes on its own selector thread a moment later.
            Awaits.until("one connection through the proxy", Duration.ofSeconds(5), () -> proxy.openConnections() == 1);

            events.mark();
            proxy.cut();

            Duration suspended = events.await(SessionEvents.Kind.SUSPENDED, Duration.ofSeconds(5));
            Duration back = events.await(SessionEvents.Kind.RECONNECTED, Duration.ofSeconds(5));
            assertEquals(session.id(), client.session().id());
            assertNotNull(client.curator().checkExists().forPath("/mine"));
            System.out.printf("F4 (proxy cut): SUSPENDED after %d ms, same session back after %d ms%n", suspended.toMillis(), back.toMillis());
            client.close(); // while connected, so the close reaches the server
        }
    }

    @Test
    void refusedConnectionsKeepTheClientSuspendedUntilTheProxyAcceptsAgain() throws Exception {
        try (ClientProxy proxy = ClientProxy.to(zk.ensemble())) {
            CoordClient client = zk.newClient(b -> b.connectString(proxy.connectString()).sessionTimeout(Duration.ofSeconds(4)));
            CoordSession session = client.session();
            SessionEvents events = SessionEvents.attach(client);

            proxy.refuse();
            events.await(SessionEvents.Kind.SUSPENDED, Duration.ofSeconds(5));
            Awaits.never("a reconnect while the proxy refuses", Duration.ofMillis(500),
                    () -> events.first(SessionEvents.Kind.RECONNECTED).isPresent());
            proxy.accept();

            events.await(SessionEvents.Kind.RECONNECTED, Duration.ofSeconds(5));
            assertEquals(session.id(), client.session().id());
            client.close();
        }
    }

    @Test
    @Tag("fault")
    void freezePastTheSessionTimeoutSuspendsThenExpiresAndUnfreezeBringsANewSession() throws Exception {
        CoordClient observer = zk.newClient();
        try (ClientProxy proxy = ClientProxy.to(zk.ensemble())) {
            CoordClient client = zk.newClient(b -> b.connectString(proxy.connectString()).sessionTimeout(SESSION));
            assertEquals(SESSION, client.negotiatedSessionTimeout());
            client.curator().create().withMode(CreateMode.EPHEMERAL).forPath("/mine");
            CoordSession old = client.session();
            SessionEvents events = SessionEvents.attach(client);

            events.mark();
            long frozenAt = System.nanoTime();
            proxy.freeze();

            Duration suspended = events.await(SessionEvents.Kind.SUSPENDED, SESSION.plusSeconds(2));
            Duration serverExpiry = Awaits.until("the server to expire the frozen client's session", SESSION.plusSeconds(3),
                    () -> FaultsTest.exists(observer, "/mine") == null);
            Duration lost = events.await(SessionEvents.Kind.ENDED, SESSION.multipliedBy(2).plusSeconds(3));
            assertEquals(SessionState.EXPIRED, old.state());
            assertTrue(events.first(SessionEvents.Kind.NEW).isEmpty(), "no new session while frozen");

            Duration frozenFor = Duration.ofNanos(System.nanoTime() - frozenAt);
            proxy.unfreeze();
            CoordSession fresh = Faults.awaitNewSession(client, old.id(), Duration.ofSeconds(10));
            assertNotEquals(old.id(), fresh.id());
            System.out.printf("F5 (freeze, session %d ms): SUSPENDED %d ms, server expiry %d ms, EXPIRED (Curator LOST) %d ms,"
                    + " frozen %d ms, new session %d ms after unfreeze%n", SESSION.toMillis(), suspended.toMillis(),
                    serverExpiry.toMillis(), lost.toMillis(), frozenFor.toMillis(),
                    Duration.ofNanos(System.nanoTime() - frozenAt).minus(frozenFor).toMillis());
            client.close();
        }
    }
}
