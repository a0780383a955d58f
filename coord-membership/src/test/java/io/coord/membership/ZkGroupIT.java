package io.coord.membership;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CodecException;
import io.coord.CoordClient;
import io.coord.CoordException;
import io.coord.CoordSession;
import io.coord.CoordTimeoutException;
import io.coord.InvalidNameException;
import io.coord.LockLostException;
import io.coord.TooManyChildrenException;
import io.coord.ValueTooLargeException;
import io.coord.metrics.MicrometerMetrics;
import io.coord.membership.ViewDiff.Kind;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.data.Stat;
import io.coord.test.Awaits;
import io.coord.test.ZooKeeperExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Joining, viewing, updating and leaving against a real ZooKeeper server. */
class ZkGroupIT {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.single();

    @RegisterExtension
    final Closer closer = new Closer();

    record Worker(String host, int slots) {
    }

    /** Serializable in name only: Jackson finds no properties on a plain Object. */
    record Unserializable(String host, Object extra) {
    }

    private ExecutorService events;

    @BeforeEach
    void executor() {
        events = Executors.newSingleThreadExecutor();
        closer.add(() -> {
            events.shutdownNow();
            events.awaitTermination(5, TimeUnit.SECONDS);
        });
    }

    private <M> Group<M> open(CoordClient client, String name, GroupOptions<M> options) throws InterruptedException {
        return closer.add(Group.open(client, name, options));
    }

    private Group<Worker> open(CoordClient client, String name) throws InterruptedException {
        return open(client, name, GroupOptions.of(Worker.class));
    }

    @Test
    void joinCreatesAnEphemeralNodeWithJsonMetadataThatObserversSee() throws Exception {
        CoordClient member = zk.newClient();
        CoordClient observer = zk.newClient();
        Group<Worker> mine = open(member, "jobs");
        Group<Worker> theirs = open(observer, "jobs");

        Membership<Worker> m = mine.join("w1", new Worker("10.0.0.1", 4));

        Stat stat = member.curator().checkExists().forPath("/groups/jobs/w1");
        assertNotNull(stat, "the member node exists");
        assertEquals(member.session().id(), stat.getEphemeralOwner(), "ephemeral, owned by the member's session");
        assertEquals("{\"host\":\"10.0.0.1\",\"slots\":4}",
                new String(member.curator().getData().forPath("/groups/jobs/w1"), StandardCharsets.UTF_8));
        assertEquals(Membership.State.JOINED, m.state());
        assertEquals(stat.getCzxid(), m.incarnation());

        MemberInfo<Worker> seen = theirs.awaitMember("w1", Duration.ofSeconds(5));
        assertEquals(new Worker("10.0.0.1", 4), seen.metadata());
        assertEquals(stat.getCzxid(), seen.czxid());
        assertEquals(stat.getCtime(), seen.joinedAt().toEpochMilli());
        assertEquals(member.session().id(), seen.session());
        assertTrue(theirs.view().version() >= stat.getCzxid(), "the view's version reflects the join");
    }

    @Test
    void aDuplicateMemberIdIsRefusedNamingTheIdAndTheHolderSession() throws Exception {
        CoordClient first = zk.newClient();
        CoordClient second = zk.newClient();
        Membership<Worker> holder = open(first, "jobs").join("w1", new Worker("a", 1));
        Group<Worker> other = open(second, "jobs");

        MemberIdTakenException e = assertThrows(MemberIdTakenException.class, () -> other.join("w1", new Worker("b", 1)));
        assertTrue(e.getMessage().contains("\"w1\""), e.getMessage());
        assertTrue(e.getMessage().contains(first.session().idHex()), "names the holder session: " + e.getMessage());
        assertEquals("w1", e.memberId());
        assertEquals(first.session().id(), e.holderSession());
        Stat stat = first.curator().checkExists().forPath("/groups/jobs/w1");
        assertEquals(holder.incarnation(), stat.getCzxid(), "the holder's node is untouched");
        assertEquals(new Worker("a", 1), other.awaitMember("w1", Duration.ofSeconds(5)).metadata());
    }

    @Test
    void aSecondHandleOfTheSameClientCannotTakeAHeldIdEither() throws Exception {
        CoordClient client = zk.newClient();
        Group<Worker> g1 = open(client, "jobs");
        Group<Worker> g2 = open(client, "jobs");
        Membership<Worker> m = g1.join("w1", new Worker("a", 1));
        MemberIdTakenException e = assertThrows(MemberIdTakenException.class, () -> g2.join("w1", new Worker("b", 1)));
        assertTrue(e.getMessage().contains("another Membership handle of this client"), e.getMessage());
        m.leave();
        assertEquals(Membership.State.JOINED, g2.join("w1", new Worker("b", 1)).state(), "free again after leave");
    }

    @Test
    void metadataThatIsNotJsonSerializableIsRefusedBeforeAnythingIsWritten() throws Exception {
        CoordClient client = zk.newClient();
        Group<Unserializable> g = open(client, "jobs", GroupOptions.of(Unserializable.class));
        CodecException e = assertThrows(CodecException.class, () -> g.join("w1", new Unserializable("a", new Object())));
        assertTrue(e.getMessage().contains("/groups/jobs/w1"), "names the node: " + e.getMessage());
        assertNull(client.curator().checkExists().forPath("/groups"), "nothing was created, not even the parents");
    }

    @Test
    void metadataOverTheLimitIsRefusedBeforeAnythingIsWritten() throws Exception {
        CoordClient client = zk.newClient();
        Group<Worker> g = open(client, "jobs", GroupOptions.builder(Worker.class).maxMetadataBytes(100).build());
        ValueTooLargeException e = assertThrows(ValueTooLargeException.class, () -> g.join("w1", new Worker("x".repeat(200), 1)));
        assertEquals(100, e.limit());
        assertTrue(e.size() > 200, "reports the encoded size: " + e.getMessage());
        assertNull(client.curator().checkExists().forPath("/groups"), "nothing was created, not even the parents");

        Membership<Worker> m = g.join("w1", new Worker("ok", 1));
        assertThrows(ValueTooLargeException.class, () -> m.update(new Worker("y".repeat(200), 1)));
        assertEquals("{\"host\":\"ok\",\"slots\":1}", new String(client.curator().getData().forPath("/groups/jobs/w1"),
                StandardCharsets.UTF_8), "an oversize update leaves the metadata as it was");
    }

    @Test
    void anInterruptedJoinThrowsInterruptedExceptionAndLeavesNoMemberBehind() throws Exception {
        CoordClient client = zk.newClient();
        Group<Worker> g = open(client, "jobs");
        Thread.currentThread().interrupt();
        try {
            assertThrows(InterruptedException.class, () -> g.join("w1", new Worker("a", 1)));
        } finally {
            Thread.interrupted();
        }
        Awaits.until("no member node is left by the interrupted join", Duration.ofSeconds(5),
                () -> exists(client, "/groups/jobs/w1") == null);
        assertEquals(Membership.State.JOINED, g.join("w1", new Worker("a", 1)).state(), "the id is free");
        Thread.currentThread().interrupt();
        try {
            assertThrows(InterruptedException.class, () -> g.awaitMembers(5, Duration.ofSeconds(5)));
        } finally {
            Thread.interrupted();
        }
    }

    private static Stat exists(CoordClient client, String path) {
        try {
            return client.curator().checkExists().forPath(path);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void aBadMemberIdIsRefusedNamingIt() throws Exception {
        Group<Worker> g = open(zk.newClient(), "jobs");
        InvalidNameException e = assertThrows(InvalidNameException.class, () -> g.join("a/b", new Worker("x", 1)));
        assertTrue(e.getMessage().contains("a/b"), e.getMessage());
    }

    @Test
    void anUpdateIsOneUpdatedEventForTheSameIncarnation() throws Exception {
        Group<Worker> mine = open(zk.newClient(), "jobs");
        Group<Worker> theirs = open(zk.newClient(), "jobs");
        Recorder<Worker> events = new Recorder<>();
        theirs.addListener(events, this.events);
        Membership<Worker> m = mine.join("w1", new Worker("a", 1));
        theirs.awaitMember("w1", Duration.ofSeconds(5));

        m.update(new Worker("a", 2));

        Awaits.until("the update is seen", Duration.ofSeconds(5), () -> events.count(Kind.UPDATED) == 1);
        var update = events.changes().stream().filter(c -> c.kind() == Kind.UPDATED).findFirst().orElseThrow();
        assertEquals(new Worker("a", 1), update.before().metadata());
        assertEquals(new Worker("a", 2), update.after().metadata());
        assertEquals(update.before().czxid(), update.after().czxid(), "same incarnation");
        assertEquals(1, update.after().metadataVersion());
        assertEquals(new Worker("a", 2), m.metadata());
        assertEquals(1, events.count(Kind.JOINED), "no join invented by the update");
        assertEquals(0, events.count(Kind.LEFT));
    }

    @Test
    void leaveDeletesTheNodeAndObserversSeeTheMemberLeave() throws Exception {
        CoordClient client = zk.newClient();
        Group<Worker> mine = open(client, "jobs");
        Group<Worker> theirs = open(zk.newClient(), "jobs");
        Recorder<Worker> events = new Recorder<>();
        theirs.addListener(events, this.events);
        Membership<Worker> m = mine.join("w1", new Worker("a", 1));
        List<String> told = new CopyOnWriteArrayList<>();
        m.addListener(new Membership.Listener() {
            @Override
            public void onLeft(Membership<?> membership) {
                told.add("left");
            }
        }, this.events);
        theirs.awaitMember("w1", Duration.ofSeconds(5));

        m.leave();
        m.leave();

        assertNull(client.curator().checkExists().forPath("/groups/jobs/w1"), "the node is gone when leave returns");
        assertEquals(Membership.State.LEFT, m.state());
        assertEquals(Membership.State.LEFT, m.ended().get(5, TimeUnit.SECONDS));
        Awaits.until("the observer sees the leave", Duration.ofSeconds(5), () -> !theirs.view().contains("w1"));
        Awaits.until("the owner is told once", Duration.ofSeconds(5), () -> told.size() == 1);
        assertThrows(LockLostException.class, () -> m.update(new Worker("b", 1)), "no update after leave");
        Awaits.until("the listener got one leave", Duration.ofSeconds(5), () -> events.count(Kind.LEFT) == 1);
        assertEquals(0, events.replayed().size());
    }

    @Test
    void awaitMembersReturnsOnceEnoughJoinedAndOtherwiseTimesOutNamingWhoIsThere() throws Exception {
        Group<Worker> g = open(zk.newClient(), "jobs");
        Group<Worker> w = open(zk.newClient(), "jobs");
        w.join("w1", new Worker("a", 1));
        CoordTimeoutException e = assertThrows(CoordTimeoutException.class, () -> g.awaitMembers(2, Duration.ofMillis(300)));
        assertTrue(e.getMessage().contains("1 of the 2") && e.getMessage().contains("w1"), e.getMessage());
        CoordTimeoutException e2 = assertThrows(CoordTimeoutException.class, () -> g.awaitMember("w9", Duration.ofMillis(100)));
        assertTrue(e2.getMessage().contains("w9"), e2.getMessage());

        w.join("w2", new Worker("b", 1));
        GroupView<Worker> view = g.awaitMembers(2, Duration.ofSeconds(5));
        assertEquals(List.of("w1", "w2"), List.copyOf(view.ids()));
    }

    @Test
    void aListenerAddedLateFirstGetsTheCurrentMembersAsJoins() throws Exception {
        Group<Worker> g = open(zk.newClient(), "jobs");
        g.join("w1", new Worker("a", 1));
        g.join("w2", new Worker("b", 1));
        g.awaitMembers(2, Duration.ofSeconds(5));
        Recorder<Worker> events = new Recorder<>();
        g.addListener(events, this.events);
        Awaits.until("initial joins arrive", Duration.ofSeconds(5), () -> events.versions().size() == 1);
        assertEquals(g.view().members(), events.replayed());
    }

    @Test
    void aMemberWhoseNodeIsDeletedBySomeoneElseRejoinsAndObserversSeeAFlap() throws Exception {
        CoordClient client = zk.newClient();
        Group<Worker> mine = open(client, "jobs");
        Group<Worker> theirs = open(zk.newClient(), "jobs");
        Recorder<Worker> events = new Recorder<>();
        theirs.addListener(events, this.events);
        Membership<Worker> m = mine.join("w1", new Worker("a", 1));
        List<String> told = new CopyOnWriteArrayList<>();
        m.addListener(new Membership.Listener() {
            @Override
            public void onNodeLost(Membership<?> membership, CoordException cause) {
                told.add("nodeLost");
            }

            @Override
            public void onRejoined(Membership<?> membership, CoordSession session) {
                told.add("rejoined " + session.idHex());
            }
        }, this.events);
        theirs.awaitMember("w1", Duration.ofSeconds(5));
        long first = m.incarnation();

        client.curator().delete().forPath("/groups/jobs/w1");

        Awaits.until("the member rejoined", Duration.ofSeconds(5), () -> m.rejoins() == 1 && m.state() == Membership.State.JOINED);
        Awaits.until("the owner is told", Duration.ofSeconds(5), () -> told.size() == 2);
        assertEquals(List.of("nodeLost", "rejoined " + client.session().idHex()), told);
        assertNotEquals(first, m.incarnation(), "a new incarnation");
        Awaits.until("the observer saw a flap", Duration.ofSeconds(5), () -> theirs.flaps().containsKey("w1"));
        assertEquals(1, theirs.flaps().get("w1").count());
        Awaits.until("the observer saw the new incarnation", Duration.ofSeconds(5),
                () -> theirs.view().member("w1").map(x -> x.czxid() == m.incarnation()).orElse(false));
        Awaits.until("the listener got the flap", Duration.ofSeconds(5), () -> events.flaps().size() == 1);
        assertEquals(theirs.view().members(), events.replayed());
    }

    @Test
    void withRejoinOffAMemberWhoseNodeIsDeletedIsLost() throws Exception {
        CoordClient client = zk.newClient();
        Group<Worker> g = open(client, "jobs", GroupOptions.builder(Worker.class).rejoin(false).build());
        Membership<Worker> m = g.join("w1", new Worker("a", 1));
        client.curator().delete().forPath("/groups/jobs/w1");
        assertEquals(Membership.State.LOST, m.ended().get(5, TimeUnit.SECONDS));
        assertNull(client.curator().checkExists().forPath("/groups/jobs/w1"), "not re-created");
    }

    @Test
    void metadataOtherProgramsWroteThatDoesNotDecodeStillCountsAsAMember() throws Exception {
        CoordClient client = zk.newClient();
        Group<Worker> g = open(client, "jobs");
        client.curator().create().creatingParentsIfNeeded().withMode(org.apache.zookeeper.CreateMode.EPHEMERAL)
                .forPath("/groups/jobs/alien", "not json".getBytes(StandardCharsets.UTF_8));
        MemberInfo<Worker> alien = g.awaitMember("alien", Duration.ofSeconds(5));
        assertNull(alien.metadata());
        assertTrue(alien.metadataError().contains("/groups/jobs/alien"), alien.metadataError());
    }

    @Test
    void aFullGroupRefusesJoins() throws Exception {
        Group<Worker> g = open(zk.newClient(), "jobs", GroupOptions.builder(Worker.class).maxMembers(2).build());
        g.join("w1", new Worker("a", 1));
        g.join("w2", new Worker("a", 1));
        TooManyChildrenException e = assertThrows(TooManyChildrenException.class, () -> g.join("w3", new Worker("a", 1)));
        assertTrue(e.getMessage().contains("/groups/jobs"), e.getMessage());
    }

    @Test
    void closingTheGroupLeavesItsMemberships() throws Exception {
        CoordClient client = zk.newClient();
        Group<Worker> g = Group.open(client, "jobs", Worker.class);
        Membership<Worker> m = g.join("w1", new Worker("a", 1));
        g.close();
        assertEquals(Membership.State.LEFT, m.state());
        assertNull(client.curator().checkExists().forPath("/groups/jobs/w1"));
        assertThrows(IllegalStateException.class, () -> g.join("w2", new Worker("a", 1)));
    }

    @Test
    void metricsCountJoinsLeavesFlapsAndGroupSize() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        CoordClient observer = zk.newClient(b -> b.metrics(new MicrometerMetrics(registry)));
        CoordClient member = zk.newClient();
        Group<Worker> g = open(observer, "jobs");
        Group<Worker> mine = open(member, "jobs");
        Membership<Worker> m1 = mine.join("w1", new Worker("a", 1));
        mine.join("w2", new Worker("a", 1));
        g.awaitMembers(2, Duration.ofSeconds(5));
        m1.leave();
        Awaits.until("the leave is seen", Duration.ofSeconds(5), () -> !g.view().contains("w1"));
        mine.join("w1", new Worker("a", 1));
        Awaits.until("the flap is seen", Duration.ofSeconds(5), () -> g.flaps().containsKey("w1"));

        assertEquals(2.0, registry.get("coord.membership.members").tag("group", "jobs").gauge().value());
        assertEquals(3.0, registry.get("coord.membership.joins").tag("group", "jobs").counter().count());
        assertEquals(1.0, registry.get("coord.membership.leaves").tag("group", "jobs").counter().count());
        assertEquals(1.0, registry.get("coord.membership.flaps").tag("group", "jobs").counter().count());
    }

    @Test
    void viewVersionsOnlyGrowAndChangeWithEveryChange() throws Exception {
        Group<Worker> g = open(zk.newClient(), "jobs");
        Recorder<Worker> events = new Recorder<>();
        g.addListener(events, this.events);
        Membership<Worker> m = g.join("w1", new Worker("a", 1));
        g.awaitMember("w1", Duration.ofSeconds(5));
        m.update(new Worker("a", 2));
        Awaits.until("update seen", Duration.ofSeconds(5), () -> g.view().member("w1").orElseThrow().metadataVersion() == 1);
        m.leave();
        Awaits.until("leave seen", Duration.ofSeconds(5), () -> g.view().size() == 0);
        Awaits.until("all views told", Duration.ofSeconds(5), () -> events.versions().size() == 4);
        List<Long> versions = events.versions();
        for (int i = 1; i < versions.size(); i++) {
            assertTrue(versions.get(i) > versions.get(i - 1), "versions strictly grow: " + versions);
        }
    }
}
