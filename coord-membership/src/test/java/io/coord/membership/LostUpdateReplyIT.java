package io.coord.membership;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.coord.ConnectionLostException;
import io.coord.CoordClient;
import io.coord.CoordSettings;
import io.coord.LockLostException;
import io.coord.RetrySettings;
import io.coord.test.Awaits;
import io.coord.test.ReplyLossServer;
import java.time.Duration;
import java.util.Optional;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A member's metadata write is applied but its reply is lost (fault F10). Either Curator retries
 * the versioned setData and meets our own write as BadVersion, or (no retries) the caller gets
 * {@link ConnectionLostException} and calls {@code update} again with its stale version. Both
 * times the member must recognise the node's new data version as its own write, not as another
 * client (a Curator GroupMember on the same id) taking the node: it stays JOINED on its node, and
 * its updates land.
 */
@Tag("fault")
class LostUpdateReplyIT {
    private static final RetrySettings QUICK_RETRY = new RetrySettings(Duration.ofMillis(200), 20, Duration.ofSeconds(1));
    private static final RetrySettings NO_RETRY = new RetrySettings(Duration.ofMillis(200), 0, Duration.ofMillis(200));

    record Worker(String host) {
    }

    @Test
    void anUpdateWhoseReplyWasLostAndWhoseRetryMetItIsOursAndSucceeds() throws Exception {
        try (ReplyLossServer server = ReplyLossServer.start();
             CoordClient client = connect(server, QUICK_RETRY);
             Group<Worker> group = Group.open(client, "lost-update", GroupOptions.of(Worker.class))) {
            Membership<Worker> member = group.join("w1", new Worker("h1"));
            long incarnation = member.incarnation();
            server.dropNextSetDataReply(member.node().value());

            member.update(new Worker("h2")); // the retry met our own write: it landed, so it succeeds
            assertEquals(1, server.droppedReplies(), "the fault did not fire");
            assertEquals(new Worker("h2"), member.metadata());
            // The dropped reply closed the connection: the member is SUSPENDED (and refuses to
            // write) until the client is connected again, on its own schedule (CI under load).
            updateOnceWritable(member, new Worker("h3"));
            assertEquals(new Worker("h3"), seenByObservers(group, new Worker("h3")));
            assertStillOurs(client, member, incarnation, 2);
            member.leave();
        }
    }

    @Test
    void anUpdateRetriedByTheCallerAfterALostReplyLandsOnTopOfTheFirst() throws Exception {
        try (ReplyLossServer server = ReplyLossServer.start();
             CoordClient client = connect(server, NO_RETRY);
             Group<Worker> group = Group.open(client, "lost-update-again", GroupOptions.of(Worker.class))) {
            Membership<Worker> member = group.join("w1", new Worker("h1"));
            long incarnation = member.incarnation();
            server.dropNextSetDataReply(member.node().value());

            assertThrows(ConnectionLostException.class, () -> member.update(new Worker("h2")), "no retry: the outcome is unknown");
            assertEquals(1, server.droppedReplies(), "the fault did not fire");
            // The caller tries again as soon as the member may write: its version is stale (h2
            // landed), and the write must still land, with h2 taken for ours (CI saw the member
            // LOST when this retry came before the group's view of h2).
            updateOnceWritable(member, new Worker("h3"));
            assertEquals(new Worker("h3"), member.metadata());
            assertEquals(new Worker("h3"), seenByObservers(group, new Worker("h3")));
            assertStillOurs(client, member, incarnation, 2);
            member.leave();
        }
    }

    /**
     * Writes {@code value} as soon as the member may write again (JOINED, its session connected),
     * failing at once if its own landed write was ever taken for someone else's.
     */
    private static void updateOnceWritable(Membership<Worker> member, Worker value) {
        Awaits.until("the update to land", Duration.ofSeconds(10), () -> {
            try {
                member.update(value);
                return true;
            } catch (LockLostException notYet) {
                if (member.state() == Membership.State.LOST || notYet.getMessage().contains("someone else")) {
                    throw new AssertionError("our own landed write was taken for someone else's", notYet);
                }
                return false; // suspended until the connection is back
            } catch (ConnectionLostException notYet) {
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted", e);
            }
        });
    }

    private static CoordClient connect(ReplyLossServer server, RetrySettings retry) throws InterruptedException {
        return CoordClient.connect(CoordSettings.builder().connectString(server.connectString())
                .sessionTimeout(Duration.ofSeconds(10)).connectionTimeout(Awaits.scaled(Duration.ofSeconds(30)))
                .retry(retry).build());
    }

    private static Worker seenByObservers(Group<Worker> group, Worker expected) {
        return Awaits.value("observers to see " + expected, Duration.ofSeconds(10),
                () -> Optional.ofNullable(group.view().members().get("w1")).map(MemberInfo::metadata)
                        .filter(expected::equals));
    }

    private static void assertStillOurs(CoordClient client, Membership<Worker> member, long incarnation, int version)
            throws Exception {
        assertEquals(Membership.State.JOINED, member.state(), "the member kept its id");
        Stat stat = client.curator().checkExists().forPath(member.node().value());
        assertEquals(incarnation, stat.getCzxid(), "the same node: never given up and made again");
        assertEquals(version, stat.getVersion(), "our writes only: the lost-reply one and the later one");
    }
}
