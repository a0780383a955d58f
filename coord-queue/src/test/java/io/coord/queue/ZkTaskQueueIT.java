package io.coord.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.LeaseState;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;
import io.coord.test.ZooKeeperExtension;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The queue's guarantees on one real ZooKeeper server, one invariant per test. */
class ZkTaskQueueIT {
    @RegisterExtension
    @Order(1)
    static final ZooKeeperExtension ZOOKEEPER = ZooKeeperExtension.single();
    @RegisterExtension
    @Order(2)
    static final QueueServer ZK = QueueServer.on(ZOOKEEPER);

    private static final Duration WAIT = Duration.ofSeconds(5);

    private TaskQueue<Job> queue(CoordClient client) {
        return ZK.queue(client, "jobs", Job.class, QueueOptions.builder().backoff(Duration.ofMillis(200), Duration.ofSeconds(1))
                .backoffJitter(0).lanes(3).build());
    }

    private static TaskClaim<Job> claim(TaskQueue<Job> q) throws InterruptedException {
        return q.claim(WAIT).orElseThrow(() -> new AssertionError("no task claimed within " + WAIT));
    }

    @Test
    void oneConsumerReceivesTasksInEnqueueOrder() throws Exception {
        TaskQueue<Job> q = queue(ZK.client());
        List<TaskId> ids = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            ids.add(q.enqueue(new Job("j", i)));
        }
        List<Integer> seen = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            try (TaskClaim<Job> c = claim(q)) {
                seen.add(c.payload().n());
                c.complete();
            }
        }
        assertEquals(IntStream.range(0, 20).boxed().toList(), seen);
        assertTrue(q.claim(Duration.ofMillis(100)).isEmpty(), "queue is empty after 20 completions");
        assertEquals(0, q.stats().depth());
    }

    @Test
    void claimTokenIsTheCzxidOfTheClaimNode() throws Exception {
        CoordClient client = ZK.client();
        TaskQueue<Job> q = queue(client);
        q.enqueue(new Job("a", 1));
        try (TaskClaim<Job> c = claim(q)) {
            Stat stat = client.curator().checkExists().forPath(c.token().node().value());
            assertNotNull(stat, "claim node exists while the claim is held");
            assertEquals(stat.getCzxid(), c.token().value());
            assertEquals(c.session().id(), stat.getEphemeralOwner());
            assertEquals(LeaseState.ACQUIRED, c.state());
            c.complete();
            assertEquals(LeaseState.RELEASED, c.state());
            QueueServer.await("claim node deleted after complete", WAIT, () -> {
                try {
                    return client.curator().checkExists().forPath(c.token().node().value()) == null;
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
        }
    }

    @Test
    void higherLanesFirstAndFifoWithinALane() throws Exception {
        TaskQueue<Job> q = queue(ZK.client());
        q.enqueue(new Job("low", 0), TaskSpec.defaults().lane(0));
        q.enqueue(new Job("high", 0), TaskSpec.defaults().lane(2));
        q.enqueue(new Job("mid", 0), TaskSpec.defaults().lane(1));
        q.enqueue(new Job("high", 1), TaskSpec.defaults().lane(2));
        q.enqueue(new Job("low", 1), TaskSpec.defaults().lane(0));
        List<String> order = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            try (TaskClaim<Job> c = claim(q)) {
                order.add(c.payload().name() + c.payload().n());
                c.complete();
            }
        }
        assertEquals(List.of("high0", "high1", "mid0", "low0", "low1"), order);
    }

    @Test
    void delayedTaskIsNotHandedOutBeforeNotBefore() throws Exception {
        TaskQueue<Job> q = queue(ZK.client());
        Instant at = Instant.now().plusMillis(800);
        q.enqueue(new Job("later", 0), at);
        q.enqueue(new Job("now", 0));
        TaskClaim<Job> first = claim(q);
        assertEquals("now", first.payload().name(), "the ready task comes first though it was enqueued second");
        first.complete();
        assertTrue(q.claim(Duration.ofMillis(300)).isEmpty(), "the delayed task is not ready yet");
        TaskClaim<Job> later = claim(q);
        assertTrue(!Instant.now().isBefore(at), "handed out at or after notBefore");
        assertEquals("later", later.payload().name());
        later.complete();
    }

    @Test
    void releaseMakesTheTaskClaimableAgainWithoutCountingAnAttempt() throws Exception {
        TaskQueue<Job> q = queue(ZK.client());
        q.enqueue(new Job("r", 0));
        TaskClaim<Job> c = claim(q);
        c.release();
        assertEquals(LeaseState.RELEASED, c.state());
        TaskClaim<Job> again = claim(q);
        assertEquals(c.id(), again.id());
        assertEquals(0, again.attempts());
        assertEquals(2, again.deliveries());
        assertTrue(again.token().isNewerThan(c.token()), "a later claim has a higher token");
        again.complete();
    }

    @Test
    void secondConsumerCannotClaimATaskThatIsHeld() throws Exception {
        TaskQueue<Job> a = queue(ZK.client());
        TaskQueue<Job> b = queue(ZK.client());
        a.enqueue(new Job("only", 0));
        TaskClaim<Job> held = claim(a);
        assertTrue(b.claim(Duration.ofMillis(300)).isEmpty(), "a held task is not handed to another consumer");
        held.complete();
        assertTrue(b.claim(Duration.ofMillis(300)).isEmpty(), "a completed task is gone");
    }

    @Test
    void failedTaskComesBackAfterItsBackoffWithAttemptsAndLastError() throws Exception {
        TaskQueue<Job> q = queue(ZK.client());
        q.enqueue(new Job("flaky", 0));
        TaskClaim<Job> c = claim(q);
        long failedAt = System.nanoTime();
        assertEquals(Task.State.PENDING, c.fail("boom 1"));
        assertEquals(1, q.tasks().get(0).attempts());
        assertEquals("boom 1", q.tasks().get(0).lastError());
        TaskClaim<Job> retry = claim(q);
        long waitedMs = (System.nanoTime() - failedAt) / 1_000_000;
        assertTrue(waitedMs >= 190, "retried only after the 200 ms backoff, waited " + waitedMs + " ms");
        assertEquals(1, retry.attempts());
        assertEquals(Task.State.PENDING, retry.fail("boom 2"));
        Task<Job> t = q.tasks().get(0);
        assertEquals(2, t.attempts());
        assertTrue(t.notBefore().isAfter(Instant.now().plusMillis(200)), "second backoff (400 ms) is longer: " + t.notBefore());
        claim(q).complete();
    }

    @Test
    void taskIsDeadLetteredAfterMaxRetriesWithItsLastErrorAndCanBeRequeued() throws Exception {
        TaskQueue<Job> q = queue(ZK.client());
        TaskId id = q.enqueue(new Job("poison", 7), TaskSpec.defaults().maxRetries(1));
        assertEquals(Task.State.PENDING, claim(q).fail("first"));
        assertEquals(Task.State.DEAD, claim(q).fail("second and last"));
        assertTrue(q.tasks().isEmpty(), "no longer in the queue");
        List<Task<Job>> dead = q.deadLetters();
        assertEquals(1, dead.size());
        assertEquals(id, dead.get(0).id());
        assertEquals(Task.State.DEAD, dead.get(0).state());
        assertEquals("second and last", dead.get(0).lastError());
        assertEquals(2, dead.get(0).attempts());
        assertEquals(new Job("poison", 7), dead.get(0).payload());
        assertEquals(1, q.stats().dead());
        assertTrue(q.claim(Duration.ofMillis(200)).isEmpty(), "a dead letter is not handed out");

        TaskId requeued = q.requeue(id);
        assertTrue(requeued.sequence() > id.sequence(), "requeued at the back with a new id");
        assertTrue(q.deadLetters().isEmpty());
        TaskClaim<Job> c = claim(q);
        assertEquals(requeued, c.id());
        assertEquals(0, c.attempts(), "attempts start over");
        c.complete();
    }

    @Test
    void purgeDeletesEveryDeadLetterAndNothingElse() throws Exception {
        TaskQueue<Job> q = queue(ZK.client());
        for (int i = 0; i < 3; i++) {
            q.enqueue(new Job("d", i), TaskSpec.defaults().maxRetries(0));
        }
        for (int i = 0; i < 3; i++) {
            assertEquals(Task.State.DEAD, claim(q).fail("no"));
        }
        q.enqueue(new Job("live", 0));
        assertEquals(3, q.purgeDeadLetters());
        assertTrue(q.deadLetters().isEmpty());
        assertEquals(1, q.tasks().size(), "the live task is untouched");
        assertEquals(0, q.requeueAll());
    }

    @Test
    void statsShowPendingWaitingProcessingDeadAndOldestPendingAge() throws Exception {
        TaskQueue<Job> q = ZK.queue(ZK.client(), "jobs", Job.class, QueueOptions.builder().consumerName("worker-A").build());
        q.enqueue(new Job("x", 0), TaskSpec.defaults().maxRetries(0));
        q.enqueue(new Job("p", 1));
        q.enqueue(new Job("p", 2));
        q.enqueue(new Job("w", 0), Instant.now().plusSeconds(60));
        assertEquals(Task.State.DEAD, claim(q).fail("bad"));
        TaskClaim<Job> held = claim(q);
        assertEquals(new Job("p", 1), held.payload());
        QueueStats s = q.stats();
        assertEquals(1, s.pending());
        assertEquals(1, s.waiting());
        assertEquals(1, s.processing().size());
        assertEquals("worker-A", s.processing().get(0).owner());
        assertEquals(held.id(), s.processing().get(0).task());
        assertEquals(1, s.dead());
        assertTrue(!s.oldestPendingAge().isNegative() && s.oldestPendingAge().compareTo(Duration.ofMinutes(1)) < 0,
                "oldest pending age " + s.oldestPendingAge());
        assertEquals(3, s.depth());
        held.complete();
    }

    @Test
    void claimReturnsToPendingWhenTheConsumerSessionEnds() throws Exception {
        CoordClient victim = ZK.client();
        TaskQueue<Job> a = queue(victim);
        TaskQueue<Job> b = queue(ZK.client());
        a.enqueue(new Job("orphan", 0));
        TaskClaim<Job> held = claim(a);
        ZK.expireSession(victim);
        TaskClaim<Job> taken = claim(b);
        assertEquals(held.id(), taken.id());
        assertEquals(0, taken.attempts(), "a consumer's death is not a failed attempt");
        assertEquals(2, taken.deliveries());
        QueueServer.await("the old claim is LOST", WAIT, () -> held.state() == LeaseState.LOST);
        taken.complete();
    }

    @Test
    void anEndingThatFindsItsClaimGoneEndsTheClaimLostInStateEndedAndListenersAlike() throws Exception {
        CoordClient client = ZK.client();
        TaskQueue<Job> q = queue(client);
        q.enqueue(new Job("taken-away", 0));
        TaskClaim<Job> held = claim(q);
        java.util.List<String> finals = new java.util.concurrent.CopyOnWriteArrayList<>();
        held.addListener(new io.coord.LeaseListener() {
            @Override
            public void onLost(io.coord.Lease l, io.coord.CoordException cause) {
                finals.add("lost");
            }

            @Override
            public void onReleased(io.coord.Lease l) {
                finals.add("released");
            }
        }, Runnable::run);
        ZK.client().curator().delete().forPath(held.token().node().value()); // an operator removes the claim
        assertThrows(ClaimLostException.class, held::complete);
        assertEquals(LeaseState.LOST, held.state());
        assertEquals(LeaseState.LOST, held.ended().get(5, java.util.concurrent.TimeUnit.SECONDS), "ended() agrees with state()");
        QueueServer.await("the listener hears the end", WAIT, () -> !finals.isEmpty());
        assertEquals(java.util.List.of("lost"), finals, "one final call, and it is onLost");
    }

    @Test
    void staleConsumerCannotCompleteAndTheReclaimerCompletesExactlyOnce() throws Exception {
        CoordClient stale = ZK.client();
        CoordClient other = ZK.client();
        TaskQueue<Job> a = queue(stale);
        TaskQueue<Job> b = queue(other);
        a.enqueue(new Job("contested", 0));
        TaskClaim<Job> old = claim(a);
        ZK.expireSession(stale); // the stale consumer was "paused" past its session
        TaskClaim<Job> fresh = claim(b);
        assertTrue(fresh.token().isNewerThan(old.token()));
        ClaimLostException lost = assertThrows(ClaimLostException.class, old::complete);
        assertTrue(lost.getMessage().contains(old.token().node().name()), lost.getMessage());
        assertThrows(IllegalStateException.class, () -> old.fail("too late"), "an ended claim cannot be used again");
        assertEquals(1, b.tasks().size(), "the stale completion changed nothing");
        fresh.complete();
        assertTrue(b.tasks().isEmpty());
        assertTrue(b.deadLetters().isEmpty());
    }
}
