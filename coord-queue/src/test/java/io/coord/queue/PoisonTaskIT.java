package io.coord.queue;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.coord.Codec;
import io.coord.CodecException;
import io.coord.CoordClient;
import io.coord.test.Awaits;
import io.coord.test.ZooKeeperExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Poison tasks (issue 17 part 2): a task node whose bytes are not a task record, and one whose
 * payload is not the queue's type, are moved to the dead letters, bytes intact, by the consumers
 * that read them (exactly once, with consumers of two processes racing), while the other tasks
 * complete; and the operator views ({@code stats()}, {@code tasks()}, {@code deadLetters()}) never
 * fail because of them but list them with their bytes and error. Before this change the first bad
 * task sat in {@code tasks/} forever and every view threw {@link CodecException} for the whole queue.
 */
class PoisonTaskIT {
    @RegisterExtension
    @Order(1)
    static final ZooKeeperExtension ZOOKEEPER = ZooKeeperExtension.single();
    @RegisterExtension
    @Order(2)
    static final QueueServer ZK = QueueServer.on(ZOOKEEPER);

    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final String ROOT = "/queues/jobs";
    /** Not JSON at all: a bad hand edit, a producer writing the wrong thing. */
    private static final byte[] GARBAGE = concat(new byte[] {(byte) 0xff, 0, 1}, "{not a task".repeat(40));

    /** A payload type other than Job: what another application put on the same queue. */
    record Other(List<String> tags) {
    }

    @Test
    void garbageAndWrongTypeTasksAmongFiftyAreDeadLetteredOnceAndEveryViewKeepsWorking() throws Exception {
        CoordClient observerClient = ZK.client();
        TaskQueue<Job> observer = ZK.queue(observerClient, "jobs", Job.class, QueueOptions.defaults());
        List<TaskId> ids = observer.enqueueAll(IntStream.range(0, 50).mapToObj(i -> new Job("p", i)).toList());
        TaskId garbage = ids.get(10);
        TaskId wrongType = ids.get(30);
        setData(observerClient, ROOT + "/tasks/" + garbage, GARBAGE);
        ObjectNode record = (ObjectNode) Codec.mapper().readTree(getData(observerClient, ROOT + "/tasks/" + wrongType));
        record.set("payload", TextNode.valueOf("not a job"));
        byte[] wrongTypeBytes = Codec.mapper().writeValueAsBytes(record);
        setData(observerClient, ROOT + "/tasks/" + wrongType, wrongTypeBytes);

        // Before any consumer: the views list the 48 and report the two, with their bytes and why.
        TaskList<Job> tasks = observer.tasks();
        assertEquals(48, tasks.size());
        assertEquals(List.of(garbage, wrongType), tasks.undecodable().stream().map(UndecodableTask::id).toList());
        UndecodableTask bad = tasks.undecodable().get(0);
        assertEquals(ROOT + "/tasks/" + garbage, bad.path());
        assertArrayEquals(GARBAGE, bad.data());
        assertTrue(bad.error().contains(garbage.name()), "the error names the node: " + bad.error());
        assertTrue(tasks.undecodable().get(1).error().contains("Job"), "the error says what it is not: "
                + tasks.undecodable().get(1).error());
        assertTrue(bad.toString().length() < 600, "bytes capped in toString: " + bad);
        QueueStats before = observer.stats();
        assertEquals(48, before.pending());
        assertEquals(2, before.undecodable().size());
        assertEquals(50, before.depth(), "the depth cap counts them");

        // Consumers of two processes race for every task, the two bad ones included.
        Map<Integer, Integer> completed = new ConcurrentHashMap<>();
        for (int c = 0; c < 2; c++) {
            TaskQueue<Job> consumer = ZK.queue(ZK.client(), "jobs", Job.class, QueueOptions.defaults());
            ZK.track(consumer.work(2, claim -> completed.merge(claim.payload().n(), 1, Integer::sum)));
        }
        long deadline = System.nanoTime() + Awaits.scaled(WAIT).toNanos();
        while (true) {
            // Every view works throughout: an exception here fails the test.
            QueueStats stats = observer.stats();
            TaskList<Job> live = observer.tasks();
            TaskList<Job> dead = observer.deadLetters();
            if (completed.size() == 48 && stats.depth() == 0 && dead.undecodable().size() == 2) {
                break;
            }
            assertTrue(System.nanoTime() < deadline, "within " + Awaits.scaled(WAIT) + ": 48 completed and 2 dead letters; have "
                    + completed.size() + " completed, " + live + ", dead " + dead);
            Thread.sleep(20);
        }

        Set<Integer> good = IntStream.range(0, 50).filter(i -> i != 10 && i != 30).boxed().collect(Collectors.toSet());
        assertEquals(good, completed.keySet(), "the other 48 completed");
        assertTrue(completed.values().stream().allMatch(n -> n == 1), "each exactly once: " + completed);
        TaskList<Job> dead = observer.deadLetters();
        assertTrue(dead.isEmpty(), "neither dead letter decodes as a Job: " + dead);
        assertEquals(List.of(garbage, wrongType), dead.undecodable().stream().map(UndecodableTask::id).toList());
        assertArrayEquals(GARBAGE, dead.undecodable().get(0).data(), "the bad bytes went to the dead letter intact");
        TaskRecord moved = Codec.json(TaskRecord.class).decode(io.coord.CoordPath.of(ROOT), dead.undecodable().get(1).data());
        assertEquals(TextNode.valueOf("not a job"), moved.payload(), "payload unchanged");
        assertTrue(moved.lastError().startsWith("payload cannot be decoded: ") && moved.lastError().contains("Job"),
                "its last error is the decode error: " + moved.lastError());
        assertEquals(0, moved.attempts(), "not an attempt: it was never processed");
        assertTrue(observer.tasks().isEmpty() && observer.tasks().undecodable().isEmpty());
        assertEquals(2, observer.stats().dead());
        Awaits.until("no claim left behind", WAIT, () -> children(observerClient, ROOT + "/claims").isEmpty());
        assertEquals(List.of(), children(observerClient, ROOT + "/keys"), "both keys went with their tasks");

        // An operator repairs the bytes and requeues: nothing was lost.
        assertThrows(CodecException.class, () -> observer.requeue(garbage), "bytes that are not a task cannot be requeued");
        TaskRecord repaired = TaskRecord.fresh(Codec.mapper().valueToTree(new Job("p", 10)), 0, 0, null, 3, "a-repaired");
        setData(observerClient, ROOT + "/dead/" + garbage, Codec.json(TaskRecord.class).encode(io.coord.CoordPath.of(ROOT), repaired));
        observer.requeue(garbage);
        Awaits.until("the repaired task completed", WAIT, () -> completed.containsKey(10));
    }

    @Test
    void aDeadLetterOfAnotherPayloadTypeNoLongerBreaksDeadLetters() throws Exception {
        CoordClient client = ZK.client();
        TaskQueue<Other> others = ZK.queue(client, "jobs", Other.class, QueueOptions.defaults());
        TaskId other = others.enqueue(new Other(List.of("x")), TaskSpec.defaults().maxRetries(0));
        assertEquals(Task.State.DEAD, others.claim(Awaits.scaled(WAIT)).orElseThrow().fail("given up"));
        TaskQueue<Job> jobs = ZK.queue(client, "jobs", Job.class, QueueOptions.defaults());
        TaskId job = jobs.enqueue(new Job("j", 1), TaskSpec.defaults().maxRetries(0));
        assertEquals(Task.State.DEAD, jobs.claim(Awaits.scaled(WAIT)).orElseThrow().fail("given up too"));

        TaskList<Job> dead = jobs.deadLetters();
        assertEquals(List.of(job), dead.stream().map(Task::id).toList(), "the Job dead letter decodes");
        assertEquals(new Job("j", 1), dead.get(0).payload());
        assertEquals(1, dead.undecodable().size());
        UndecodableTask notAJob = dead.undecodable().get(0);
        assertEquals(other, notAJob.id());
        assertTrue(notAJob.error().contains(other.name()) && notAJob.error().contains("Job"), notAJob.error());
        assertEquals("given up", Codec.json(TaskRecord.class).decode(io.coord.CoordPath.of(ROOT), notAJob.data()).lastError());
        assertEquals(2, jobs.stats().dead());
        // Seen from its own type, it is an ordinary dead letter.
        assertEquals(List.of(other), others.deadLetters().stream().map(Task::id).toList());
        assertNull(others.deadLetters().get(0).claimedBy());
    }

    @Test
    void aTaskCorruptedWhileAWorkerChainsCompletionsIsMovedBeforeTheQueueDrains() throws Exception {
        CoordClient client = ZK.client();
        TaskQueue<Job> q = ZK.queue(client, "jobs", Job.class, QueueOptions.defaults());
        List<TaskId> ids = q.enqueueAll(IntStream.range(0, 100).mapToObj(i -> new Job("c", i)).toList());
        String bad = ROOT + "/tasks/" + ids.get(80);
        Map<Integer, Boolean> movedWhenRunning = new ConcurrentHashMap<>();
        // One consumer thread: each completion takes the next task in its own transaction (no claim() in between).
        ZK.track(q.work(1, claim -> {
            int n = claim.payload().n();
            if (n == 10) {
                setData(client, bad, GARBAGE);
            }
            if (n >= 60) {
                Thread.sleep(Awaits.scaled(Duration.ofMillis(10)).toMillis()); // room for the watch to read the change
            }
            movedWhenRunning.put(n, client.curator().checkExists().forPath(ROOT + "/dead/" + ids.get(80)) != null);
        }));
        Awaits.until("the other 99 completed", WAIT, () -> movedWhenRunning.size() == 99);
        assertTrue(movedWhenRunning.get(99), "moved before the last task ran, not after the queue drained; seen moved at tasks "
                + movedWhenRunning.entrySet().stream().filter(Map.Entry::getValue).map(Map.Entry::getKey).sorted().toList());
        assertArrayEquals(GARBAGE, getData(client, ROOT + "/dead/" + ids.get(80)));
    }

    @Test
    void aPoisonTaskWhoseDeadLetterNameIsTakenWaitsWithoutChurningAndMovesOnceItIsFree() throws Exception {
        CoordClient client = ZK.client();
        TaskQueue<Job> q = ZK.queue(client, "jobs", Job.class, QueueOptions.defaults());
        TaskId bad = q.enqueue(new Job("bad", 0));
        String task = ROOT + "/tasks/" + bad;
        setData(client, task, GARBAGE);
        client.curator().create().forPath(ROOT + "/dead/" + bad, "made by hand".getBytes(StandardCharsets.UTF_8));
        int edited = client.curator().checkExists().forPath(task).getVersion();
        Map<Integer, Integer> completed = new ConcurrentHashMap<>();
        ZK.track(q.work(2, claim -> completed.merge(claim.payload().n(), 1, Integer::sum)));
        q.enqueue(new Job("good", 1));

        Awaits.until("the good task completed", WAIT, () -> completed.containsKey(1));
        Awaits.until("one try to move the bad task, refused at its dead letter, its claim gone", WAIT, () ->
                version(client, task) > edited && children(client, ROOT + "/claims").isEmpty());
        int tried = version(client, task);
        Awaits.never("the bad task claimed again while its dead letter's name is taken", Duration.ofSeconds(1),
                () -> version(client, task) != tried);
        assertEquals(1, q.tasks().undecodable().size(), "still listed: " + q.tasks());

        client.curator().delete().forPath(ROOT + "/dead/" + bad);
        Awaits.until("moved once the name is free", WAIT, () -> !children(client, ROOT + "/tasks").contains(bad.name()));
        assertArrayEquals(GARBAGE, getData(client, ROOT + "/dead/" + bad));
        assertEquals(Map.of(1, 1), completed);
    }

    private static int version(CoordClient client, String path) {
        try {
            return client.curator().checkExists().forPath(path).getVersion();
        } catch (Exception e) {
            throw new AssertionError("could not read " + path, e);
        }
    }

    private static void setData(CoordClient client, String path, byte[] data) throws Exception {
        client.curator().setData().forPath(path, data);
    }

    private static byte[] getData(CoordClient client, String path) throws Exception {
        return client.curator().getData().forPath(path);
    }

    private static List<String> children(CoordClient client, String path) {
        try {
            return client.curator().getChildren().forPath(path).stream().sorted().toList();
        } catch (Exception e) {
            throw new AssertionError("could not list " + path, e);
        }
    }

    private static byte[] concat(byte[] head, String tail) {
        byte[] t = tail.getBytes(StandardCharsets.UTF_8);
        byte[] out = new byte[head.length + t.length];
        System.arraycopy(head, 0, out, 0, head.length);
        System.arraycopy(t, 0, out, head.length, t.length);
        return out;
    }
}
