package io.coord.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.ValueTooLargeException;
import io.coord.test.BadInputs;
import io.coord.test.ZooKeeperExtension;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Bad-input row 30 of RELIABILITY.md (c) (and the queue's side of row 13) with its four checks
 * ({@link BadInputs}): every bad task is refused at enqueue with {@link TaskRejectedException}
 * naming the bad value (a full queue with {@link QueueFullException}, which alone is retryable:
 * the same enqueue succeeds once consumers drain), within 1 s (scaled), and
 * nothing under the queue changes, not even a sequence number (the parents' pzxid is compared).
 */
class TaskBadInputIT {
    @RegisterExtension
    @Order(1)
    static final ZooKeeperExtension ZOOKEEPER = ZooKeeperExtension.single();
    @RegisterExtension
    @Order(2)
    static final QueueServer ZK = QueueServer.on(ZOOKEEPER);

    @Test
    void eachBadTaskIsRefusedAtEnqueueNamingTheValueAndNothingIsWritten() throws Exception {
        CoordClient client = ZK.client();
        TaskQueue<Job> q = ZK.queue(client, "jobs", Job.class, QueueOptions.defaults());
        q.enqueue(new Job("keep", 0));

        BadInputs.assertRefused("30 (payload over the task limit)", client, TaskRejectedException.class,
                () -> q.enqueue(new Job("z".repeat(70 * 1024), 0)), "queue 'jobs'", "its payload is 716",
                "over the task limit of 65536 bytes", "nothing was written");
        TaskQueue<EnqueueIT.Loop> loops = ZK.queue(client, "jobs", EnqueueIT.Loop.class, QueueOptions.defaults());
        BadInputs.assertRefused("30 (unserializable payload)", client, TaskRejectedException.class,
                () -> loops.enqueue(new EnqueueIT.Loop()), "queue 'jobs'", "cannot be serialized", "EnqueueIT$Loop",
                "nothing was written");
        BadInputs.assertRefused("30 (null payload)", client, TaskRejectedException.class, () -> q.enqueue(null),
                "queue 'jobs'", "is null");
        BadInputs.assertRefused("30 (negative maxRetries)", client, TaskRejectedException.class,
                () -> q.enqueue(new Job("r", 0), TaskSpec.defaults().maxRetries(-1)), "maxRetries must be >= 0, got -1");
        BadInputs.assertRefused("30 (negative lane)", client, TaskRejectedException.class,
                () -> q.enqueue(new Job("l", 0), TaskSpec.defaults().lane(-1)), "lane must be >= 0, got -1");
        BadInputs.assertRefused("30 (lane the queue does not have)", client, TaskRejectedException.class,
                () -> q.enqueue(new Job("l", 0), TaskSpec.defaults().lane(1)), "lane 1 does not exist", "queue 'jobs' has 1 lane(s)");
        BadInputs.assertRefused("30 (idempotency key with '/')", client, TaskRejectedException.class,
                () -> q.enqueue(new Job("k", 0), "a/b"), "idempotency key", "\"a/b\"", "contains '/'");
        String longKey = "k".repeat(TaskSpec.MAX_KEY_LENGTH + 1);
        BadInputs.assertRefused("30 (idempotency key too long)", client, TaskRejectedException.class,
                () -> q.enqueue(new Job("k", 0), longKey), "idempotency key of " + longKey.length() + " characters",
                "limit of " + TaskSpec.MAX_KEY_LENGTH);
        BadInputs.assertRefused("30 (a key for a batch)", client, TaskRejectedException.class,
                () -> q.enqueueAll(List.of(new Job("b", 0)), TaskSpec.defaults().idempotencyKey("batch-7")),
                "enqueueAll takes no idempotency key", "\"batch-7\"");
        assertEquals(List.of(new Job("keep", 0)), q.tasks().stream().map(Task::payload).toList(), "the queue is as it was");
    }

    @Test
    void aBatchWithOneBadTaskOrOverTheTransactionLimitIsRefusedWhole() throws Exception {
        CoordClient client = ZK.client();
        TaskQueue<Job> small = ZK.queue(client, "jobs", Job.class, QueueOptions.builder().maxTaskBytes(1024).build());
        List<Job> oneBad = new ArrayList<>(List.of(new Job("c", 0), new Job("c", 1), new Job("x".repeat(2000), 2)));
        BadInputs.assertRefused("30 (a batch with one oversize task)", client, TaskRejectedException.class,
                () -> small.enqueueAll(oneBad), "over the task limit of 1024 bytes", "nothing was written");

        TaskQueue<Job> big = ZK.queue(client, "jobs", Job.class, QueueOptions.builder().maxTaskBytes(60_000).build());
        List<Job> batch = Collections.nCopies(20, new Job("y".repeat(55_000), 0)); // ~1.1 MB together
        // The same encoding once, accepted, so the refusal's time is the check, not a cold JIT.
        big.enqueueAll(batch.subList(0, 2));
        TaskRejectedException e = BadInputs.assertRefused("30 (a batch over the transaction limit)", client,
                TaskRejectedException.class, () -> big.enqueueAll(batch), "batch of 20 tasks for queue 'jobs'",
                "as one transaction, over the limit of", "nothing was written");
        assertTrue(e.getCause() instanceof ValueTooLargeException, "size-checked before sending: " + e);
    }

    @Test
    void row13AFullQueueRefusesOneMoreTaskNamingItsCap() throws Exception {
        CoordClient client = ZK.client();
        TaskQueue<Job> q = ZK.queue(client, "jobs", Job.class, QueueOptions.builder().depthCap(3).build());
        q.enqueueAll(List.of(new Job("c", 0), new Job("c", 1), new Job("c", 2)));
        BadInputs.assertRefusedForNow("13 (queue at its depth cap)", client, QueueFullException.class,
                () -> q.enqueue(new Job("c", 3)), "queue 'jobs'", "depth cap of 3", "nothing was added");
        BadInputs.assertRefusedForNow("13 (batch larger than the depth cap)", client, QueueFullException.class,
                () -> q.enqueueAll(List.of(new Job("d", 0), new Job("d", 1), new Job("d", 2), new Job("d", 3))),
                "a batch of 4 tasks", "depth cap of 3", "nothing was added");
    }
}
