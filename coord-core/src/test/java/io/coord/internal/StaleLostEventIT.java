package io.coord.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordMetrics;
import io.coord.SessionState;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Regression (CI, GroupFaultIT after an injected client expiry): Curator can deliver a LOST after
 * the connection was repaired on a new session (CURATOR-525; it then logs "ConnectionState is LOST
 * but isConnected() is true. Forcing RECONNECTED"). The tracker expired the new, live session on
 * that stale LOST, and the forced RECONNECTED of the same id was ignored (a terminal session never
 * revives), so the client had no live session until it closed: a member never rejoined. A LOST
 * while the handle is connected on the current session is now ignored; a LOST for a session the
 * handle is not on still ends it.
 */
class StaleLostEventIT {
    private static TestingServer server;
    private static CuratorFramework curator;

    @BeforeAll
    static void start() throws Exception {
        server = new TestingServer(true);
        curator = CuratorFrameworkFactory.newClient(server.getConnectString(), 4_000, 10_000, new RetryOneTime(100));
        curator.start();
        assertTrue(curator.blockUntilConnected(30, TimeUnit.SECONDS), "connected");
    }

    @AfterAll
    static void stop() throws Exception {
        curator.close();
        server.close();
    }

    private static long liveSessionId() throws Exception {
        return curator.getZookeeperClient().getZooKeeper().getSessionId();
    }

    @Test
    void aLostEventWhileTheHandleIsConnectedOnTheCurrentSessionLeavesItConnected() throws Exception {
        SessionTracker tracker = new SessionTracker(CoordMetrics.noop(), Runnable::run);
        tracker.observeConnected(liveSessionId());
        ZkSession live = tracker.current();

        tracker.stateChanged(curator, ConnectionState.LOST);

        assertEquals(SessionState.CONNECTED, live.state(), "a stale LOST must not end a session the handle is connected on");
        assertEquals(live, tracker.current());
        tracker.stateChanged(curator, ConnectionState.RECONNECTED); // what Curator forces next
        assertEquals(SessionState.CONNECTED, tracker.current().state());
        tracker.close();
    }

    @Test
    void aLostEventForASessionTheHandleIsNotOnEndsIt() throws Exception {
        SessionTracker tracker = new SessionTracker(CoordMetrics.noop(), Runnable::run);
        tracker.observeConnected(liveSessionId() + 1); // the session before the handle's current one
        ZkSession old = tracker.current();

        tracker.stateChanged(curator, ConnectionState.LOST);

        assertEquals(SessionState.EXPIRED, old.state());
        tracker.stateChanged(curator, ConnectionState.RECONNECTED);
        assertEquals(liveSessionId(), tracker.current().id(), "the handle's session becomes the current one");
        assertEquals(SessionState.CONNECTED, tracker.current().state());
        tracker.close();
    }
}
