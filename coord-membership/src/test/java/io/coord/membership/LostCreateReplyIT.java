package io.coord.membership;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.coord.CoordClient;
import io.coord.CoordSettings;
import io.coord.RetrySettings;
import io.coord.test.Awaits;
import io.coord.test.ReplyLossServer;
import java.time.Duration;
import java.util.List;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The member node's create is applied but its reply is lost (fault F10). The member node is not
 * protected (its id must collide with another session's), so Curator's retry gets NodeExists; the
 * join must recognise the node as its own session's and adopt it: joined on the live session, the
 * incarnation the node's czxid, that one node, never deleted and made again.
 */
@Tag("fault")
class LostCreateReplyIT {
    private static final RetrySettings QUICK_RETRY = new RetrySettings(Duration.ofMillis(200), 20, Duration.ofSeconds(1));

    record Worker(String host) {
    }

    @Test
    void aJoinWhoseMemberNodeCreateLostItsReplyAdoptsTheNodeOnTheLiveSession() throws Exception {
        try (ReplyLossServer server = ReplyLossServer.start();
             // The server's longest session (10 s): the client must stay on one session across the
             // reconnect after the lost reply, however slowly a loaded machine reconnects. Retries
             // that start sooner than the default's (200 ms, not 1 s) but give up later (20 × at
             // least 200 ms): Curator retries without waiting for the reconnect. The first connection
             // may be slow on a loaded machine: a generous bound.
             CoordClient client = CoordClient.connect(CoordSettings.builder().connectString(server.connectString())
                     .sessionTimeout(Duration.ofSeconds(10)).connectionTimeout(Awaits.scaled(Duration.ofSeconds(30)))
                     .retry(QUICK_RETRY).build());
             Group<Worker> group = Group.open(client, "lost-create", GroupOptions.of(Worker.class))) {
            long session = client.session().id();
            server.dropNextCreateReply(group.path().child("w1").value());

            Membership<Worker> member = group.join("w1", new Worker("h1"));
            assertEquals(1, server.droppedReplies(), "the fault did not fire");
            assertEquals(session, member.session().id(), "joined on the session that made the node");
            assertEquals(session, client.session().id(), "the session never ended");
            assertEquals(0, member.rejoins(), "a join, not a rejoin");

            assertEquals(List.of("w1"), client.curator().getChildren().forPath(group.path().value()), "exactly our one node");
            Stat stat = client.curator().checkExists().forPath(member.node().value());
            assertEquals(stat.getCzxid(), member.incarnation(), "the incarnation is the node's czxid");
            assertEquals(session, stat.getEphemeralOwner(), "the node is our session's");
            assertEquals(1, client.curator().checkExists().forPath(group.path().value()).getCversion(),
                    "the group's children changed once: the node was never deleted and made again");

            Awaits.until("the member JOINED", Duration.ofSeconds(10), () -> member.state() == Membership.State.JOINED);
            assertEquals(new Worker("h1"), group.awaitMember("w1", Awaits.scaled(Duration.ofSeconds(10))).metadata(),
                    "observers see our metadata");

            member.leave();
            assertEquals(List.of(), client.curator().getChildren().forPath(group.path().value()), "left: the node is gone");
        }
    }
}
