package io.coord.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.CoordSession;
import io.coord.CoordSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Servers in child JVMs: F7 (leader SIGSTOP), F8 (quorum loss past the session timeout) and F9 (partition between servers). */
@Tag("fault")
class ForkedEnsembleTest {
    @RegisterExtension
    final LeakCheckExtension leaks = LeakCheckExtension.threads();

    private static ForkedEnsemble ensemble;

    @BeforeAll
    static void start() {
        ensemble = ForkedEnsemble.start(3, true);
    }

    @AfterAll
    static void stop() {
        if (ensemble != null) {
            ensemble.close();
        }
    }

    private static CoordClient connect(String connectString, Duration session) throws InterruptedException {
        return CoordClient.connect(CoordSettings.builder().connectString(connectString).namespace("forked")
                .sessionTimeout(session).connectionTimeout(Duration.ofSeconds(10)).build());
    }

    private static void awaitAllServing() {
        for (int i = 0; i < ensemble.size(); i++) {
            Faults.awaitServing(ensemble, i, Duration.ofSeconds(30));
        }
    }

    @Test
    void pausingTheLeaderElectsAnotherAndItsClientMovesOnTheSameSession() throws Exception {
        awaitAllServing();
        int leader = ensemble.awaitLeader(10_000);
        List<ClientProxy> proxies = new ArrayList<>();
        try {
            // 10 s: the maximum at tickTime 500 ms; elections here took 1-7 s
            try (CoordClient client = connectVia(proxies, leader, Duration.ofSeconds(10))) {
                client.curator().create().creatingParentsIfNeeded().forPath("/f7/before");
                CoordSession session = client.session();
                SessionEvents events = SessionEvents.attach(client);

                events.mark();
                long pausedAt = System.nanoTime();
                ensemble.pause(leader);
                try {
                    int next = ensemble.awaitLeader(Awaits.scaled(Duration.ofSeconds(20)).toMillis());
                    long electedMs = (System.nanoTime() - pausedAt) / 1_000_000;
                    assertNotEquals(leader, next);
                    Duration suspended = events.await(SessionEvents.Kind.SUSPENDED, Duration.ofSeconds(10));
                    // The client's server is frozen: it notices by its read timeout (2/3 of the session).
                    Awaits.until("a write after the client moved", Duration.ofSeconds(20), () -> {
                        try {
                            client.curator().create().forPath("/f7/during");
                            return true;
                        } catch (Exception e) {
                            return false;
                        }
                    });
                    long movedMs = (System.nanoTime() - pausedAt) / 1_000_000;
                    boolean sameSession = session.id() == client.session().id();
                    long pausedMs = (System.nanoTime() - pausedAt) / 1_000_000;
                    System.out.printf("F7: leader %d paused; leader %d serving after %d ms; client SUSPENDED %d ms, writing again %d ms,"
                            + " kept its session: %s; pause lasted %d ms (> syncLimit x tickTime = 1000 ms)%n", leader, next, electedMs,
                            suspended.toMillis(), movedMs, sameSession, pausedMs);
                    // Keeping the session needs the new leader serving before Curator's LOST timer runs out
                    // (elections here: 1.3-7.3 s); only after a quick election is it a must.
                    if (electedMs < 4_000) {
                        assertTrue(sameSession, "the session survives a leader pause when the election took " + electedMs + " ms");
                    }
                } finally {
                    ensemble.resume(leader);
                }
                Awaits.until("the resumed old leader to rejoin as a follower", Duration.ofSeconds(30),
                        () -> ensemble.mode(leader).filter("follower"::equals).isPresent());
                long leaders = java.util.stream.IntStream.range(0, 3).filter(i -> ensemble.mode(i).filter("leader"::equals).isPresent()).count();
                assertEquals(1, leaders, "exactly one leader after the resume");
                try (CoordClient onOld = connect(ensemble.connectString(leader), Duration.ofSeconds(4))) {
                    onOld.curator().sync().forPath("/f7");
                    assertNotNull(onOld.curator().checkExists().forPath("/f7/during"), "the old leader caught up");
                }
            }
        } finally {
            proxies.forEach(ClientProxy::close);
        }
    }

    /** A client of all members through one proxy per member, connected to member {@code first}. */
    private static CoordClient connectVia(List<ClientProxy> proxies, int first, Duration session) throws InterruptedException {
        for (int i = 0; i < ensemble.size(); i++) {
            proxies.add(ClientProxy.to(ensemble.connectString(i)));
            if (i != first) {
                proxies.get(i).refuse(); // so the client's first connection goes to member `first`
            }
        }
        String all = proxies.stream().map(ClientProxy::connectString).collect(Collectors.joining(","));
        CoordClient client = connect(all, session);
        // At least one: on a busy machine a first attempt may time out and be retried on the same member.
        for (int i = 0; i < proxies.size(); i++) {
            if (i != first) {
                assertEquals(0, proxies.get(i).openConnections(), "no connection to member " + i + " (it refuses)");
            }
        }
        assertTrue(proxies.get(first).openConnections() >= 1, "the client is on member " + first);
        proxies.forEach(ClientProxy::accept);
        return client;
    }

    @Test
    void anIsolatedLeaderStopsServingItsClientMovesTheMajorityGoesOnAndTheHealedServerCatchesUp() throws Exception {
        awaitAllServing();
        int leader = ensemble.awaitLeader(10_000);
        List<ClientProxy> proxies = new ArrayList<>();
        try (CoordClient mover = connectVia(proxies, leader, Duration.ofSeconds(10));
             CoordClient minorityOnly = connect(ensemble.connectString(leader), Duration.ofSeconds(4))) {
            mover.curator().create().creatingParentsIfNeeded().forPath("/f9/before");
            CoordSession session = mover.session();
            SessionEvents moved = SessionEvents.attach(mover);
            SessionEvents minority = SessionEvents.attach(minorityOnly);

            long cutAt = System.nanoTime();
            moved.mark();
            minority.mark();
            ensemble.isolate(leader);
            try {
                // The isolated leader still calls itself leader until it misses its followers' acks.
                int next = Awaits.value("a leader among the majority", Duration.ofSeconds(20), () -> java.util.stream.IntStream.range(0, 3)
                        .filter(i -> i != leader && ensemble.mode(i).filter("leader"::equals).isPresent()).boxed().findFirst());
                long electedMs = (System.nanoTime() - cutAt) / 1_000_000;
                assertNotEquals(leader, next);
                Duration stopped = Awaits.until("the isolated server to stop serving", Duration.ofSeconds(20),
                        () -> ensemble.mode(leader).isEmpty());
                // The minority: a client that can reach only the isolated server is cut off.
                minority.await(SessionEvents.Kind.SUSPENDED, Duration.ofSeconds(10));
                // Its clients move: the one that was on it is SUSPENDED, then reconnects to a member of the majority.
                Duration suspended = moved.await(SessionEvents.Kind.SUSPENDED, Duration.ofSeconds(10));
                Awaits.until("a write through the majority", Duration.ofSeconds(15), () -> {
                    try {
                        mover.curator().create().forPath("/f9/during");
                        return true;
                    } catch (Exception e) {
                        return false;
                    }
                });
                long movedMs = (System.nanoTime() - cutAt) / 1_000_000;
                // The proxy closes the pair of a connection the client abandoned (on the isolated server, or
                // on a majority member still electing) on its own selector thread, a moment after the client
                // moved; the settled state is one connection, to a member of the majority.
                Awaits.until("the client to be on one member of the majority, none to the isolated server", Duration.ofSeconds(10),
                        () -> proxies.get(leader).openConnections() == 0
                                && proxies.stream().mapToInt(ClientProxy::openConnections).sum() == 1);
                assertTrue(moved.first(SessionEvents.Kind.RECONNECTED).isPresent() || moved.first(SessionEvents.Kind.NEW).isPresent(),
                        "the client reconnected after SUSPENDED");
                boolean sameSession = session.id() == mover.session().id();
                System.out.printf("F9: leader %d isolated; leader %d serving after %d ms; isolated server not serving after a further %d ms;"
                        + " its client SUSPENDED after %d ms and writing through the majority after %d ms, kept its session: %s%n",
                        leader, next, electedMs, stopped.toMillis(), suspended.toMillis(), movedMs, sameSession);
                // Keeping the session is a liveness matter: it needs the majority serving again before
                // Curator's LOST timer (the session timeout, counted from SUSPENDED) runs out. Elections
                // here took 1.3-7 s, and once more than 10 s; only a quick one makes it a must.
                if (electedMs < 4_000) {
                    assertTrue(sameSession, "a client that knows every server keeps its session after a " + electedMs + " ms election");
                }
            } finally {
                ensemble.heal();
            }
            Awaits.until("the healed server to serve again", Duration.ofSeconds(30), () -> ensemble.mode(leader).isPresent());
            try (CoordClient onHealed = connect(ensemble.connectString(leader), Duration.ofSeconds(4))) {
                onHealed.curator().sync().forPath("/f9");
                assertNotNull(onHealed.curator().checkExists().forPath("/f9/during"), "the healed server caught up");
            }
        } finally {
            proxies.forEach(ClientProxy::close);
        }
    }

    @Test
    void quorumLossPastTheSessionTimeoutEndsEverySessionAndTheRestoredQuorumServesNewOnes() throws Exception {
        awaitAllServing();
        Duration session = Duration.ofSeconds(2);
        List<CoordClient> clients = new ArrayList<>();
        List<SessionEvents> events = new ArrayList<>();
        List<Long> oldIds = new ArrayList<>();
        List<Integer> stopped = List.of();
        try {
            for (int i = 0; i < ensemble.size(); i++) {
                CoordClient c = connect(ensemble.connectString(), session);
                clients.add(c);
                c.curator().create().creatingParentsIfNeeded().withMode(org.apache.zookeeper.CreateMode.EPHEMERAL).forPath("/f8/c" + i);
                oldIds.add(c.session().id());
                events.add(SessionEvents.attach(c));
            }
            events.forEach(SessionEvents::mark);
            long lostAt = System.nanoTime();
            stopped = Faults.loseQuorum(ensemble);
            assertEquals(2, stopped.size(), "2 of 3 members stopped");
            long maxLostMs = 0;
            for (SessionEvents e : events) {
                e.await(SessionEvents.Kind.SUSPENDED, session.plusSeconds(3));
                maxLostMs = Math.max(maxLostMs, e.await(SessionEvents.Kind.ENDED, session.multipliedBy(2).plusSeconds(3)).toMillis());
            }
            // hold the quorum loss to 2.5x the session timeout in all
            Duration left = session.multipliedBy(5).dividedBy(2).minusNanos(System.nanoTime() - lostAt);
            Awaits.hold(left.isNegative() ? Duration.ZERO : left);
            for (SessionEvents e : events) {
                assertTrue(e.first(SessionEvents.Kind.NEW).isEmpty(), "no session can start without a quorum");
            }
            long restoreAt = System.nanoTime();
            Faults.restore(ensemble, stopped);
            stopped = List.of();
            long restoredMs = (System.nanoTime() - restoreAt) / 1_000_000;
            for (int i = 0; i < clients.size(); i++) {
                assertNotEquals(oldIds.get(i), Faults.awaitNewSession(clients.get(i), oldIds.get(i), Duration.ofSeconds(30)).id());
            }
            long newSessionsMs = (System.nanoTime() - restoreAt) / 1_000_000;
            CoordClient c0 = clients.get(0);
            // Nobody renews the old sessions: the restored quorum expires them (a newly elected
            // leader re-times them from the restore first).
            Awaits.until("the old sessions' ephemerals to go", session.plusSeconds(10), () -> {
                try {
                    return c0.curator().getChildren().forPath("/f8").isEmpty();
                } catch (Exception e) {
                    return false;
                }
            });
            c0.curator().create().withMode(org.apache.zookeeper.CreateMode.EPHEMERAL).forPath("/f8/fresh");
            System.out.printf("F8 (forked, session %d ms): every client LOST within %d ms of stopping 2 of 3 members;"
                    + " quorum back %d ms after the resume, every client on a new session %d ms after it%n",
                    session.toMillis(), maxLostMs, restoredMs, newSessionsMs);
        } finally {
            if (!stopped.isEmpty()) {
                Faults.restore(ensemble, stopped);
            }
            clients.forEach(CoordClient::close);
        }
    }
}
