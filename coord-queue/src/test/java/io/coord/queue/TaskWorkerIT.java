package io.coord.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordMetrics;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import io.coord.test.ZooKeeperExtension;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The worker runner: concurrency, ending claims from the handler's outcome, graceful shutdown; and the metrics. */
class TaskWorkerIT {
    @RegisterExtension
    @Order(1)
    static final ZooKeeperExtension ZOOKEEPER = ZooKeeperExtension.single();
    @RegisterExtension
    @Order(2)
    static final QueueServer ZK = QueueServer.on(ZOOKEEPER);

    private static final Duration WAIT = Duration.ofSeconds(10);

    private TaskQueue<Job> queue(QueueOptions options) throws InterruptedException {
        return ZK.queue(ZK.client(), "jobs", Job.class, options);
    }

    @Test
    void workerRunsAtMostItsConcurrencyAtOnceAndCompletesEveryTask() throws Exception {
        TaskQueue<Job> q = queue(QueueOptions.defaults());
        for (int i = 0; i < 30; i++) {
            q.enqueue(new Job("w", i));
        }
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger maxInFlight = new AtomicInteger();
        CountDownLatch gate = new CountDownLatch(1);
        Map<Integer, Boolean> seen = new ConcurrentHashMap<>();
        TaskWorker worker = ZK.track(q.work(3, claim -> {
            int now = inFlight.incrementAndGet();
            maxInFlight.accumulateAndGet(now, Math::max);
            try {
                gate.await(WAIT.toMillis(), TimeUnit.MILLISECONDS); // the first three wait here together
                assertTrue(seen.putIfAbsent(claim.payload().n(), true) == null, "task handed out twice");
            } finally {
                inFlight.decrementAndGet();
            }
        }));
        QueueServer.await("three handlers in flight at once", WAIT, () -> inFlight.get() == 3);
        long until = System.nanoTime() + 300_000_000L;
        while (System.nanoTime() < until) {
            assertTrue(inFlight.get() <= 3, "more handlers than the concurrency");
            Thread.sleep(10);
        }
        gate.countDown();
        QueueServer.await("all 30 tasks completed", WAIT, () -> q.stats().depth() == 0);
        assertEquals(30, seen.size());
        assertEquals(3, maxInFlight.get());
        assertTrue(worker.shutdown(WAIT));
        assertEquals(30, worker.handled());
        assertFalse(worker.isRunning());
    }

    @Test
    void shutdownLetsInFlightTasksFinishAndClaimsNothingNew() throws Exception {
        TaskQueue<Job> q = queue(QueueOptions.defaults());
        q.enqueue(new Job("first", 0));
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        TaskWorker worker = ZK.track(q.work(1, claim -> {
            started.countDown();
            finish.await(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        }));
        assertTrue(started.await(WAIT.toMillis(), TimeUnit.MILLISECONDS));
        q.enqueue(new Job("second", 0));
        AtomicLong result = new AtomicLong(-1);
        Thread stopper = new Thread(() -> {
            try {
                result.set(worker.shutdown(WAIT) ? 1 : 0);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        stopper.start();
        QueueServer.await("shutdown has begun", WAIT, () -> stopper.getState() == Thread.State.TIMED_WAITING);
        finish.countDown();
        stopper.join(WAIT.toMillis());
        assertEquals(1, result.get(), "the in-flight task finished within the grace");
        List<Task<Job>> left = q.tasks();
        assertEquals(1, left.size(), "the first was completed, the second never claimed: " + left);
        assertEquals("second", left.get(0).payload().name());
        assertEquals(0, left.get(0).deliveries());
    }

    @Test
    void tasksStillRunningAfterTheGraceAreInterruptedAndReleasedWithoutAnAttempt() throws Exception {
        TaskQueue<Job> q = queue(QueueOptions.defaults());
        q.enqueue(new Job("long", 0));
        CountDownLatch started = new CountDownLatch(1);
        TaskWorker worker = ZK.track(q.work(1, claim -> {
            started.countDown();
            new CountDownLatch(1).await(); // runs until interrupted
        }));
        assertTrue(started.await(WAIT.toMillis(), TimeUnit.MILLISECONDS));
        assertFalse(worker.shutdown(Duration.ofMillis(200)), "the handler did not finish within the grace");
        Task<Job> t = q.tasks().get(0);
        assertEquals(Task.State.PENDING, t.state(), "released, not failed");
        assertEquals(0, t.attempts());
        assertEquals(1, t.deliveries());
        try (TaskClaim<Job> again = q.claim(WAIT).orElseThrow()) {
            assertEquals("long", again.payload().name());
            again.complete();
        }
    }

    @Test
    void aThrowingHandlerFailsTheTaskWithItsMessageUntilItIsDeadLettered() throws Exception {
        TaskQueue<Job> q = queue(QueueOptions.builder().maxRetries(1).backoff(Duration.ofMillis(50), Duration.ofMillis(100)).build());
        q.enqueue(new Job("poison", 0));
        AtomicInteger calls = new AtomicInteger();
        ZK.track(q.work(2, claim -> {
            calls.incrementAndGet();
            throw new IllegalStateException("cannot parse job " + claim.payload().name());
        }));
        QueueServer.await("dead-lettered after two attempts", WAIT, () -> q.deadLetters().size() == 1);
        Task<Job> dead = q.deadLetters().get(0);
        assertEquals(2, dead.attempts());
        assertTrue(dead.lastError().contains("cannot parse job poison"), dead.lastError());
        assertEquals(2, calls.get());
    }

    /** Counts what the queue reports. */
    static final class RecordingMetrics implements CoordMetrics {
        final Map<String, AtomicInteger> counters = new ConcurrentHashMap<>();
        final Map<String, AtomicInteger> timers = new ConcurrentHashMap<>();
        final Map<String, Supplier<? extends Number>> gauges = new ConcurrentHashMap<>();

        @Override
        public void increment(String name, String... tags) {
            counters.computeIfAbsent(name, n -> new AtomicInteger()).incrementAndGet();
        }

        @Override
        public void recordTime(String name, Duration duration, String... tags) {
            timers.computeIfAbsent(name, n -> new AtomicInteger()).incrementAndGet();
        }

        @Override
        public void gauge(String name, Supplier<? extends Number> value, String... tags) {
            gauges.put(name, value);
        }

        int count(String name) {
            AtomicInteger c = counters.get(name);
            return c == null ? 0 : c.get();
        }
    }

    @Test
    void metricsCountEnqueuedCompletedFailedDeadLetteredClaimTimesAndDepth() throws Exception {
        RecordingMetrics metrics = new RecordingMetrics();
        // A long backoff keeps the failed task out of the way, so c is next whatever the timing.
        TaskQueue<Job> q = ZK.queue(ZK.client(b -> b.metrics(metrics)), "jobs", Job.class,
                QueueOptions.builder().backoff(Duration.ofMinutes(5), Duration.ofMinutes(5)).build());
        q.enqueue(new Job("a", 0));
        q.enqueue(new Job("b", 0), "key-b");
        q.enqueue(new Job("b", 1), "key-b"); // a duplicate adds nothing
        q.enqueue(new Job("c", 0), TaskSpec.defaults().maxRetries(0));
        assertEquals(3, metrics.count("coord.queue.enqueued"));
        assertEquals(1, metrics.count("coord.queue.duplicates"));
        q.claim(WAIT).orElseThrow().complete();
        q.claim(WAIT).orElseThrow().fail("once");
        TaskClaim<Job> c = q.claim(WAIT).orElseThrow();
        assertEquals("c", c.payload().name(), "the failed task waits out its backoff; c is next");
        assertEquals(Task.State.DEAD, c.fail("fatal"));
        assertEquals(1, metrics.count("coord.queue.completed"));
        assertEquals(1, metrics.timers.get("coord.queue.claimToComplete").get());
        assertEquals(2, metrics.count("coord.queue.failed"));
        assertEquals(1, metrics.count("coord.queue.deadLettered"));
        QueueServer.await("depth gauge shows the one task left", WAIT,
                () -> metrics.gauges.get("coord.queue.depth").get().intValue() == 1);
    }
}
