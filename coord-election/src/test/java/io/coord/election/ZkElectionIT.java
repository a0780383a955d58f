package io.coord.election;

import static io.coord.election.ElectionTestKit.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.CoordTimeoutException;
import io.coord.LeaseState;
import io.coord.LockLostException;
import io.coord.Registration;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The election against a real server: who leads, epochs, handover, observers, leaving. */
class ZkElectionIT {
    @RegisterExtension
    static final ElectionTestKit KIT = new ElectionTestKit();
    private static final Duration BUDGET = Duration.ofSeconds(10);

    private final ExecutorService callbacks = Executors.newSingleThreadExecutor();

    @AfterEach
    void stopCallbacks() throws InterruptedException {
        callbacks.shutdownNow();
        assertTrue(callbacks.awaitTermination(5, TimeUnit.SECONDS));
    }

    private static ElectionOptions as(String id) {
        return ElectionOptions.builder().participantId(id).metadata(Map.of("id", id)).build();
    }

    private Election candidate(String id) {
        return KIT.election(KIT.client(), "svc", as(id));
    }

    @Test
    void firstCandidateLeadsWithTheCzxidOfItsOwnNodeAsEpoch() throws Exception {
        CoordClient client = KIT.client();
        Election election = KIT.election(client, "svc", as("a"));
        Leadership leadership = election.campaign(BUDGET);
        Stat stat = client.curator().checkExists().forPath(leadership.node().value());
        assertNotNull(stat, "our node exists");
        assertEquals(stat.getCzxid(), leadership.epoch().value());
        assertEquals(client.session().id(), stat.getEphemeralOwner());
        assertTrue(leadership.node().startsWith(election.path()), leadership.node() + " under " + election.path());
        assertTrue(leadership.node().name().startsWith("_c_") && leadership.node().name().contains("-latch-"),
                "a protected candidate node: " + leadership.node());
        assertEquals(LeaseState.ACQUIRED, leadership.state());
        leadership.checkValid();
        assertEquals("a", leadership.info().id());
        assertEquals("svc", leadership.election());
    }

    @Test
    void aHandleWhoseLeadershipEndedCampaignsAgainAtOnceButNotWhileItLeads() throws Exception {
        // The leadership's end step runs off the event thread, possibly after ended() completed:
        // the handle must be free the moment the caller sees the end (CI once got "already has a
        // candidacy or leadership" right after a LOST).
        Election election = KIT.election(KIT.client(), "again", as("a"));
        long epoch = 0;
        for (int round = 0; round < 20; round++) {
            Leadership l = election.campaign(BUDGET);
            assertTrue(l.epoch().value() > epoch, "round " + round + ": a new node, a higher epoch");
            epoch = l.epoch().value();
            assertThrows(IllegalStateException.class, () -> election.campaign(BUDGET), "round " + round + ": one leadership per handle");
            l.resign();
            assertEquals(LeaseState.RELEASED, l.ended().get(BUDGET.toMillis(), TimeUnit.MILLISECONDS));
        }
    }

    @Test
    void aHandleWhoseLeadershipWasLostCampaignsAgainTheMomentItSeesTheLoss() throws Exception {
        // A leader steps down (LOST) when a foreign node appears; the LOST completes ended() on the
        // event thread while the leadership's end step runs later on another: a campaign right after
        // ended() must be judged on the election (refused for the foreign node), not on a handle
        // still marked busy (IllegalStateException "already has a candidacy or leadership").
        CoordClient client = KIT.client();
        Election election = KIT.election(client, "lost-again", as("a"));
        String foreign = election.path().value() + "/not-a-candidate";
        for (int round = 0; round < 10; round++) {
            Leadership l = election.campaign(BUDGET);
            client.curator().create().forPath(foreign);
            assertEquals(LeaseState.LOST, l.ended().get(BUDGET.toMillis(), TimeUnit.MILLISECONDS), "round " + round);
            int r = round;
            assertThrows(io.coord.ForeignNodesException.class, () -> election.campaign(BUDGET), () -> "round " + r);
            client.curator().delete().forPath(foreign);
        }
    }

    @Test
    void resignHandsLeadershipToTheNextCandidateWithAStrictlyGreaterEpoch() throws Exception {
        Election a = candidate("a");
        Election b = candidate("b");
        Leadership first = a.campaign(BUDGET);
        CompletableFuture<Leadership> second = b.campaignAsync();
        await(BUDGET, () -> candidatesQuietly(a).size() == 2, () -> "b joined");
        assertFalse(second.isDone(), "b cannot lead while a does");
        first.resign();
        Leadership next = second.get(10, TimeUnit.SECONDS);
        assertTrue(next.epoch().isNewerThan(first.epoch()), first.epoch() + " then " + next.epoch());
        assertEquals(LeaseState.RELEASED, first.state());
        assertThrows(LockLostException.class, first::checkValid);
        assertNull(KIT.client().curator().checkExists().forPath(first.node().value()), "resign deleted exactly our node");
        next.checkValid();
    }

    @Test
    void campaignTimesOutAndWithdrawsItsNode() throws Exception {
        Election a = candidate("a");
        Election b = candidate("b");
        a.campaign(BUDGET);
        CoordTimeoutException e = assertThrows(CoordTimeoutException.class, () -> b.campaign(Duration.ofMillis(300)));
        assertTrue(e.getMessage().contains("svc"), e.getMessage());
        assertEquals(List.of("a"), candidatesQuietly(a).stream().map(Participant::id).toList(), "b's node is gone");
        assertThrows(CoordTimeoutException.class, () -> b.campaign(Duration.ofMillis(50)), "a still leads");
    }

    @Test
    void interruptWhileCampaigningWithdrawsTheCandidacyAndKeepsTheInterrupt() throws Exception {
        Election a = candidate("a");
        Election b = candidate("b");
        a.campaign(BUDGET);
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        AtomicReference<Boolean> flag = new AtomicReference<>();
        Thread t = new Thread(() -> {
            try {
                b.campaign(Duration.ofMinutes(1));
            } catch (Throwable e) {
                thrown.set(e);
                flag.set(Thread.currentThread().isInterrupted());
            }
        });
        t.start();
        await(BUDGET, () -> candidatesQuietly(a).size() == 2, () -> "b joined");
        t.interrupt();
        t.join(10_000);
        assertFalse(t.isAlive());
        assertTrue(thrown.get() instanceof InterruptedException, "InterruptedException, got " + thrown.get());
        assertEquals(List.of("a"), candidatesQuietly(a).stream().map(Participant::id).toList(), "b withdrew");
    }

    @Test
    void cancellingAnAsyncCampaignWithdrawsTheCandidacy() throws Exception {
        Election a = candidate("a");
        Election b = candidate("b");
        a.campaign(BUDGET);
        CompletableFuture<Leadership> f = b.campaignAsync();
        await(BUDGET, () -> candidatesQuietly(a).size() == 2, () -> "b joined");
        f.cancel(true);
        await(BUDGET, () -> candidatesQuietly(a).size() == 1, () -> "b withdrew: " + candidatesQuietly(a));
        assertThrows(CoordTimeoutException.class, () -> b.campaign(Duration.ofMillis(50)), "a still leads; b's handle is free");
    }

    @Test
    void oneHandleHoldsOneCandidacyAtATime() throws Exception {
        Election a = candidate("a");
        a.campaign(BUDGET);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> a.campaign(BUDGET));
        assertTrue(e.getMessage().contains("svc"), e.getMessage());
        assertThrows(IllegalStateException.class, () -> a.lead(l -> { }));
    }

    @Test
    void aResignedHandleCanCampaignAgainAndGetsANewerEpoch() throws Exception {
        Election a = candidate("a");
        Leadership first = a.campaign(BUDGET);
        first.resign();
        Leadership second = a.campaign(BUDGET);
        assertTrue(second.epoch().isNewerThan(first.epoch()));
    }

    @Test
    void leaderAndCandidatesShowIdMetadataEpochAndOrder() throws Exception {
        Election a = candidate("a");
        Election b = candidate("b");
        Election c = candidate("c");
        Election observer = KIT.election(KIT.client(), "svc", as("observer"));
        assertEquals(Optional.empty(), observer.leader(), "nobody yet, and no node made by asking");
        assertNull(KIT.client().curator().checkExists().forPath(observer.path().value()));
        Leadership la = a.campaign(BUDGET);
        b.campaignAsync();
        await(BUDGET, () -> candidatesQuietly(observer).size() == 2, () -> "b joined");
        c.campaignAsync();
        await(BUDGET, () -> candidatesQuietly(observer).size() == 3, () -> "c joined");
        await(BUDGET, () -> leaderQuietly(observer).map(LeaderInfo::acting).orElse(false), () -> "a announced");
        LeaderInfo leader = observer.leader().orElseThrow();
        assertEquals("a", leader.id());
        assertEquals(Map.of("id", "a"), leader.metadata());
        assertEquals(la.epoch(), leader.epoch());
        assertTrue(leader.acting());
        List<Participant> all = observer.candidates();
        assertEquals(List.of("a", "b", "c"), all.stream().map(Participant::id).toList());
        assertTrue(all.get(0).token().value() < all.get(1).token().value() && all.get(1).token().value() < all.get(2).token().value(),
                "would-be epochs grow along the line: " + all);
        assertFalse(leader.since().isBefore(all.get(0).joinedAt()), "leading since is not before joining");
    }

    @Test
    void closingTheElectionStopsTheTaskBeforeItsNodeGoesThenLeavesNoNode() throws Exception {
        CoordClient client = KIT.client();
        Election a = KIT.election(client, "svc", as("a"));
        Election b = candidate("b");
        CountDownLatch leading = new CountDownLatch(1);
        AtomicReference<String> endedBy = new AtomicReference<>();
        AtomicReference<Leadership> held = new AtomicReference<>();
        AtomicReference<CompletableFuture<Leadership>> nextRef = new AtomicReference<>();
        a.lead(l -> {
            held.set(l);
            leading.countDown();
            try {
                new CountDownLatch(1).await();
            } catch (InterruptedException e) {
                endedBy.set("interrupt while " + l.state() + ", next leading: " + nextRef.get().isDone());
                throw e;
            }
        });
        assertTrue(leading.await(10, TimeUnit.SECONDS));
        CompletableFuture<Leadership> next = b.campaignAsync();
        nextRef.set(next);
        await(BUDGET, () -> candidatesQuietly(b).size() == 2, () -> "b joined");
        a.close();
        assertEquals("interrupt while ACQUIRED, next leading: false", endedBy.get(),
                "the task was interrupted, and ended, before our node was deleted");
        assertEquals(LeaseState.RELEASED, held.get().state());
        assertNull(client.curator().checkExists().forPath(held.get().node().value()), "our node is gone");
        assertTrue(next.get(10, TimeUnit.SECONDS).epoch().isNewerThan(held.get().epoch()));
        assertTrue(ElectionTestKit.electionThreads().stream().noneMatch(n -> n.contains("svc-" )
                && n.endsWith("-observer")), "no observer was started");
    }

    @Test
    void leaderTaskIsRequeuedAfterItReturnsAndEveryRunHasANewerEpoch() throws Exception {
        Election a = KIT.election(KIT.client(), "svc", ElectionOptions.builder().participantId("a").requeue(true).build());
        Election b = KIT.election(KIT.client(), "svc", ElectionOptions.builder().participantId("b").requeue(true).build());
        List<String> runs = new CopyOnWriteArrayList<>();
        List<Long> epochs = new CopyOnWriteArrayList<>();
        LeaderTask task = l -> {
            runs.add(l.info().id());
            epochs.add(l.epoch().value());
            // returning resigns: the other candidate takes over
        };
        a.lead(task);
        b.lead(task);
        await(BUDGET, () -> runs.size() >= 10, () -> "ten runs: " + runs);
        List<Long> seen = new ArrayList<>(epochs);
        for (int i = 1; i < seen.size(); i++) {
            assertTrue(seen.get(i) > seen.get(i - 1), "epochs strictly increase: " + seen);
        }
        assertTrue(runs.contains("a") && runs.contains("b"), "requeued at the back, so both lead: " + runs);
    }

    @Test
    void withoutRequeueTheTaskRunsForOneLeadershipAndTheHandleIsFreeAgain() throws Exception {
        Election a = candidate("a");
        AtomicInteger runs = new AtomicInteger();
        Registration r = a.lead(l -> runs.incrementAndGet());
        await(BUDGET, () -> runs.get() == 1 && candidatesQuietly(a).isEmpty(), () -> "ran once and resigned");
        await(BUDGET, () -> {
            try {
                a.campaign(Duration.ofMillis(100)).resign();
                return true;
            } catch (IllegalStateException | InterruptedException busy) {
                return false;
            }
        }, () -> "the handle is free once the task's loop has ended");
        r.close();
        assertEquals(1, runs.get());
    }

    @Test
    void aFailingTaskResignsSoTheNextCandidateLeads() throws Exception {
        Election a = candidate("a");
        Election b = candidate("b");
        CountDownLatch failed = new CountDownLatch(1);
        a.lead(l -> {
            failed.countDown();
            throw new IllegalStateException("boom");
        });
        assertTrue(failed.await(10, TimeUnit.SECONDS));
        Leadership next = b.campaign(BUDGET);
        assertEquals("b", next.info().id());
    }

    @Test
    void aRequeuedTaskThatKeepsFailingIsRetriedAfterAPauseNotInASpin() throws Exception {
        Election a = KIT.election(KIT.client(), "svc", ElectionOptions.builder().participantId("a").requeue(true).build());
        List<Long> starts = new CopyOnWriteArrayList<>();
        a.lead(l -> {
            starts.add(System.nanoTime());
            throw new IllegalStateException("the database is down");
        });
        await(BUDGET, () -> starts.size() >= 3, () -> "three attempts: " + starts.size());
        for (int i = 1; i < 3; i++) {
            long gap = starts.get(i) - starts.get(i - 1);
            assertTrue(gap >= LeaderRunner.FAILURE_PAUSE_NANOS, "attempt " + i + " came " + gap / 1_000_000 + " ms after the previous");
        }
    }

    @Test
    void handoverGraceDelaysTheNewLeaderAfterThePreviousNodeIsGone() throws Exception {
        Duration grace = Duration.ofMillis(400);
        ElectionTestKit.RecordingMetrics metrics = new ElectionTestKit.RecordingMetrics();
        Election a = candidate("a");
        Election b = KIT.election(KIT.client(c -> c.metrics(metrics)), "svc",
                ElectionOptions.builder().participantId("b").handoverGrace(grace).build());
        Leadership first = a.campaign(BUDGET);
        CompletableFuture<Leadership> second = b.campaignAsync();
        await(BUDGET, () -> candidatesQuietly(a).size() == 2, () -> "b joined");
        long resigned = System.nanoTime();
        first.resign();
        second.get(10, TimeUnit.SECONDS);
        long acted = System.nanoTime();
        assertTrue(acted - resigned >= grace.toNanos(), "acted " + (acted - resigned) / 1_000_000 + " ms after the resign");
        List<Duration> handovers = metrics.times("coord.election.handover");
        assertEquals(1, handovers.size());
        assertTrue(handovers.get(0).compareTo(grace) >= 0, "handover " + handovers + " includes the grace");
        assertEquals(1, metrics.count("coord.election.changes"));
    }

    @Test
    void observersConvergeToTheCurrentLeaderAfterEveryChange() throws Exception {
        List<Election> observers = List.of(KIT.election(KIT.client(), "svc", as("o1")),
                KIT.election(KIT.client(), "svc", as("o2")));
        List<AtomicReference<Optional<LeaderInfo>>> views = new ArrayList<>();
        for (Election o : observers) {
            AtomicReference<Optional<LeaderInfo>> view = new AtomicReference<>();
            views.add(view);
            o.observe(new ElectionListener() {
                @Override
                public void onLeader(LeaderInfo leader) {
                    view.set(Optional.of(leader));
                }

                @Override
                public void onNoLeader() {
                    view.set(Optional.empty());
                }
            }, callbacks);
        }
        await(BUDGET, () -> views.stream().allMatch(v -> Optional.empty().equals(v.get())), () -> "first report: no leader");
        List<Election> candidates = new ArrayList<>();
        for (String id : List.of("a", "b", "c")) {
            candidates.add(KIT.election(KIT.client(), "svc",
                    ElectionOptions.builder().participantId(id).requeue(true).build()));
        }
        AtomicReference<Leadership> current = new AtomicReference<>();
        for (Election c : candidates) {
            c.lead(l -> {
                current.set(l);
                new CountDownLatch(1).await(); // lead until resigned
            });
        }
        for (int change = 0; change < 8; change++) {
            await(BUDGET, () -> current.get() != null && current.get().state() == LeaseState.ACQUIRED, () -> "a leader");
            Leadership now = current.get();
            await(BUDGET, () -> views.stream().allMatch(v -> v.get() != null && v.get().isPresent()
                    && v.get().get().epoch().equals(now.epoch()) && v.get().get().acting()),
                    () -> "observers see " + now + ": " + views);
            assertEquals(now.info().id(), views.get(0).get().orElseThrow().id());
            now.resign();
        }
        for (Election c : candidates) {
            c.close();
        }
        await(BUDGET, () -> views.stream().allMatch(v -> Optional.empty().equals(v.get())), () -> "no leader at the end: " + views);
    }

    @Test
    void onlyTheNextCandidateIsWokenWhenTheLeaderLeaves() throws Exception {
        List<ElectionTestKit.RecordingMetrics> metrics = new ArrayList<>();
        List<CoordClient> clients = new ArrayList<>();
        List<Election> elections = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            ElectionTestKit.RecordingMetrics m = new ElectionTestKit.RecordingMetrics();
            CoordClient c = KIT.client(b -> b.metrics(m));
            metrics.add(m);
            clients.add(c);
            elections.add(KIT.election(c, "svc", as("c" + i)));
        }
        Leadership leader = elections.get(0).campaign(BUDGET);
        List<CompletableFuture<Leadership>> waiting = new ArrayList<>();
        for (int i = 1; i < 5; i++) {
            waiting.add(elections.get(i).campaignAsync());
            int joined = i + 1;
            await(BUDGET, () -> candidatesQuietly(elections.get(0)).size() == joined, () -> "c" + joined + " joined");
        }
        List<Participant> line = elections.get(0).candidates();
        assertEquals(List.of("c0", "c1", "c2", "c3", "c4"), line.stream().map(Participant::id).toList());

        // Structure, as the server sees it: no candidate watches the election's children, and each
        // candidate node is watched only by its owner (its lease) and by the candidate just behind it.
        List<Long> sessions = clients.stream().map(c -> c.session().id()).toList();
        String prefix = "/" + KIT.namespace();
        await(BUDGET, () -> {
            Map<String, java.util.Set<Long>> w = watchesByPath();
            for (int i = 1; i < 5; i++) {
                if (!w.getOrDefault(prefix + line.get(i - 1).node().value(), java.util.Set.of()).contains(sessions.get(i))) {
                    return false;
                }
            }
            return true;
        }, () -> "every waiting candidate watches its predecessor: " + watchesByPath());
        Map<String, java.util.Set<Long>> watches = watchesByPath();
        java.util.Set<Long> onChildren = new java.util.HashSet<>(watches.getOrDefault(prefix + elections.get(0).path().value(),
                java.util.Set.of()));
        onChildren.retainAll(sessions);
        assertEquals(java.util.Set.of(), onChildren, "no candidate watches the election's children");
        for (int i = 0; i < 5; i++) {
            java.util.Set<Long> watchers = new java.util.HashSet<>(watches.getOrDefault(prefix + line.get(i).node().value(),
                    java.util.Set.of()));
            watchers.retainAll(sessions);
            java.util.Set<Long> allowed = new java.util.HashSet<>(List.of(sessions.get(i)));
            if (i + 1 < 5) {
                allowed.add(sessions.get(i + 1));
            }
            assertTrue(allowed.containsAll(watchers), "node of c" + i + " is watched only by c" + i + " and c" + (i + 1)
                    + ": " + watchers + " of " + sessions);
        }

        // Behaviour: the leader leaves; exactly one candidate wakes.
        leader.resign();
        Leadership next = waiting.get(0).get(10, TimeUnit.SECONDS);
        assertEquals("c1", next.info().id());
        for (int i = 2; i < 5; i++) {
            flushEvents(clients.get(i));
            assertEquals(0, metrics.get(i).count("coord.election.wakeups"), "c" + i + " was not woken");
            assertFalse(waiting.get(i - 1).isDone(), "c" + i + " still waits");
        }
        assertEquals(1, metrics.get(1).count("coord.election.wakeups"), "c1 woke once");
    }

    /** After this, every watch event the server sent this client before now has been delivered. */
    private static void flushEvents(CoordClient client) throws Exception {
        CountDownLatch done = new CountDownLatch(1);
        // Background callbacks run on the ZooKeeper event thread, after the events queued before them.
        client.curator().checkExists().inBackground((c, e) -> done.countDown()).forPath("/");
        assertTrue(done.await(10, TimeUnit.SECONDS));
    }

    /** The server's watches by path ({@code wchp}): data and child watches, session ids. */
    private static Map<String, java.util.Set<Long>> watchesByPath() {
        String text = io.coord.test.EmbeddedEnsemble.fourLetterWord(KIT.ensemble().clientPort(0), "wchp").orElse("");
        Map<String, java.util.Set<Long>> out = new java.util.HashMap<>();
        String path = null;
        for (String line : text.split("\n")) {
            if (line.startsWith("/")) {
                path = line.trim();
            } else if (path != null && line.trim().startsWith("0x")) {
                out.computeIfAbsent(path, k -> new java.util.HashSet<>()).add(Long.parseUnsignedLong(line.trim().substring(2), 16));
            }
        }
        return out;
    }

    private static Optional<LeaderInfo> leaderQuietly(Election e) {
        try {
            return e.leader();
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new AssertionError(ex);
        }
    }

    private static List<Participant> candidatesQuietly(Election e) {
        try {
            return e.candidates();
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new AssertionError(ex);
        }
    }
}
