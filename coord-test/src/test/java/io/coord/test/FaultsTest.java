package io.coord.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.CoordSession;
import io.coord.SessionState;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** F2, F3, F4 and F11 against a single server. */
class FaultsTest {
    private static final Duration SESSION = Duration.ofSeconds(2);

    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.single();

    @Test
    void realServerSideExpiryDeletesEphemeralsAtOnceAndTheClientMovesToANewSession() throws Exception {
        CoordClient client = zk.newClient(b -> b.sessionTimeout(SESSION));
        CoordClient observer = zk.newClient();
        client.curator().create().withMode(CreateMode.EPHEMERAL).forPath("/mine");
        CoordSession old = client.session();

        long expired = Faults.expireSession(client, zk.ensemble());

        assertEquals(old.id(), expired);
        // The joined handle's close is acknowledged only after the server applied closeSession.
        assertNull(observer.curator().checkExists().forPath("/mine"), "the server deleted the ephemeral with the session");
        CoordSession fresh = Faults.awaitNewSession(client, old.id(), Duration.ofSeconds(10));
        assertNotEquals(old.id(), fresh.id());
        assertEquals(SessionState.EXPIRED, old.ended().get(1, TimeUnit.SECONDS));
        assertEquals(SessionState.EXPIRED, old.state());
    }

    @Test
    void clientSideExpiryEndsTheSessionWhileTheServerKeepsItsEphemeralsUntilTheTimeout() throws Exception {
        CoordClient client = zk.newClient(b -> b.sessionTimeout(SESSION));
        CoordClient observer = zk.newClient();
        client.curator().create().withMode(CreateMode.EPHEMERAL).forPath("/mine");
        CoordSession old = client.session();

        long id = Faults.injectClientExpiry(client);

        assertEquals(old.id(), id);
        CoordSession fresh = Faults.awaitNewSession(client, old.id(), Duration.ofSeconds(10));
        assertEquals(SessionState.EXPIRED, old.state());
        assertNotEquals(old.id(), fresh.id());
        assertEquals(old.id(), observer.curator().checkExists().forPath("/mine").getEphemeralOwner(),
                "the server knows nothing of the client's expiry yet");
        Duration gone = Awaits.until("the server to expire the abandoned session", SESSION.plusSeconds(3),
                () -> exists(observer, "/mine") == null);
        System.out.printf("F3: abandoned session's ephemeral deleted %d ms after the new session%n", gone.toMillis());
    }

    @Test
    void droppedConnectionSuspendsAndReconnectsOnTheSameSession() throws Exception {
        // 4 s, not 2: with one server the ZooKeeper client waits up to 1 s (host list spin) plus
        // up to 1 s (random backoff) before reconnecting, which can outlast a 2 s session.
        CoordClient client = zk.newClient();
        client.curator().create().withMode(CreateMode.EPHEMERAL).forPath("/mine");
        CoordSession session = client.session();
        SessionEvents events = SessionEvents.attach(client);

        events.mark();
        Faults.dropConnection(client);

        Duration suspended = events.await(SessionEvents.Kind.SUSPENDED, Duration.ofSeconds(5));
        Duration back = events.await(SessionEvents.Kind.RECONNECTED, Duration.ofSeconds(5));
        assertEquals(session.id(), client.session().id());
        assertEquals(SessionState.CONNECTED, session.state());
        assertNotNull(client.curator().checkExists().forPath("/mine"));
        assertTrue(events.first(SessionEvents.Kind.ENDED).isEmpty(), events.events().toString());
        System.out.printf("F4 (closeSocket): SUSPENDED after %d ms, same session back after %d ms%n", suspended.toMillis(), back.toMillis());
    }

    @Test
    void spuriousConnectionEventsNeverEndOrReplaceTheSession() throws Exception {
        CoordClient client = zk.newClient();
        CoordSession session = client.session();
        SessionEvents events = SessionEvents.attach(client);
        List<ConnectionState> curatorStates = new CopyOnWriteArrayList<>();
        ConnectionStateListener raw = (c, s) -> curatorStates.add(s);
        client.curator().getConnectionStateListenable().addListener(raw);
        try {
            for (int i = 0; i < 3; i++) {
                Faults.spuriousSyncConnected(client);
            }
            Faults.spuriousFlap(client);
            // Events are delivered in order: had a lone SyncConnected got through, Curator would
            // have reported RECONNECTED before the flap's SUSPENDED.
            Awaits.until("Curator to deliver the fake flap", Duration.ofSeconds(5), () -> curatorStates.size() >= 2);
            events.await(SessionEvents.Kind.RECONNECTED, Duration.ofSeconds(5));
            client.curator().create().forPath("/after", new byte[0]); // the client still works
        } finally {
            client.curator().getConnectionStateListenable().removeListener(raw);
        }
        assertEquals(List.of(ConnectionState.SUSPENDED, ConnectionState.RECONNECTED), curatorStates);
        assertEquals(List.of(SessionEvents.Kind.SUSPENDED, SessionEvents.Kind.RECONNECTED),
                events.events().stream().map(SessionEvents.Event::kind).toList());
        assertEquals(session.id(), client.session().id());
        assertEquals(SessionState.CONNECTED, session.state());
    }

    static org.apache.zookeeper.data.Stat exists(CoordClient c, String path) {
        try {
            return c.curator().checkExists().forPath(path);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
