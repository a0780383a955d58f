package io.coord.membership;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.test.Awaits;
import io.coord.test.ServerRequests;
import io.coord.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What a change costs in server requests, counted by the server ({@code cons}), with every member
 * its own client, session and group, as a new user would run them. A leave must cost each observer
 * nothing (the deletion event with its zxid is the new view) and a join one read of the new member:
 * O(1) per member, whatever the group's size. Before the group's watch kept the events' zxids,
 * every change made every observer list the whole group and send a barrier (2 to 3 requests each,
 * and a listing of all members).
 */
class GroupRequestsIT {
    private static final int MEMBERS = 50;
    private static final int ROUNDS = 3;
    /** The one who leaves and joins again: its own delete or create, and the reads and watch a join takes. */
    private static final int MOVER_REQUESTS = 4;

    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.single();

    @RegisterExtension
    final Closer closer = new Closer();

    record Meta(int n) {
    }

    @Test
    void aLeaveCostsObserversNoRequestAndAJoinOneEach() throws Exception {
        List<Group<Meta>> groups = new ArrayList<>();
        List<Membership<Meta>> members = new ArrayList<>();
        for (int i = 0; i < MEMBERS; i++) {
            Group<Meta> g = closer.add(Group.open(zk.newClient(), "sized", Meta.class));
            groups.add(g);
            members.add(closer.add(g.join("m" + i, new Meta(i))));
        }
        for (Group<Meta> g : groups) {
            Awaits.until(g + " sees all " + MEMBERS, Duration.ofSeconds(30), () -> g.view().size() == MEMBERS);
        }
        int port = Integer.parseInt(zk.connectString().substring(zk.connectString().lastIndexOf(':') + 1));
        List<Group<Meta>> observers = groups.subList(1, MEMBERS);
        for (int round = 0; round < ROUNDS; round++) {
            Map<Long, Long> before = ServerRequests.lastXids(port);
            members.get(0).leave();
            for (Group<Meta> g : observers) {
                Awaits.until(g + " sees m0 leave", Duration.ofSeconds(30), () -> !g.view().contains("m0"));
            }
            long leave = ServerRequests.between(before, ServerRequests.lastXids(port));
            assertTrue(leave <= MOVER_REQUESTS, "round " + round + ": a leave seen by " + observers.size()
                    + " observers cost " + leave + " server requests; at most " + MOVER_REQUESTS + " (the leaver's) allowed");

            before = ServerRequests.lastXids(port);
            members.set(0, closer.add(groups.get(0).join("m0", new Meta(round))));
            for (Group<Meta> g : observers) {
                Awaits.until(g + " sees m0 join", Duration.ofSeconds(30), () -> g.view().contains("m0"));
            }
            long join = ServerRequests.between(before, ServerRequests.lastXids(port));
            assertTrue(join <= observers.size() + 2L * MOVER_REQUESTS, "round " + round + ": a join seen by " + observers.size()
                    + " observers cost " + join + " server requests; at most one per observer and "
                    + 2 * MOVER_REQUESTS + " for the joiner allowed");
            System.out.printf("round %d: leave %d requests, join %d requests, %d observers%n", round, leave, join, observers.size());
        }
    }
}
