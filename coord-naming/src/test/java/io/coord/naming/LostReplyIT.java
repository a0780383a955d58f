package io.coord.naming;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.CoordSettings;
import io.coord.LeaseState;
import io.coord.test.ReplyLossServer;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A claim whose owner-node create was applied but whose reply was lost (fault F10): Curator's
 * retry finds the node already there, and the claimant must recognise it as its own (by the claim
 * id it wrote), not report the name as taken by itself, and not leave it behind.
 */
@Tag("fault")
class LostReplyIT {
    private ReplyLossServer server;
    private CoordClient client;

    @BeforeEach
    void start() throws InterruptedException {
        server = ReplyLossServer.start();
        client = CoordClient.connect(CoordSettings.builder().connectString(server.connectString()).namespace("lost")
                .sessionTimeout(Duration.ofSeconds(4)).connectionTimeout(Duration.ofSeconds(4)).build());
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
}
