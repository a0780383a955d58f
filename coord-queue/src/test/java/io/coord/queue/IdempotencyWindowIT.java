package io.coord.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.ConflictException;
import io.coord.CoordClient;
import io.coord.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 17 part 3: a completed task's idempotency key is remembered for the window, bounded in
 * count, so a retried enqueue is answered "already completed" with the original id instead of
 * adding the task again. (The lost-reply case is in {@link ReplyLossIT}.)
 */
class IdempotencyWindowIT {
    @RegisterExtension
    @Order(1)
    static final ZooKeeperExtension ZOOKEEPER = ZooKeeperExtension.single();
    @RegisterExtension
    @Order(2)
    static final QueueServer ZK = QueueServer.on(ZOOKEEPER);

    private static final Duration CLAIM_WAIT = io.coord.test.Awaits.scaled(Duration.ofSeconds(5));

    private CoordClient client;

    private TaskQueue<Job> queue(QueueOptions options) {
        client = ZK.client();
        return ZK.queue(client, "jobs", Job.class, options);
    }

    private static TaskSpec key(String key) {
        return TaskSpec.defaults().idempotencyKey(key);
    }

    private static EnqueueResult added(TaskQueue<Job> q, String key) {
        EnqueueResult r = q.submit(new Job(key, 0), key(key));
        assertEquals(EnqueueResult.Outcome.ADDED, r.outcome(), key + ": " + r);
        return r;
    }

    private static TaskClaim<Job> claim(TaskQueue<Job> q) throws InterruptedException {
        return q.claim(CLAIM_WAIT).orElseThrow();
    }

    private List<String> completedEntries() throws Exception {
        return client.curator().getChildren().forPath("/queues/jobs/completed");
    }

    @Test
    void aKeyedRetryWhilePendingOrProcessingReturnsTheOriginalIdAsAlreadyQueued() throws Exception {
        TaskQueue<Job> q = queue(QueueOptions.defaults());
        TaskId id = added(q, "order-1").id();
        assertEquals(new EnqueueResult(id, EnqueueResult.Outcome.ALREADY_QUEUED), q.submit(new Job("again", 1), key("order-1")));
        try (TaskClaim<Job> c = claim(q)) {
            assertEquals(new EnqueueResult(id, EnqueueResult.Outcome.ALREADY_QUEUED), q.submit(new Job("again", 2), key("order-1")),
                    "processing: still the same task");
            c.complete();
        }
        assertEquals(1, completedEntries().size(), "the completion is remembered");
    }

    @Test
    void aKeyedRetryAfterCompletionReturnsTheOriginalIdAsAlreadyCompletedAndAddsNothing() throws Exception {
        TaskQueue<Job> q = queue(QueueOptions.defaults());
        TaskId id = added(q, "invoice-17").id();
        claim(q).complete();
        assertTrue(q.tasks().isEmpty());

        EnqueueResult again = q.submit(new Job("invoice-17", 1), key("invoice-17"));
        assertEquals(new EnqueueResult(id, EnqueueResult.Outcome.ALREADY_COMPLETED), again);
        assertEquals(id, q.enqueue(new Job("invoice-17", 2), "invoice-17"), "the id-only API answers the same");
        assertTrue(q.tasks().isEmpty(), "no duplicate: " + q.tasks());
        assertTrue(q.deadLetters().isEmpty());
        // An unkeyed task's automatic key is not remembered: nobody can retry with it.
        q.enqueue(new Job("unkeyed", 0));
        claim(q).complete();
        assertEquals(1, completedEntries().size());
        assertEquals(List.of("k-invoice-17"), client.curator().getChildren().forPath("/queues/jobs/keys"));
    }

    @Test
    void aRetryAfterTheWindowIsANewTask() throws Exception {
        Duration window = Duration.ofMillis(300);
        TaskQueue<Job> q = queue(QueueOptions.builder().idempotencyWindow(window).build());
        TaskId first = added(q, "nightly").id();
        claim(q).complete();
        // Past the window by any clock on this machine, the server's included (it runs here).
        Thread.sleep(window.toMillis() * 3);

        EnqueueResult later = q.submit(new Job("nightly", 1), key("nightly"));
        assertEquals(EnqueueResult.Outcome.ADDED, later.outcome(), later.toString());
        assertTrue(later.id().sequence() > first.sequence(), "a new task: " + later);
        assertEquals(List.of(later.id()), q.tasks().stream().map(Task::id).toList());
        assertEquals(new EnqueueResult(later.id(), EnqueueResult.Outcome.ALREADY_QUEUED), q.submit(new Job("nightly", 2), key("nightly")));
    }

    @Test
    void aSweepForgetsCompletionsOlderThanTheWindowByTheServersClock() throws Exception {
        Duration window = Duration.ofMillis(300);
        TaskQueue<Job> q = queue(QueueOptions.builder().idempotencyWindow(window).build());
        added(q, "old-1");
        added(q, "old-2");
        claim(q).complete();
        claim(q).complete();
        assertEquals(2, completedEntries().size());
        Thread.sleep(window.toMillis() * 3);

        // A keyed enqueue of another key sweeps (this instance last swept more than half a window ago).
        added(q, "fresh");
        assertTrue(completedEntries().isEmpty(), "entries: " + completedEntries());
        assertEquals(List.of("k-fresh"), client.curator().getChildren().forPath("/queues/jobs/keys"), "records forgotten");
        assertEquals(EnqueueResult.Outcome.ADDED, q.submit(new Job("old-1", 1), key("old-1")).outcome());
    }

    @Test
    void theCountBoundForgetsTheOldestCompletionsFirst() throws Exception {
        TaskQueue<Job> q = queue(QueueOptions.builder().idempotencyKeys(2).build());
        TaskId a = added(q, "a").id();
        TaskId b = added(q, "b").id();
        TaskId c = added(q, "c").id();
        List<TaskClaim<Job>> claims = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            claims.add(claim(q));
        }
        // Completed in the order b, a, c (not the enqueue order): b is the oldest completion.
        claims.get(1).complete();
        claims.get(0).complete();
        claims.get(2).complete();
        assertEquals(3, completedEntries().size(), "completions add entries; producers sweep");

        TaskId d = added(q, "d").id(); // over the bound: the sweep forgets one, the oldest
        assertEquals(2, completedEntries().size());
        assertEquals(new EnqueueResult(a, EnqueueResult.Outcome.ALREADY_COMPLETED), q.submit(new Job("a", 1), key("a")));
        assertEquals(new EnqueueResult(c, EnqueueResult.Outcome.ALREADY_COMPLETED), q.submit(new Job("c", 1), key("c")));
        EnqueueResult bAgain = q.submit(new Job("b", 1), key("b"));
        assertEquals(EnqueueResult.Outcome.ADDED, bAgain.outcome(), "b was forgotten first: " + bAgain);
        assertNotEquals(b, bAgain.id());
        assertEquals(List.of(d, bAgain.id()), q.tasks().stream().map(Task::id).toList());
    }

    /**
     * Dead-lettering releases the key: the dead letter waits for an operator, and a retry with its
     * key adds a new task. Requeueing the dead letter is then refused while that key is taken,
     * by the new task or by its remembered completion.
     */
    @Test
    void aDeadLetteredTasksKeyIsReleasedSoARetryAddsANewTask() throws Exception {
        TaskQueue<Job> q = queue(QueueOptions.builder().maxRetries(0).build());
        TaskId first = added(q, "poison").id();
        assertEquals(Task.State.DEAD, claim(q).fail("boom"));
        assertEquals(List.of(first), q.deadLetters().stream().map(Task::id).toList());

        EnqueueResult retry = q.submit(new Job("poison", 1), key("poison"));
        assertEquals(EnqueueResult.Outcome.ADDED, retry.outcome(), retry.toString());
        assertNotEquals(first, retry.id());
        claim(q).complete();
        assertEquals(new EnqueueResult(retry.id(), EnqueueResult.Outcome.ALREADY_COMPLETED), q.submit(new Job("poison", 2), key("poison")));
        ConflictException refused = assertThrows(ConflictException.class, () -> q.requeue(first));
        assertTrue(refused.getMessage().contains("poison"), refused.getMessage());
        assertEquals(List.of(first), q.deadLetters().stream().map(Task::id).toList(), "nothing changed");
    }
}
