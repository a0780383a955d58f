package io.coord.membership;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.Codec;
import io.coord.CoordClient;
import io.coord.CoordException;
import io.coord.CoordPath;
import io.coord.test.Awaits;
import io.coord.test.Faults;
import io.coord.test.ZooKeeperExtension;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.nodes.GroupMember;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Curator 5.9's {@code GroupMember} and Coord's {@link Group} on one group: both keep an ephemeral
 * node per member at {@code /groups/{group}/{id}}, so they interoperate. A {@code GroupMember}'s
 * raw payload is a member whose metadata Coord cannot decode (counted, shown with the payload); a
 * Coord member is in {@code getCurrentMembers()} with its JSON as the payload. One id never has
 * two holders: Coord refuses an id a {@code GroupMember} holds, and a Coord member whose node a
 * {@code GroupMember} took over (Curator writes into an existing node and keeps it) leaves.
 */
class CuratorGroupMemberFleetIT {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.single();

    @RegisterExtension
    final Closer closer = new Closer();

    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final Duration SESSION = Duration.ofSeconds(4);
    private static final String GROUP = "fleet";
    private static final String PATH = "/groups/" + GROUP;

    record Node(String host, int port) {
    }

    private final List<CuratorFramework> curators = new ArrayList<>();
    private final List<GroupMember> groupMembers = new ArrayList<>();

    @AfterEach
    void closeCurator() {
        groupMembers.forEach(GroupMember::close);
        curators.forEach(CuratorFramework::close);
    }

    private CuratorFramework curator() throws InterruptedException {
        CuratorFramework c = CuratorFrameworkFactory.builder().connectString(zk.connectString()).namespace(zk.namespace())
                .sessionTimeoutMs((int) SESSION.toMillis()).connectionTimeoutMs(10_000)
                .retryPolicy(new ExponentialBackoffRetry(100, 5)).build();
        curators.add(c);
        c.start();
        assertTrue(c.blockUntilConnected((int) Awaits.scaled(WAIT).toMillis(), TimeUnit.MILLISECONDS), "Curator connected");
        return c;
    }

    /** A started Curator member, on its own session, with {@code host:port} as its raw payload. */
    private GroupMember groupMember(String id) throws InterruptedException {
        GroupMember g = new GroupMember(curator(), PATH, id, payload(id));
        groupMembers.add(g);
        g.start();
        return g;
    }

    private static byte[] payload(String id) {
        return (id + ".example:8080").getBytes(StandardCharsets.UTF_8);
    }

    private void leave(GroupMember g) {
        g.close();
        groupMembers.remove(g);
    }

    private Group<Node> open(CoordClient client) throws InterruptedException {
        return closer.add(Group.open(client, GROUP, Node.class));
    }

    private static Set<String> ids(String... ids) {
        return new TreeSet<>(List.of(ids));
    }

    /** Every observer, Curator's and Coord's, sees exactly {@code expected}. */
    private void converge(String when, Group<Node> observer, List<GroupMember> curatorSide, Set<String> expected) {
        Awaits.until(when + ": Coord's view is " + expected, WAIT, () -> observer.view().ids().equals(expected));
        for (GroupMember g : curatorSide) {
            Awaits.until(when + ": a GroupMember's view is " + expected, WAIT,
                    () -> new TreeSet<>(g.getCurrentMembers().keySet()).equals(expected));
        }
    }

    @Test
    void aMixedFleetConvergesToTheSameMemberIdsThroughJoinsLeavesAndACoordSessionExpiry() throws Exception {
        Group<Node> observer = open(zk.newClient());
        List<GroupMember> curatorSide = new ArrayList<>(List.of(groupMember("c1"), groupMember("c2"), groupMember("c3")));
        CoordClient k1Client = zk.newClient(b -> b.sessionTimeout(SESSION));
        Membership<Node> k1 = open(k1Client).join("k1", new Node("k1.example", 1));
        Membership<Node> k2 = open(zk.newClient()).join("k2", new Node("k2.example", 2));
        open(zk.newClient()).join("k3", new Node("k3.example", 3));
        converge("six members", observer, curatorSide, ids("c1", "c2", "c3", "k1", "k2", "k3"));

        // Each side reads the other's payload as it is: Coord shows Curator's raw bytes, Curator Coord's JSON.
        MemberInfo<Node> c1 = observer.view().member("c1").orElseThrow();
        assertNull(c1.metadata(), "a GroupMember's payload is not Coord's metadata");
        assertTrue(c1.metadataError().contains("\"c1.example:8080\""), "the raw payload is shown: " + c1.metadataError());
        assertEquals(new Node("k2.example", 2), observer.view().member("k2").orElseThrow().metadata());
        assertArrayEquals(Codec.json(Node.class).encode(CoordPath.of(PATH + "/k2"), new Node("k2.example", 2)),
                curatorSide.get(0).getCurrentMembers().get("k2"), "GroupMember sees the Coord member's JSON");

        // Leaves on both sides.
        GroupMember c2 = curatorSide.remove(1);
        leave(c2);
        k2.leave();
        converge("after c2 and k2 left", observer, curatorSide, ids("c1", "c3", "k1", "k3"));

        // Joins on both sides.
        curatorSide.add(groupMember("c4"));
        open(zk.newClient()).join("k4", new Node("k4.example", 4));
        converge("after c4 and k4 joined", observer, curatorSide, ids("c1", "c3", "c4", "k1", "k3", "k4"));

        // A Coord member's session expires: it rejoins on a new session; every view ends where it began.
        long before = k1.incarnation();
        long expired = Faults.expireSession(k1Client, zk.ensemble());
        Awaits.until("k1 rejoined on a new session", WAIT.plus(SESSION),
                () -> k1.state() == Membership.State.JOINED && k1.rejoins() == 1);
        assertNotEquals(expired, k1.session().id());
        Awaits.until("the observer holds k1's new incarnation", WAIT,
                () -> observer.view().member("k1").map(m -> m.czxid() != before && m.czxid() == k1.incarnation()).orElse(false));
        converge("after k1's expiry", observer, curatorSide, ids("c1", "c3", "c4", "k1", "k3", "k4"));
        for (String id : List.of("c1", "c3", "c4", "k1", "k3", "k4")) {
            Stat stat = k1Client.curator().checkExists().forPath(PATH + "/" + id);
            assertNotNull(stat, id + " has its node");
            assertNotEquals(0, stat.getEphemeralOwner(), id + "'s node is ephemeral");
        }
    }

    @Test
    void aCoordJoinOnAnIdAGroupMemberHoldsIsRefusedNamingTheIdAndItsHolder() throws Exception {
        CuratorFramework curator = curator();
        groupMember("same");
        Group<Node> group = open(zk.newClient());
        Awaits.until("the GroupMember's node exists", WAIT, () -> group.view().contains("same"));

        MemberIdTakenException e = assertThrows(MemberIdTakenException.class, () -> group.join("same", new Node("k", 1)));
        assertEquals("same", e.memberId());
        assertTrue(e.getMessage().contains(PATH + "/same"), e.getMessage());
        Stat stat = new Stat();
        byte[] data = curator.getData().storingStatIn(stat).forPath(PATH + "/same");
        assertEquals(e.holderSession(), stat.getEphemeralOwner(), "the holder named is the GroupMember's session");
        assertArrayEquals(payload("same"), data, "the GroupMember's node is untouched");
        assertEquals(0, stat.getVersion());
    }

    @Test
    void aCoordMemberWhoseNodeAGroupMemberTakesOverLeavesSoTheIdHasOneHolder() throws Exception {
        CoordClient coord = zk.newClient();
        Group<Node> observer = open(zk.newClient());
        Membership<Node> k = open(coord).join("same", new Node("k", 1));
        long coordSession = k.session().id();
        AtomicReference<CoordException> lost = new AtomicReference<>();
        k.addListener(new Membership.Listener() {
            @Override
            public void onLost(Membership<?> membership, CoordException cause) {
                lost.set(cause);
            }
        }, Runnable::run);
        observer.awaitMember("same", WAIT);

        // Curator's PersistentNode meets the existing node, writes its payload into it and keeps it.
        GroupMember g = groupMember("same");
        CoordPath node = CoordPath.of(PATH + "/same");
        Awaits.until("the Coord member gave the id up, saying why", WAIT, () -> lost.get() != null);
        assertEquals(Membership.State.LOST, k.state());
        MemberIdTakenException cause = assertInstanceOf(MemberIdTakenException.class, lost.get());
        assertTrue(cause.getMessage().contains("GroupMember"), cause.getMessage());
        assertEquals("same", cause.memberId());

        // The GroupMember re-creates the node on its own session: one holder.
        Stat stat = Awaits.value("the node belongs to the GroupMember's session", WAIT, () -> {
            try {
                Stat s = coord.curator().checkExists().forPath(node.value());
                return s != null && s.getEphemeralOwner() != coordSession ? Optional.of(s) : Optional.empty();
            } catch (Exception ex) {
                throw new IllegalStateException(ex);
            }
        });
        assertEquals(curators.get(0).getZookeeperClient().getZooKeeper().getSessionId(), stat.getEphemeralOwner());
        assertArrayEquals(payload("same"), coord.curator().getData().forPath(node.value()));
        Awaits.until("both sides see one member 'same'", WAIT, () -> observer.view().ids().equals(ids("same"))
                && observer.view().member("same").orElseThrow().metadataError() != null
                && g.getCurrentMembers().keySet().equals(Set.of("same")));
    }

    @Test
    void aCorruptNodeInTheGroupIsCountedShownWithItsBytesAndLoggedOnce() throws Exception {
        CoordClient client = zk.newClient();
        Group<Node> observer = open(client);
        observer.join("k1", new Node("k1.example", 1));
        PrintStream err = System.err;
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        System.setErr(new PrintStream(new OutputStream() {
            @Override
            public synchronized void write(int b) {
                err.write(b);
                log.write(b);
            }
        }, true, StandardCharsets.UTF_8));
        try {
            // A typo'd backup another tool left behind: persistent, binary.
            client.curator().create().forPath(PATH + "/k1.bak", new byte[] {0, 1, (byte) 0xff});
            Awaits.until("the node counts as a member", WAIT, () -> observer.view().ids().equals(ids("k1", "k1.bak")));
            MemberInfo<Node> bak = observer.view().member("k1.bak").orElseThrow();
            assertTrue(bak.metadataError().contains("0x0001ff (3 bytes)"), bak.metadataError());
            client.curator().setData().forPath(PATH + "/k1.bak", new byte[] {2});
            Awaits.until("the update is seen", WAIT, () -> observer.view().member("k1.bak").orElseThrow().metadataVersion() == 1);
            String line = "member " + PATH + "/k1.bak holds ";
            String text = log.toString(StandardCharsets.UTF_8);
            assertEquals(1, text.split(Pattern.quote(line), -1).length - 1, "logged once, by name: " + text);
        } finally {
            System.setErr(err);
        }
    }
}
