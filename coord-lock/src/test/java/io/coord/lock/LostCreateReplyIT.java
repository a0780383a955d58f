package io.coord.lock;

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
 * The lock node's own create is applied but its reply is lost (fault F10, issue 15 defect 3).
 * Curator's protected mode finds the node again by name, and that path leaves the create's stat
 * empty; reading that as "ephemeralOwner 0" made the acquire delete the node and report
 * {@code SessionExpiredException} on a live session. The acquire must go on with the recovered
 * node: same session, its czxid as the token, that one node and no other.
 */
@Tag("fault")
class LostCreateReplyIT {
    private static final RetrySettings QUICK_RETRY = new RetrySettings(Duration.ofMillis(200), 20, Duration.ofSeconds(1));
    private static final CoordPath LOCK = Locks.path("payments", "acct-lost-create");
    private static final CoordPath BALANCE = CoordPath.of("/data/acct-lost-create/balance");
    private static final byte[] AFTER = "101".getBytes(StandardCharsets.UTF_8);

    @Test
    void aLockWhoseNodeCreateLostItsReplyIsAcquiredWithTheRecoveredNodeOnTheLiveSession() throws Exception {
        try (ReplyLossServer server = ReplyLossServer.start();
             // The server's longest session (10 s): the client must stay on one session across the
             // reconnect after the lost reply, however slowly a loaded machine reconnects. Retries
             // that start sooner than the default's (200 ms, not 1 s) but give up later (20 × at
             // least 200 ms): Curator retries without waiting for the reconnect. The first connection
             // may be slow on a loaded machine: a generous bound.
             CoordClient client = CoordClient.connect(CoordSettings.builder().connectString(server.connectString())
                     .sessionTimeout(Duration.ofSeconds(10)).connectionTimeout(Awaits.scaled(Duration.ofSeconds(30)))
                     .retry(QUICK_RETRY).build())) {
            client.curator().create().creatingParentsIfNeeded().forPath(BALANCE.value(), "100".getBytes(StandardCharsets.UTF_8));
            long session = client.session().id();
            // Protected names start with "_c_": only the lock node's create matches, not its parents'.
            server.dropNextCreateReply(LOCK.value() + "/_c_");

            LockLease lease = Locks.mutex(client, LOCK).acquire(Awaits.scaled(Duration.ofSeconds(10)));
            assertEquals(1, server.droppedReplies(), "the fault did not fire");
            assertEquals(session, lease.session().id(), "acquired on the session that made the node");
            assertEquals(session, client.session().id(), "the session never ended");

            List<String> nodes = client.curator().getChildren().forPath(LOCK.value());
            assertEquals(List.of(lease.node().name()), nodes, "exactly our one lock node: no orphan, no second try");
            Stat stat = client.curator().checkExists().forPath(lease.node().value());
            assertEquals(stat.getCzxid(), lease.token().value(), "the token is the recovered node's czxid");
            assertEquals(session, stat.getEphemeralOwner(), "the node is our session's");
            assertEquals(1, client.curator().checkExists().forPath(LOCK.value()).getCversion(),
                    "the lock's children changed once: the recovered node was never deleted and made again");

            // The reconnect's event may reach the lease just after the acquire returned.
            Awaits.until("the lease ACQUIRED", Duration.ofSeconds(10), () -> lease.state() == LeaseState.ACQUIRED);
            lease.checkValid();
            lease.guardedSetData(BALANCE, AFTER);
            assertArrayEquals(AFTER, client.curator().getData().forPath(BALANCE.value()), "the guarded write applied");

            lease.close();
            assertEquals(List.of(), client.curator().getChildren().forPath(LOCK.value()), "released: the node is gone");
        }
    }
}
