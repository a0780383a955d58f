package io.coord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;

/**
 * {@link CoordClient#start}: it returns while the ensemble is unreachable (where
 * {@link CoordClient#connect} would fail), the client has no session until then, and the first
 * session comes by itself once the server answers, announced to {@code onNewSession} listeners.
 */
class StartWithoutSessionIT {
    @Test
    void startReturnsWithTheServerDownAndTheFirstSessionComesOnceItAnswers() throws Exception {
        InstanceSpec spec = new InstanceSpec(null, -1, -1, -1, true, -1, CoreTestServer.TICK_MS, -1,
                Map.of("admin.enableServer", "false"), "127.0.0.1");
        try (TestingServer server = new TestingServer(spec, false)) { // not started: nothing listens on its port
            CoordSettings settings = CoordSettings.builder().connectString(server.getConnectString())
                    .sessionTimeout(Duration.ofSeconds(3)).connectionTimeout(Duration.ofSeconds(1)).build();
            assertThrows(CoordTimeoutException.class, () -> CoordClient.connect(settings).close(),
                    "connect waits for a session, and there is none");
            try (CoordClient client = CoordClient.start(settings)) {
                assertThrows(SessionExpiredException.class, client::session, "no session before the server answers");
                assertTrue(client.startFailure().isEmpty(), "an unreachable server is not a failure: the client keeps trying");
                CompletableFuture<CoordSession> first = new CompletableFuture<>();
                client.onNewSession(first::complete, Runnable::run);

                server.start();
                CoordSession session = first.get(SecurityFixtures.scaled(Duration.ofSeconds(30)).toMillis(), TimeUnit.MILLISECONDS);
                assertEquals(SessionState.CONNECTED, session.state());
                assertEquals(session, client.session());
                client.curator().create().forPath("/started", new byte[] {1}); // operations work on it
                assertTrue(client.startFailure().isEmpty());
            }
        }
    }
}
