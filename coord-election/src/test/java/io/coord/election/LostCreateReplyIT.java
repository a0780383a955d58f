package io.coord.election;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.coord.CoordClient;
import io.coord.CoordPath;
import io.coord.CoordSettings;
import io.coord.LeaseState;
import io.coord.RetrySettings;
import io.coord.test.Awaits;
import io.coord.test.ReplyLossServer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The candidate node's own create is applied but its reply is lost (fault F10, issue 15 defect 3).
 * Curator's protected mode finds the node again by name without filling the create's stat; read
 * as "ephemeralOwner 0", that made the candidacy delete the node, take it for a session ended on a
 * live session, and join again with a second node. The candidacy must stand on the recovered node.
 */
@Tag("fault")
class LostCreateReplyIT {
    private static final RetrySettings QUICK_RETRY = new RetrySettings(Duration.ofMillis(200), 20, Duration.ofSeconds(1));
    private static final CoordPath STATE = CoordPath.of("/data/lost-create/state");
    private static final byte[] WRITTEN = "led".getBytes(StandardCharsets.UTF_8);

    @Test
    void aCandidacyWhoseNodeCreateLostItsReplyLeadsWithTheRecoveredNodeOnTheLiveSession() throws Exception {
        try (ReplyLossServer server = ReplyLossServer.start();
             // The server's longest session (10 s): the client must stay on one session across the
             // reconnect after the lost reply, however slowly a loaded machine reconnects. Retries
             // that start sooner than the default's (200 ms, not 1 s) but give up later (20 × at
             // least 200 ms): Curator retries without waiting for the reconnect. The first connection
             // may be slow on a loaded machine: a generous bound.
             CoordClient client = CoordClient.connect(CoordSettings.builder().connectString(server.connectString())
                     .sessionTimeout(Duration.ofSeconds(10)).connectionTimeout(Awaits.scaled(Duration.ofSeconds(30)))
                     .retry(QUICK_RETRY).build());
             Election election = Election.open(client, "lost-create")) {
            client.curator().create().creatingParentsIfNeeded().forPath(STATE.value());
            long session = client.session().id();
            // Protected names start with "_c_": only the candidate's create matches, not its parents'.
            server.dropNextCreateReply(election.path().value() + "/_c_");

            Leadership leadership = election.campaign(Awaits.scaled(Duration.ofSeconds(10)));
            assertEquals(1, server.droppedReplies(), "the fault did not fire");
            assertEquals(session, leadership.session().id(), "elected on the session that made the node");
            assertEquals(session, client.session().id(), "the session never ended");

            List<String> nodes = client.curator().getChildren().forPath(election.path().value());
            assertEquals(List.of(leadership.node().name()), nodes, "exactly our one candidate node: no orphan");
            Stat stat = client.curator().checkExists().forPath(leadership.node().value());
            assertEquals(stat.getCzxid(), leadership.token().value(), "the epoch is the recovered node's czxid");
            assertEquals(session, stat.getEphemeralOwner(), "the node is our session's");
            assertEquals(1, client.curator().checkExists().forPath(election.path().value()).getCversion(),
                    "the election's children changed once: the recovered node was never deleted and made again");

            // The reconnect's event may reach the lease just after the campaign returned.
            Awaits.until("the leadership ACQUIRED", Duration.ofSeconds(10), () -> leadership.state() == LeaseState.ACQUIRED);
            leadership.checkValid();
            leadership.guardedSetData(STATE, WRITTEN);
            assertArrayEquals(WRITTEN, client.curator().getData().forPath(STATE.value()), "the guarded write applied");

            leadership.close();
            assertEquals(List.of(), client.curator().getChildren().forPath(election.path().value()),
                    "stepped down: the node is gone");
        }
    }
}
