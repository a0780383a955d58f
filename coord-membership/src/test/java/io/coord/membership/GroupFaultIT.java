package io.coord.membership;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.CoordException;
import io.coord.CoordSession;
import io.coord.SessionListener;
import io.coord.SessionState;
import io.coord.internal.EventThreads;
import io.coord.membership.Churn.Meta;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import io.coord.test.ChildJvm;
import io.coord.test.ClientProxy;
import io.coord.test.Faults;
import io.coord.test.Awaits;
import io.coord.test.ZooKeeperExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Session expiry, a killed member process, connection cuts and client-side expiry, with real ZooKeeper. */
@Tag("fault")
class GroupFaultIT {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.single();

    @RegisterExtension
    final Closer closer = new Closer();

    /** Short sessions keep fault scenarios quick; the server (tick 500 ms) allows 1–10 s. */
    private static final Duration SESSION = Duration.ofSeconds(2);
    /** What "within the session timeout plus a small margin" allows beyond the negotiated timeout. */
    private static final Duration MARGIN = Duration.ofSeconds(2);

    private ExecutorService events;

    @BeforeEach
    void executor() {
        events = Executors.newFixedThreadPool(2);
        closer.add(() -> {
            events.shutdownNow();
            events.awaitTermination(5, TimeUnit.SECONDS);
        });
    }

    private CoordClient client() {
        return zk.newClient(b -> b.sessionTimeout(SESSION));
    }

    private Group<Meta> open(CoordClient client) throws InterruptedException {
        return closer.add(Group.open(client, "g", Meta.class));
    }

    @Test
    void aMemberWhoseSessionExpiresIsReportedLeftWithinTheSessionTimeoutAndRejoinsByItself() throws Exception {
        CoordClient memberClient = client();
        Group<Meta> observer = open(client());
        Recorder<Meta> recorder = new Recorder<>();
        observer.addListener(recorder, events);
        Membership<Meta> m = open(memberClient).join("w1", new Meta(1));
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
        }, events);
        MemberInfo<Meta> before = observer.awaitMember("w1", Duration.ofSeconds(5));

        long expired = Faults.expireSession(memberClient, zk.ensemble());
        long start = System.nanoTime();
        Awaits.until("the observer sees the old incarnation leave", SESSION.plus(MARGIN),
                () -> observer.view().member("w1").map(x -> x.czxid() != before.czxid()).orElse(true));

        Awaits.until("the member rejoined on a new session", Duration.ofSeconds(10),
                () -> m.state() == Membership.State.JOINED && m.rejoins() == 1);
        assertNotEquals(expired, m.session().id(), "the new node belongs to the new session");
        assertEquals(memberClient.session().id(), m.session().id());
        Awaits.until("the owner was told", Duration.ofSeconds(5), () -> told.size() == 2);
        assertEquals(List.of("nodeLost", "rejoined " + m.session().idHex()), told);
        MemberInfo<Meta> after = observer.awaitMember("w1", Duration.ofSeconds(5));
        Awaits.until("the observer holds the new incarnation", Duration.ofSeconds(5),
                () -> observer.view().member("w1").map(x -> x.czxid() == m.incarnation()).orElse(false));
        assertTrue(after.czxid() > before.czxid() || observer.view().member("w1").orElseThrow().czxid() > before.czxid());
        Awaits.until("the observer counts a flap", Duration.ofSeconds(5), () -> observer.flaps().containsKey("w1"));
        Awaits.until("the listener saw leave then join", Duration.ofSeconds(5),
                () -> recorder.count(ViewDiff.Kind.LEFT) == 1 && recorder.count(ViewDiff.Kind.JOINED) == 2);
        long took = System.nanoTime() - start;
        assertTrue(took >= 0);
        recorder.assertEveryBatchIsExactlyTheDifference();
    }

    @Test
    void aMemberInAChildJvmKilledWithSignal9IsReportedLeftWithinTheSessionTimeoutPlusAMargin() throws Exception {
        Group<Meta> observer = open(client());
        ChildJvm child = closer.add(ChildJvm.start(ChildMember.class.getName(), zk.connectString(), zk.namespace(), "g", "child-1",
                Long.toString(SESSION.toMillis())));
        String joined = child.expectLine("JOINED", Duration.ofSeconds(30));
        assertTrue(joined.startsWith("JOINED "), joined);
        Duration negotiated = Duration.ofMillis(Long.parseLong(joined.split(" ")[2]));
        observer.awaitMember("child-1", Duration.ofSeconds(10));

        child.kill9();
        Duration took = Awaits.until("the killed member is reported left", negotiated.plus(MARGIN),
                () -> !observer.view().contains("child-1"));
        System.out.println("kill -9 -> left seen after " + took.toMillis() + " ms (negotiated session timeout "
                + negotiated.toMillis() + " ms)");
    }

    @Test
    void anObserverReconnectingDuringChurnReceivesExactlyTheDifferences() throws Exception {
        ClientProxy proxy = closer.add(ClientProxy.to(zk.connectString()));
        CoordClient observerClient = zk.newClient(b -> b.connectString(proxy.connectString()).sessionTimeout(Duration.ofSeconds(4)));
        Group<Meta> observer = open(observerClient);
        Recorder<Meta> recorder = new Recorder<>();
        observer.addListener(recorder, events);
        CoordSession session = observerClient.session();
        AtomicInteger reconnects = new AtomicInteger();
        session.addListener(new SessionListener() {
            @Override
            public void onReconnected(CoordSession s) {
                reconnects.incrementAndGet();
            }
        }, events);

        long seed = System.nanoTime();
        Churn churn = closer.add(new Churn(joiners(), seed).start());
        Set<String> live = null;
        for (int cut = 1; cut <= 3; cut++) {
            churn.awaitOps(10);
            // Cut the observer off while the churn goes on: the changes made meanwhile reach it
            // through no watch event, only through the rebuild after the reconnect.
            proxy.refuse();
            churn.awaitOps(15);
            if (cut == 3) {
                live = churn.stop(); // nothing after the last reconnect: only the rebuild can tell the observer
            }
            proxy.accept();
            int expected = cut;
            Awaits.until("reconnect " + cut, Duration.ofSeconds(10), () -> reconnects.get() >= expected);
        }

        assertEquals(session.id(), observerClient.session().id(), "reconnects kept the session (no expiry)");
        checkConverged(observer, recorder, churn, live, "seed " + seed);
    }

    @Test
    void anObserverWhoseSessionExpiresDuringChurnReceivesExactlyTheDifferences() throws Exception {
        CoordClient observerClient = client();
        Group<Meta> observer = open(observerClient);
        Recorder<Meta> recorder = new Recorder<>();
        observer.addListener(recorder, events);

        long seed = System.nanoTime();
        Churn churn = closer.add(new Churn(joiners(), seed).start());
        List<Long> sessions = new ArrayList<>();
        Set<String> live = null;
        for (int round = 1; round <= 2; round++) {
            churn.awaitOps(20);
            long old = Faults.expireSession(observerClient, zk.ensemble());
            sessions.add(old);
            churn.awaitOps(15);
            if (round == 2) {
                live = churn.stop(); // what changed since the expiry reaches the observer only through the rebuild
            }
            Awaits.until("the observer has a new session", Duration.ofSeconds(10), () -> {
                try {
                    return observerClient.session().id() != old;
                } catch (CoordException e) {
                    return false;
                }
            });
        }
        assertTrue(!sessions.contains(observerClient.session().id()));
        checkConverged(observer, recorder, churn, live, "seed " + seed);
    }

    @Test
    void aMemberWhoseClientGaveUpItsSessionFirstWaitsForTheOldNodeAndRejoins() throws Exception {
        CoordClient memberClient = client();
        Group<Meta> observer = open(client());
        Membership<Meta> m = open(memberClient).join("w1", new Meta(1));
        long first = m.incarnation();
        long oldSession = memberClient.session().id();

        // The client alone believes its session expired; the server keeps it (and the node) until its timeout.
        Faults.injectClientExpiry(memberClient);

        Awaits.until("the member rejoined", SESSION.multipliedBy(2).plus(MARGIN.multipliedBy(2)),
                () -> m.state() == Membership.State.JOINED && m.rejoins() == 1);
        assertNotEquals(oldSession, m.session().id());
        assertNotEquals(first, m.incarnation());
        Awaits.until("the observer holds the new incarnation", Duration.ofSeconds(5),
                () -> observer.view().member("w1").map(x -> x.czxid() == m.incarnation()).orElse(false));
    }

    private List<Group<Meta>> joiners() throws InterruptedException {
        List<Group<Meta>> joiners = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            joiners.add(open(zk.newClient()));
        }
        return joiners;
    }

    private void checkConverged(Group<Meta> observer, Recorder<Meta> recorder, Churn churn, Set<String> live, String context)
            throws InterruptedException {
        GroupView<Meta> truth = closer.add(Group.open(zk.newClient(), "g", Meta.class)).view();
        assertEquals(live, truth.ids(), "the fresh read holds the live members (" + context + ")");
        Awaits.until("the observer converges (" + context + ")", Duration.ofSeconds(10), () -> observer.view().equals(truth));
        Awaits.until("its listener was told the last view", Duration.ofSeconds(10),
                () -> recorder.lastView() != null && recorder.lastView().version() == truth.version());
        assertEquals(truth.members(), recorder.replayed(), "replaying the events gives the view (" + context + ")");
        int batches = recorder.assertEveryBatchIsExactlyTheDifference();
        churn.assertNothingInvented(recorder, "the observer");
        assertTrue(batches > 1, "several views were told: " + batches);
    }

    /**
     * Issue 15, defect 5: a member that leaves while cut off deletes its node once the session
     * reconnects. That retry starts on the client's events thread (a session listener), so it must
     * not block there: it used to be a synchronous read and delete, which on a connection that drops
     * again would hold up every lease event of the client for Curator's whole retry loop. The
     * session is long enough that the node goes by our delete, not by an expiry.
     */
    @Test
    void aMemberLeftWhileCutOffIsDeletedOnReconnectWithoutABlockingCallOnTheEventThread() throws Exception {
        long violationsBefore = EventThreads.violations();
        try (ClientProxy proxy = ClientProxy.to(zk.ensemble())) {
            CoordClient cutClient = zk.newClient(b -> b.connectString(proxy.connectString()).sessionTimeout(Duration.ofSeconds(8)));
            CoordClient other = client();
            Membership<Meta> member = open(cutClient).join("m1", new Meta(1));
            long session = cutClient.session().id();
            String node = member.node().value();

            proxy.refuse();
            Faults.awaitState(cutClient.session(), SessionState.SUSPENDED, Duration.ofSeconds(10));
            member.leave(); // cannot reach the server: the delete waits for the reconnect
            assertNotNull(other.curator().checkExists().forPath(node), "the node outlives a leave that could not reach the server");

            proxy.accept();
            // a reconnect (ZooKeeper's client waits up to a second between attempts) and two background requests
            Awaits.until("m1's node deleted after the reconnect", Duration.ofSeconds(6), () -> exists(other, node) == Boolean.FALSE);
            assertEquals(session, cutClient.session().id(), "same session: our delete removed the node, not an expiry");
        }
        assertEquals(violationsBefore, EventThreads.violations(), "no blocking call ran on an event thread");
    }

    private static Boolean exists(CoordClient client, String node) {
        try {
            return client.curator().checkExists().forPath(node) != null;
        } catch (Exception e) {
            return null;
        }
    }
}
