package io.coord.membership;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.coord.CoordClient;
import io.coord.CoordSettings;
import io.coord.LockLostException;
import io.coord.RetrySettings;
import io.coord.test.Awaits;
import io.coord.test.ReplyLossServer;
import java.time.Duration;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A member's metadata write is applied but its reply is lost (fault F10): Curator's retry of the
 * versioned setData meets our own write as BadVersion, so {@code update} fails although it landed.
 * The member must then recognise the node's new data version as its own write, not as another
 * client (a Curator GroupMember on the same id) taking the node: it stays JOINED on its node, and
 * its next update lands.
 */
@Tag("fault")
class LostUpdateReplyIT {
    private static final RetrySettings QUICK_RETRY = new RetrySettings(Duration.ofMillis(200), 20, Duration.ofSeconds(1));

    record Worker(String host) {
    }

    @Test
    void anUpdateWhoseReplyWasLostIsOursAndTheMemberKeepsItsId() throws Exception {
        try (ReplyLossServer server = ReplyLossServer.start();
             CoordClient client = CoordClient.connect(CoordSettings.builder().connectString(server.connectString())
                     .sessionTimeout(Duration.ofSeconds(10)).connectionTimeout(Awaits.scaled(Duration.ofSeconds(30)))
                     .retry(QUICK_RETRY).build());
             Group<Worker> group = Group.open(client, "lost-update", GroupOptions.of(Worker.class))) {
            Membership<Worker> member = group.join("w1", new Worker("h1"));
            long incarnation = member.incarnation();
            server.dropNextSetDataReply(member.node().value());

            assertThrows(LockLostException.class, () -> member.update(new Worker("h2")),
                    "the retried setData meets our own write as BadVersion");
            assertEquals(1, server.droppedReplies(), "the fault did not fire");
            assertEquals(new Worker("h2"), Awaits.value("observers to see the write that landed", Duration.ofSeconds(10),
                    () -> java.util.Optional.ofNullable(group.view().members().get("w1")).map(MemberInfo::metadata)
                            .filter(w -> w.equals(new Worker("h2")))));

            // The member adopts the version it wrote (on the group's worker, after that view): a
            // later update lands. A member that took the write for a takeover would be LOST instead.
            Awaits.until("a later update to land", Duration.ofSeconds(10), () -> {
                try {
                    member.update(new Worker("h3"));
                    return true;
                } catch (LockLostException stale) {
                    return false;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new AssertionError("interrupted", e);
                }
            });
            assertEquals(Membership.State.JOINED, member.state(), "the member kept its id");
            Stat stat = client.curator().checkExists().forPath(member.node().value());
            assertEquals(incarnation, stat.getCzxid(), "the same node: never given up and made again");
            assertEquals(2, stat.getVersion(), "two writes of ours: the lost-reply one and the later one");
            member.leave();
        }
    }
}
