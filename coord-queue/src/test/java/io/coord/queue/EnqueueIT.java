package io.coord.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.ConnectionLostException;
import io.coord.CoordClient;
import io.coord.CoordException;
import io.coord.TooManyChildrenException;
import io.coord.ValueTooLargeException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;
import io.coord.test.ZooKeeperExtension;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Producers: idempotent enqueue, atomic batches, and bad input refused before anything is written. */
class EnqueueIT {
    @RegisterExtension
    @Order(1)
    static final ZooKeeperExtension ZOOKEEPER = ZooKeeperExtension.single();
    @RegisterExtension
    @Order(2)
    static final QueueServer ZK = QueueServer.on(ZOOKEEPER);

    /** A payload Jackson cannot serialize (a self-reference). */
    static final class Loop {
        public Loop getSelf() {
            return this;
        }
    }

    private CoordClient client;

    private TaskQueue<Job> queue(QueueOptions options) throws InterruptedException {
        client = ZK.client();
        return ZK.queue(client, "jobs", Job.class, options);
    }

    /** Every node under the queue's directories: what "nothing was written" is checked against. */
    private Map<String, Integer> snapshot() throws Exception {
        Map<String, Integer> out = new TreeMap<>();
        for (String dir : List.of("tasks", "claims", "dead", "keys", "completed")) {
            String path = "/queues/jobs/" + dir;
            for (String child : client.curator().getChildren().forPath(path)) {
                Stat s = client.curator().checkExists().forPath(path + "/" + child);
                out.put(path + "/" + child, s == null ? -1 : s.getVersion());
            }
            out.put(path + "#cversion", client.curator().checkExists().forPath(path).getCversion());
        }
        return out;
    }

    @Test
    void sameIdempotencyKeyWhilePendingProcessingOrJustCompletedAddsNothingAndReturnsTheSameId() throws Exception {
        TaskQueue<Job> q = queue(QueueOptions.defaults());
        TaskId first = q.enqueue(new Job("once", 1), "order-17");
        TaskId again = q.enqueue(new Job("once", 2), "order-17");
        assertEquals(first, again);
        assertEquals(1, q.tasks().size());
        assertEquals(new Job("once", 1), q.tasks().get(0).payload(), "the duplicate's payload was not written");
        try (TaskClaim<Job> c = q.claim(Duration.ofSeconds(5)).orElseThrow()) {
            assertEquals(first, q.enqueue(new Job("once", 3), "order-17"), "still the same while processing");
            c.complete();
        }
        assertEquals(first, q.enqueue(new Job("once", 4), "order-17"), "after completion: remembered for the window");
        assertTrue(q.tasks().isEmpty(), "and nothing added");
    }

    @Test
    void retryingAKeyedEnqueueAfterConnectionLossAddsNoDuplicate() throws Exception {
        // Cut the client off while enqueueing; each call either adds the task or fails indeterminate.
        TaskQueue<Job> q = queue(QueueOptions.defaults());
        int retries = 0;
        for (int i = 0; i < 20; i++) {
            String key = "k" + i;
            if (i == 3 || i == 11) {
                // the server connection drops mid-call; Curator retries the transaction under the hood
                client.curator().getZookeeperClient().getZooKeeper().getTestable().closeSocket();
            }
            while (true) {
                try {
                    q.enqueue(new Job("k", i), key);
                    break;
                } catch (ConnectionLostException indeterminate) {
                    retries++;
                    assertTrue(retries < 100, "connection never came back");
                }
            }
        }
        List<Task<Job>> tasks = q.tasks();
        assertEquals(20, tasks.size(), "one task per key, no duplicates: " + tasks);
        // A caller that retries a call whose first try did commit gets the same task back.
        TaskId id = q.enqueue(new Job("k", 0), "k0");
        assertEquals(20, q.tasks().size());
        assertEquals(tasks.get(0).id(), id);
    }

    @Test
    void aKeyWhoseTaskNameWasNotRecordedStillFindsItsTask() throws Exception {
        // The state a producer leaves when it dies between the enqueue transaction and recording
        // the task's name in the key: the key node is empty.
        TaskQueue<Job> q = queue(QueueOptions.defaults());
        TaskId id = q.enqueue(new Job("x", 0), "crash-key");
        q.enqueue(new Job("y", 0));
        client.curator().setData().forPath("/queues/jobs/keys/k-crash-key", new byte[0]);
        assertEquals(id, q.enqueue(new Job("x", 1), "crash-key"));
        assertEquals(2, q.tasks().size());
    }

    @Test
    void batchIsAddedAllOrNothing() throws Exception {
        TaskQueue<Job> q = queue(QueueOptions.builder().maxTaskBytes(1024).build());
        List<TaskId> ids = q.enqueueAll(List.of(new Job("b", 0), new Job("b", 1), new Job("b", 2)));
        assertEquals(3, ids.size());
        assertTrue(ids.get(0).sequence() < ids.get(1).sequence() && ids.get(1).sequence() < ids.get(2).sequence());
        Map<String, Integer> before = snapshot();
        List<Job> bad = new ArrayList<>(List.of(new Job("c", 0), new Job("c", 1)));
        bad.add(new Job("x".repeat(2000), 2)); // over the 1 KiB task limit
        bad.add(new Job("c", 3));
        TaskRejectedException e = assertThrows(TaskRejectedException.class, () -> q.enqueueAll(bad));
        assertTrue(e.getMessage().contains("1024"), e.getMessage());
        assertEquals(before, snapshot(), "a refused batch writes nothing");
        assertEquals(3, q.tasks().size());
    }

    @Test
    void batchOverTheTransactionLimitIsRefusedWhole() throws Exception {
        TaskQueue<Job> q = queue(QueueOptions.builder().maxTaskBytes(60_000).build());
        List<Job> batch = Collections.nCopies(20, new Job("y".repeat(55_000), 0)); // ~1.1 MB together
        Map<String, Integer> before = snapshot();
        TaskRejectedException e = assertThrows(TaskRejectedException.class, () -> q.enqueueAll(batch));
        assertTrue(e.getCause() instanceof ValueTooLargeException, "size-checked before sending: " + e);
        assertEquals(before, snapshot());
    }

    @Test
    void batchCutByAConnectionLossIsEitherWhollyThereOrAbsent() throws Exception {
        TaskQueue<Job> q = queue(QueueOptions.defaults());
        int added = 0;
        for (int round = 0; round < 4; round++) {
            List<Job> batch = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                batch.add(new Job("r" + round, i));
            }
            if (round % 2 == 1) {
                client.curator().getZookeeperClient().getZooKeeper().getTestable().closeSocket();
            }
            try {
                assertEquals(50, q.enqueueAll(batch).size());
                added += 50;
            } catch (ConnectionLostException indeterminate) {
                // all or none
            }
            int present = q.tasks().size();
            assertTrue(present % 50 == 0, "round " + round + ": " + present + " tasks is not a whole number of batches");
            added = present;
        }
        assertTrue(added > 0);
    }

    @Test
    void oversizePayloadIsRefusedBeforeAnythingIsWritten() throws Exception {
        TaskQueue<Job> q = queue(QueueOptions.defaults());
        q.enqueue(new Job("keep", 0));
        Map<String, Integer> before = snapshot();
        long start = System.nanoTime();
        TaskRejectedException e = assertThrows(TaskRejectedException.class,
                () -> q.enqueue(new Job("z".repeat(70 * 1024), 0)));
        assertTrue((System.nanoTime() - start) < 1_000_000_000L, "refused within 1 s, not after connection retries");
        assertTrue(e.getMessage().contains("65536") && e.getMessage().contains("nothing was written"), e.getMessage());
        assertTrue(!e.retryable());
        assertEquals(before, snapshot(), "nothing written");
        assertEquals(new Job("keep", 0), q.tasks().get(0).payload(), "the rest of the queue is unaffected");
    }

    @Test
    void unserializablePayloadAndNegativeMaxRetriesAreRefusedBeforeAnythingIsWritten() throws Exception {
        client = ZK.client();
        TaskQueue<Loop> loops = ZK.queue(client, "jobs", Loop.class, QueueOptions.defaults());
        Map<String, Integer> before = snapshot();
        TaskRejectedException e = assertThrows(TaskRejectedException.class, () -> loops.enqueue(new Loop()));
        assertTrue(e.getMessage().contains("cannot be serialized"), e.getMessage());
        TaskRejectedException neg = assertThrows(TaskRejectedException.class, () -> TaskSpec.defaults().maxRetries(-1));
        assertTrue(neg.getMessage().contains("-1"), neg.getMessage());
        TaskQueue<Job> q = ZK.queue(client, "jobs", Job.class, QueueOptions.defaults());
        assertThrows(TaskRejectedException.class, () -> q.enqueue(new Job("l", 0), TaskSpec.defaults().lane(1)),
                "a lane the queue does not have");
        assertThrows(TaskRejectedException.class, () -> q.enqueue(new Job("k", 0), "a/b"), "a key with '/'");
        assertThrows(TaskRejectedException.class, () -> q.enqueue(null), "a null payload");
        assertEquals(before, snapshot(), "nothing written");
    }

    @Test
    void enqueuePastTheDepthCapRaisesQueueFullAndAddsNothing() throws Exception {
        TaskQueue<Job> q = queue(QueueOptions.builder().depthCap(5).build());
        q.enqueueAll(List.of(new Job("c", 0), new Job("c", 1), new Job("c", 2)));
        q.enqueue(new Job("c", 3));
        q.enqueue(new Job("c", 4));
        Map<String, Integer> before = snapshot();
        QueueFullException full = assertThrows(QueueFullException.class, () -> q.enqueue(new Job("c", 5)));
        assertTrue(full instanceof TooManyChildrenException);
        assertTrue(full.getMessage().contains("depth cap of 5"), full.getMessage());
        assertThrows(QueueFullException.class, () -> q.enqueueAll(List.of(new Job("d", 0))));
        assertEquals(before, snapshot());
        q.claim(Duration.ofSeconds(5)).orElseThrow().complete();
        assertThrows(QueueFullException.class, () -> q.enqueueAll(List.of(new Job("d", 0), new Job("d", 1))),
                "room for one is not room for two");
        q.enqueue(new Job("c", 5));
        assertEquals(5, q.tasks().size());
    }

    @Test
    void refusalsAreCoordExceptionsThatNameTheQueue() throws Exception {
        TaskQueue<Job> q = queue(QueueOptions.builder().maxTaskBytes(100).build());
        CoordException e = assertThrows(CoordException.class, () -> q.enqueue(new Job("w".repeat(200), 0)));
        assertTrue(e.getMessage().contains("'jobs'"), e.getMessage());
    }
}
