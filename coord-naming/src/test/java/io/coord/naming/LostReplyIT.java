package io.coord.naming;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.CoordPath;
import io.coord.CoordSettings;
import io.coord.Lease;
import io.coord.LeaseState;
import io.coord.RetrySettings;
import io.coord.test.Awaits;
import io.coord.test.ReplyLossServer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A claim whose owner-node create was applied but whose reply was lost (fault F10): Curator's
 * retry finds the node already there, and the claimant must recognise it as its own (by the claim
 * id it wrote), not report the name as taken by itself, and not leave it behind. The same for the
 * claim's lease node (issue 15 defect 3): Curator's protected mode finds it again by name without
 * filling the create's stat, which must not be read as another session's node.
 */
@Tag("fault")
class LostReplyIT {
    private static final byte[] WRITTEN = "mine".getBytes(StandardCharsets.UTF_8);

    private ReplyLossServer server;
    private CoordClient client;

    @BeforeEach
    void start() throws InterruptedException {
        server = ReplyLossServer.start();
        client = CoordClient.connect(CoordSettings.builder().connectString(server.connectString()).namespace("lost")
                // The server's longest session (10 s): the client must stay on one session across
                // the reconnect after a lost reply, however slowly a loaded machine reconnects. Retries
                // that start sooner than the default's (200 ms, not 1 s) but give up later (20 × at
                // least 200 ms): Curator retries without waiting for the reconnect. The first connection
                // may be slow on a loaded machine: a generous bound.
                .sessionTimeout(Duration.ofSeconds(10)).connectionTimeout(Awaits.scaled(Duration.ofSeconds(30)))
                .retry(new RetrySettings(Duration.ofMillis(200), 20, Duration.ofSeconds(1))).build());
    }

    @AfterEach
    void stop() {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @Test
    void anEphemeralClaimWhoseReplyWasLostIsStillOurs() throws Exception {
        UniqueNames names = UniqueNames.open(client, "me");
        server.dropNextCreateReply("/lost/names/printer/owner");
        try (NameClaim claim = names.claim("printer")) {
            assertEquals(1, server.droppedReplies(), "the fault did not fire");
            assertEquals(LeaseState.ACQUIRED, claim.lease().orElseThrow().state());
            assertEquals(Optional.of("me"), names.owner("printer"));
        }
        assertEquals(Optional.empty(), names.owner("printer"), "released");
    }

    @Test
    void aPersistentClaimWhoseReplyWasLostIsStillOursAndReleasable() throws Exception {
        UniqueNames names = UniqueNames.open(client, "me");
        server.dropNextCreateReply("/lost/names/alias/owner");
        NameClaim claim = names.claimPersistent("alias");
        assertEquals(1, server.droppedReplies(), "the fault did not fire");
        assertTrue(claim.persistent());
        claim.close();
        assertEquals(Optional.empty(), names.owner("alias"));
        assertFalse(server.isArmed());
    }

    @Test
    void aClaimWhoseLeaseNodeCreateLostItsReplyStandsOnTheRecoveredNodeOnTheLiveSession() throws Exception {
        UniqueNames names = UniqueNames.open(client, "me");
        CoordPath name = CoordPath.of("/names/scanner");
        client.curator().create().creatingParentsIfNeeded().forPath("/data/scanner");
        long session = client.session().id();
        // Protected names start with "_c_": only the lease node's create matches, not the owner's.
        server.dropNextCreateReply("/lost" + name.value() + "/_c_");

        try (NameClaim claim = names.claim("scanner")) {
            assertEquals(1, server.droppedReplies(), "the fault did not fire");
            Lease lease = claim.lease().orElseThrow();
            assertEquals(session, lease.session().id(), "claimed on the session that made the node");
            assertEquals(session, client.session().id(), "the session never ended");

            List<String> nodes = client.curator().getChildren().forPath(name.value());
            assertEquals(2, nodes.size(), "two nodes: " + nodes);
            assertEquals(Set.of(Layout.OWNER, lease.node().name()), Set.copyOf(nodes),
                    "exactly the owner node and our one lease node: no orphan");
            Stat stat = client.curator().checkExists().forPath(lease.node().value());
            assertEquals(stat.getCzxid(), lease.token().value(), "the lease's token is the recovered node's czxid");
            assertEquals(session, stat.getEphemeralOwner(), "the lease node is our session's");
            Stat owner = client.curator().checkExists().forPath(name.child(Layout.OWNER).value());
            assertEquals(owner.getCzxid(), claim.token().value(), "the claim's token is the owner node's czxid");
            assertEquals(session, owner.getEphemeralOwner(), "the owner node is our session's");
            assertEquals(2, client.curator().checkExists().forPath(name.value()).getCversion(),
                    "the name's children changed twice (lease, owner): the recovered node was never deleted and made again");

            // The reconnect's event may reach the lease just after the claim returned.
            Awaits.until("the lease ACQUIRED", Duration.ofSeconds(10), () -> lease.state() == LeaseState.ACQUIRED);
            lease.checkValid();
            lease.guardedSetData(CoordPath.of("/data/scanner"), WRITTEN);
            assertArrayEquals(WRITTEN, client.curator().getData().forPath("/data/scanner"), "the guarded write applied");
            assertEquals(Optional.of("me"), names.owner("scanner"));
        }
        assertEquals(Optional.empty(), names.owner("scanner"), "released");
        assertEquals(List.of(), client.curator().getChildren().forPath(name.value()), "released: both nodes gone");
    }
}
