package io.coord.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.ConfigurationException;
import io.coord.CoordClient;
import io.coord.test.Awaits;
import io.coord.test.ZooKeeperExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Partitions (issue 17): layout, the recorded count, key-hash placement, order across partitions, aggregated views. */
class PartitionedQueueIT {
    @RegisterExtension
    @Order(1)
    static final ZooKeeperExtension ZOOKEEPER = ZooKeeperExtension.single();
    @RegisterExtension
    @Order(2)
    static final QueueServer ZK = QueueServer.on(ZOOKEEPER);

    private static QueueOptions partitions(int n) {
        return QueueOptions.builder().partitions(n).build();
    }

    private static Duration scaled(int seconds) {
        return Awaits.scaled(Duration.ofSeconds(seconds));
    }

    @Test
    void theCountIsRecordedWhenTheQueueIsMadeAndADisagreeingOpenIsRefusedNamingBoth() throws Exception {
        CoordClient client = ZK.client();
        ZK.queue(client, "jobs", Job.class, partitions(4));
        assertEquals("partitions=4", new String(client.curator().getData().forPath("/queues/jobs"), StandardCharsets.UTF_8));
        assertEquals(List.of("p0", "p1", "p2", "p3"), client.curator().getChildren().forPath("/queues/jobs").stream().sorted().toList());
        assertEquals(List.of("claims", "completed", "dead", "keys", "tasks"),
                client.curator().getChildren().forPath("/queues/jobs/p2").stream().sorted().toList());

        ConfigurationException two = assertThrows(ConfigurationException.class, () -> ZK.queue(client, "jobs", Job.class, partitions(2)));
        assertTrue(two.getMessage().contains("has 4 partition(s)") && two.getMessage().contains("partitions = 2"), two.getMessage());
        ConfigurationException one = assertThrows(ConfigurationException.class,
                () -> ZK.queue(client, "jobs", Job.class, QueueOptions.defaults()));
        assertTrue(one.getMessage().contains("has 4 partition(s)") && one.getMessage().contains("partitions = 1"), one.getMessage());
        assertEquals(4, ZK.queue(client, "jobs", Job.class, partitions(QueueOptions.AS_RECORDED)).options().partitions(),
                "AS_RECORDED takes the server's count");

        ZK.queue(client, "flat", Job.class, QueueOptions.defaults()).enqueue(new Job("a", 1));
        ConfigurationException flat = assertThrows(ConfigurationException.class, () -> ZK.queue(client, "flat", Job.class, partitions(3)));
        assertTrue(flat.getMessage().contains("has 1 partition(s)") && flat.getMessage().contains("unpartitioned")
                && flat.getMessage().contains("partitions = 3"), flat.getMessage());
        assertEquals(1, ZK.queue(client, "flat", Job.class, partitions(QueueOptions.AS_RECORDED)).options().partitions());
        assertTrue(client.curator().getChildren().forPath("/queues/flat").contains("tasks"), "the unpartitioned layout is unchanged");
    }

    @Test
    void aKeyGoesToTheSamePartitionEveryTimeAndItsIdempotencyWindowHoldsThere() throws Exception {
        CoordClient client = ZK.client();
        TaskQueue<Job> queue = ZK.queue(client, "jobs", Job.class, partitions(8));
        Set<Integer> used = new HashSet<>();
        for (int k = 0; k < 40; k++) {
            String key = "order-" + k;
            EnqueueResult first = queue.submit(new Job(key, k), TaskSpec.defaults().idempotencyKey(key));
            int expected = PartitionedTaskQueue.partitionOfKey(key, 8);
            assertEquals(expected, first.id().partition(), key + " -> " + first.id());
            assertTrue(first.id().name().startsWith("task-p" + expected + "-"), first.id().name());
            assertTrue(client.curator().checkExists().forPath("/queues/jobs/p" + expected + "/keys/k-" + key) != null,
                    "the key lives in its task's partition");
            assertEquals(new EnqueueResult(first.id(), EnqueueResult.Outcome.ALREADY_QUEUED),
                    queue.submit(new Job(key, k), TaskSpec.defaults().idempotencyKey(key)), "a retried enqueue finds it");
            used.add(expected);
        }
        assertTrue(used.size() >= 6, "keys spread over the partitions: " + used);
        // Completed, the key is remembered in its partition: a retry says so with the original id.
        String key = "order-7";
        TaskId id = queue.enqueue(new Job(key, 7), key);
        int drained = 0;
        while (true) {
            TaskClaim<Job> claim = queue.claim(scaled(10)).orElseThrow();
            claim.complete();
            drained++;
            if (claim.id().equals(id)) {
                break;
            }
        }
        assertTrue(drained <= 40);
        assertEquals(new EnqueueResult(id, EnqueueResult.Outcome.ALREADY_COMPLETED),
                queue.submit(new Job(key, 7), TaskSpec.defaults().idempotencyKey(key)));
    }

    @Test
    void oneConsumerTakesTasksInEnqueueOrderAcrossPartitions() throws Exception {
        CoordClient producer = ZK.client();
        CoordClient consumer = ZK.client();
        TaskQueue<Job> in = ZK.queue(producer, "jobs", Job.class, partitions(4));
        List<TaskId> enqueued = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            // unkeyed (round-robin), keyed (by hash) and batches (one partition each), interleaved
            if (i % 3 == 0) {
                enqueued.add(in.enqueue(new Job("k", i), "key-" + i));
            } else {
                enqueued.add(in.enqueue(new Job("u", i)));
            }
        }
        enqueued.addAll(in.enqueueAll(List.of(new Job("b", 30), new Job("b", 31))));
        assertTrue(enqueued.stream().map(TaskId::partition).distinct().count() == 4, "all partitions used: " + enqueued);
        TaskQueue<Job> out = ZK.queue(consumer, "jobs", Job.class, partitions(4));
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < enqueued.size(); i++) {
            TaskClaim<Job> claim = out.claim(scaled(10)).orElseThrow();
            order.add(claim.payload().n());
            claim.complete();
        }
        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i < enqueued.size(); i++) {
            expected.add(i);
        }
        assertEquals(expected, order, "one consumer sees global FIFO: by czxid across partitions");
        assertTrue(out.claim(Duration.ZERO).isEmpty());
    }

    @Test
    void operatorViewsAggregateThePartitionsAndARequeueFindsItsPartitionFromTheId() throws Exception {
        CoordClient client = ZK.client();
        TaskQueue<Job> queue = ZK.queue(client, "jobs", Job.class,
                QueueOptions.builder().partitions(3).maxRetries(0).depthCap(5).build());
        for (int i = 0; i < 6; i++) {
            queue.enqueue(new Job("t", i));
        }
        client.curator().create().forPath("/queues/jobs/p1/tasks/task-p1-0000000099", "garbage".getBytes(StandardCharsets.UTF_8));
        QueueStats stats = queue.stats();
        assertEquals(6, stats.pending());
        assertEquals(1, stats.undecodable().size(), "a bad node in one partition is reported, the views still work");
        assertEquals(15, stats.depthCap(), "the caps of the partitions together");
        assertEquals(6, queue.tasks().size());
        assertEquals(1, queue.tasks().undecodable().size());

        TaskClaim<Job> claim = queue.claim(scaled(10)).orElseThrow();
        assertEquals(Task.State.DEAD, claim.fail("boom"));
        QueueServer.await("the garbage task dead-lettered by a claim", scaled(10), () -> {
            try {
                queue.claim(Duration.ZERO).ifPresent(TaskClaim::release);
                return queue.deadLetters().undecodable().size() == 1;
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        assertEquals(List.of(claim.id()), queue.deadLetters().stream().map(Task::id).toList());
        TaskId again = queue.requeue(claim.id());
        assertEquals(claim.id().partition(), again.partition(), "requeued in its own partition");
        assertNotEquals(claim.id(), again);
        assertEquals(1, queue.purgeDeadLetters(), "the garbage dead letter");
        assertThrows(io.coord.NoParentException.class, () -> queue.requeue(new TaskId("task-p7-0000000001")));
    }
}
