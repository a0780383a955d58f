package io.coord.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.test.Awaits;
import io.coord.test.ChildJvm;
import io.coord.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code QueueOptions.maxDeliveries} (issue 17): a task whose deliveries keep ending without a
 * {@code complete()} or {@code fail()} (a handler that hangs past its claim timeout, a consumer
 * killed with it) is moved to the dead letters by the next consumer about to claim it, never
 * handed to that consumer's handler, and a requeue starts it afresh. Each test fails without the
 * check in {@code Claimer.adopt}: the task is handed out a further time and never dead-lettered.
 */
class MaxDeliveriesIT {
    @RegisterExtension
    @Order(1)
    static final ZooKeeperExtension ZOOKEEPER = ZooKeeperExtension.single();
    @RegisterExtension
    @Order(2)
    static final QueueServer ZK = QueueServer.on(ZOOKEEPER);

    /** For {@link QueueServer#await}, which scales it; latches wait {@code scaled(WAIT)}. */
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String EXHAUSTED = " times without an ending (consumers died or their claims timed out";

    private static long waitMillis() {
        return Awaits.scaled(WAIT).toMillis();
    }

    private TaskQueue<Job> queue(CoordClient client, QueueOptions options) {
        return ZK.queue(client, "jobs", Job.class, options);
    }

    @Test
    void aHandlerThatNeverReturnsIsDeliveredMaxDeliveriesTimesThenDeadLetteredWhileTheOtherTasksComplete() throws Exception {
        Duration timeout = Awaits.scaled(Duration.ofSeconds(1));
        CountDownLatch wake = new CountDownLatch(1);
        List<Integer> hungDeliveries = new CopyOnWriteArrayList<>();
        Set<Integer> completed = ConcurrentHashMap.newKeySet(); // a set: a handler may run a task twice
        TaskWorker.Handler<Job> handler = claim -> {
            if (claim.payload().name().equals("hangs")) {
                hungDeliveries.add(claim.deliveries());
                // "Never returns": only the end of the test wakes it, and its claim is long gone by then.
                wake.await(waitMillis(), TimeUnit.MILLISECONDS);
                return;
            }
            completed.add(claim.payload().n());
        };
        try {
            // Two consumers on two sessions race for every claim, so the dead-lettering is raced too.
            for (String name : List.of("a", "b")) {
                TaskQueue<Job> q = queue(ZK.client(), QueueOptions.builder().consumerName(name).claimTimeout(timeout)
                        .maxProcessing(timeout.dividedBy(2)).shutdownGrace(Duration.ofMillis(100)).maxDeliveries(3).build());
                ZK.track(q.work(4, handler));
            }
            TaskQueue<Job> producer = queue(ZK.client(), QueueOptions.builder().consumerName("producer").build());
            TaskId hangs = producer.enqueue(new Job("hangs", 0));
            for (int i = 1; i <= 20; i++) {
                producer.enqueue(new Job("ok", i));
            }

            QueueServer.await("the hanging task is in the dead letters", WAIT, () -> !producer.deadLetters().isEmpty());
            List<Task<Job>> dead = producer.deadLetters();
            assertEquals(1, dead.size(), "moved exactly once: " + dead);
            Task<Job> letter = dead.get(0);
            assertEquals(hangs, letter.id());
            assertEquals(new Job("hangs", 0), letter.payload(), "payload intact");
            assertTrue(letter.lastError().startsWith("delivered 3" + EXHAUSTED), letter.lastError());
            assertEquals(0, letter.attempts(), "neither a timeout nor the dead-lettering is an attempt");
            assertEquals(List.of(1, 2, 3), hungDeliveries, "handed out exactly maxDeliveries times, never a fourth");

            QueueServer.await("the other 20 tasks complete", WAIT, () -> completed.size() == 20 && producer.tasks().isEmpty());
            assertEquals(List.of(1, 2, 3), hungDeliveries, "the fourth claim moved it instead of handing it out");
        } finally {
            wake.countDown();
        }
    }

    @Test
    void aTaskThatKillsItsConsumerTwiceIsDeadLetteredByTheSurvivorNeverHandedToIt() throws Exception {
        CoordClient client = ZK.client();
        CuratorFramework curator = client.curator();
        TaskQueue<Job> survivorQueue = queue(client, QueueOptions.builder().consumerName("survivor").maxDeliveries(2).build());
        TaskId crashes = survivorQueue.enqueue(new Job("crashes", 0));

        for (int delivery = 1; delivery <= 2; delivery++) {
            // The consumer "crashes" while holding the task (an OOM, a native crash): kill -9 mid-task.
            ChildJvm child = ZK.track(ChildJvm.start(ConsumerMain.class.getName(), ZK.ensemble().connectString(),
                    ZK.namespace(), "jobs", "600000", "2000"));
            String start = awaitStart(child);
            assertTrue(start.startsWith("START " + crashes.name() + " "), start);
            int expected = delivery;
            QueueServer.await("the child holds delivery " + delivery, WAIT, () -> {
                List<Task<Job>> tasks = survivorQueue.tasks();
                return tasks.size() == 1 && tasks.get(0).state() == Task.State.PROCESSING && tasks.get(0).deliveries() == expected;
            });
            child.kill9();
            QueueServer.await("the killed child's claim goes with its session", WAIT, () -> claims(curator).isEmpty());
            Task<Job> back = survivorQueue.tasks().get(0);
            assertEquals(Task.State.PENDING, back.state());
            assertEquals(delivery, back.deliveries());
            assertEquals(0, back.attempts(), "a consumer's death is not an attempt");
        }

        List<TaskId> handed = new CopyOnWriteArrayList<>();
        ZK.track(survivorQueue.work(1, claim -> handed.add(claim.id())));
        QueueServer.await("the survivor moves the task to the dead letters", WAIT, () -> !survivorQueue.deadLetters().isEmpty());
        Task<Job> letter = survivorQueue.deadLetters().get(0);
        assertEquals(crashes, letter.id());
        assertEquals(new Job("crashes", 0), letter.payload(), "payload intact");
        assertTrue(letter.lastError().startsWith("delivered 2" + EXHAUSTED), letter.lastError());
        assertTrue(survivorQueue.tasks().isEmpty(), "nothing left pending");
        assertTrue(claims(curator).isEmpty(), "the claim that moved it went with the move");

        // The survivor is healthy: it runs the next task, and was never handed the one that crashed consumers.
        TaskId next = survivorQueue.enqueue(new Job("fine", 1));
        QueueServer.await("the survivor completes the next task", WAIT, () -> handed.contains(next) && survivorQueue.tasks().isEmpty());
        assertEquals(List.of(next), handed, "the crashing task was never handed to the survivor");
    }

    @Test
    void requeueFromTheDeadLettersResetsDeliveriesAndTheTaskCompletes() throws Exception {
        CoordClient client = ZK.client();
        CuratorFramework curator = client.curator();
        TaskQueue<Job> q = queue(client, QueueOptions.builder().consumerName("c").maxDeliveries(2).build());
        TaskId first = q.enqueue(new Job("flaky", 7), "order-7");
        String keyNode = "/queues/jobs/keys/" + QueueLayout.USER_KEY_PREFIX + "order-7";

        // Two deliveries that end without complete or fail (release() stands in for a consumer gone).
        for (int delivery = 1; delivery <= 2; delivery++) {
            TaskClaim<Job> claim = q.claim(Awaits.scaled(WAIT)).orElseThrow();
            assertEquals(delivery, claim.deliveries());
            claim.release();
        }
        Optional<TaskClaim<Job>> third = q.claim(Awaits.scaled(Duration.ofSeconds(2)));
        assertTrue(third.isEmpty(), "the third claim moves the task instead of handing it out: " + third);
        Task<Job> letter = q.deadLetters().get(0);
        assertEquals(first, letter.id());
        assertTrue(letter.lastError().startsWith("delivered 2" + EXHAUSTED), letter.lastError());
        assertEquals(3, letter.deliveries(), "the dead letter counts the claim that moved it");
        assertNull(curator.checkExists().forPath(keyNode), "its key is deleted, as at the last failure");

        TaskId again = q.requeue(first);
        Task<Job> fresh = q.tasks().get(0);
        assertEquals(again, fresh.id());
        assertEquals(0, fresh.deliveries(), "requeue resets deliveries");
        assertEquals(0, fresh.attempts());
        assertEquals(new Job("flaky", 7), fresh.payload());

        TaskClaim<Job> claim = q.claim(Awaits.scaled(WAIT)).orElseThrow(); // not dead-lettered again
        assertEquals(again, claim.id());
        assertEquals(1, claim.deliveries());
        claim.complete();
        assertTrue(q.tasks().isEmpty());
        assertTrue(q.deadLetters().isEmpty());
    }

    private static String awaitStart(ChildJvm child) {
        Duration budget = Awaits.scaled(WAIT);
        long deadline = System.nanoTime() + budget.toNanos();
        while (System.nanoTime() < deadline) {
            Optional<String> line = child.readLine(Duration.ofMillis(100));
            if (line.isPresent() && line.get().startsWith("START ")) {
                return line.get();
            }
        }
        throw new AssertionError("no START line from " + child + " within " + budget + child.stderrTail());
    }

    private static List<String> claims(CuratorFramework curator) {
        try {
            return curator.getChildren().forPath("/queues/jobs/claims");
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
