package io.coord.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.CoordTimeoutException;
import io.coord.test.Awaits;
import io.coord.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The async API (issue 18): {@code enqueueAsync}, {@code claimAsync}, {@code completeAsync} and
 * {@code failAsync} complete on the caller's executor, cancelling leaves no node and no claim
 * behind, the timeout fails the future, 64 calls in flight keep their order and their keys'
 * idempotency, a claim across a session's end is lost as documented, and partitioned queues alike.
 */
class AsyncQueueIT {
    @RegisterExtension
    @Order(1)
    static final ZooKeeperExtension ZOOKEEPER = ZooKeeperExtension.single();
    @RegisterExtension
    @Order(2)
    static final QueueServer ZK = QueueServer.on(ZOOKEEPER);

    private static final Duration BOUND = Awaits.scaled(Duration.ofSeconds(20));
    private static final Duration LONG = Awaits.scaled(Duration.ofSeconds(60));

    private final AtomicInteger executorThreads = new AtomicInteger();
    private final ExecutorService callers = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "caller-executor-" + executorThreads.incrementAndGet());
        t.setDaemon(true);
        return t;
    });

    @AfterEach
    void stop() throws InterruptedException {
        callers.shutdownNow();
        assertTrue(callers.awaitTermination(10, TimeUnit.SECONDS), "executor threads ended");
    }

    private static TaskQueue<Job> queue(CoordClient client, QueueOptions options) {
        return ZK.queue(client, "jobs", Job.class, options);
    }

    private static <T> T get(CompletableFuture<T> f) throws Exception {
        return f.get(BOUND.toMillis(), TimeUnit.MILLISECONDS);
    }

    private static Throwable failure(CompletableFuture<?> f) {
        return assertThrows(ExecutionException.class, () -> get(f)).getCause();
    }

    private static List<String> children(CoordClient client, String path) {
        try {
            return client.curator().getChildren().forPath(path);
        } catch (Exception e) {
            throw new AssertionError("could not list " + path, e);
        }
    }

    /** A call's value and the thread its future completed on. */
    private record Done<V>(V value, String thread) {
    }

    /**
     * Runs {@code call} with an executor whose tasks wait until a dependent is attached to the
     * returned future: the future cannot complete before that (it completes only through the
     * executor), so the dependent runs on the thread that completed it.
     */
    private <V> Done<V> completedOn(java.util.function.Function<java.util.concurrent.Executor, CompletableFuture<V>> call)
            throws Exception {
        java.util.concurrent.CountDownLatch attached = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.Executor gated = r -> callers.execute(() -> {
            try {
                attached.await(BOUND.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            r.run();
        });
        CompletableFuture<V> f = call.apply(gated);
        CompletableFuture<Done<V>> done = f.handle((v, e) -> new Done<>(v, Thread.currentThread().getName()));
        attached.countDown();
        return get(done);
    }

    @Test
    void everyCompletionRunsOnTheCallersExecutor() throws Exception {
        TaskQueue<Job> q = queue(ZK.client(), QueueOptions.defaults());
        List<Done<?>> done = new ArrayList<>();

        done.add(completedOn(e -> q.claimAsync(Duration.ZERO, e))); // times out: nothing is queued yet
        CompletableFuture<TaskClaim<Job>> pending = q.claimAsync(LONG, callers);
        done.add(completedOn(e -> q.enqueueAsync(new Job("a", 1), TaskSpec.defaults(), e)));
        TaskClaim<Job> claim = get(pending);
        assertEquals(new Job("a", 1), claim.payload());
        done.add(completedOn(claim::completeAsync));

        done.add(completedOn(e -> q.enqueueAsync(new Job("b", 2), TaskSpec.defaults().idempotencyKey("b"), e)));
        Done<TaskClaim<Job>> ready = completedOn(e -> q.claimAsync(BOUND, e));
        done.add(ready);
        Done<Task.State> failed = completedOn(e -> ready.value().failAsync("retry", e));
        assertEquals(Task.State.PENDING, failed.value());
        done.add(failed);

        assertEquals(6, done.size());
        for (Done<?> d : done) {
            assertTrue(d.thread().startsWith("caller-executor-"), "completed on " + d.thread() + ": " + d.value());
        }
    }

    @Test
    void cancellingAnEnqueueLeavesNoNodeBehindAndACompletedOneIsKept() throws Exception {
        CoordClient client = ZK.client();
        TaskQueue<Job> q = queue(client, QueueOptions.defaults());
        // Cancelled at once. The first calls wait for the queue's depth read and are never sent.
        List<CompletableFuture<EnqueueResult>> cancelled = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            cancelled.add(enqueueAndCancel(q, i));
        }
        EnqueueResult kept = get(q.enqueueAsync(new Job("kept", 0), TaskSpec.defaults(), callers));
        // With the depth known, these are sent at once: each task is deleted (with its key) when its reply lands.
        for (int i = 20; i < 40; i++) {
            cancelled.add(enqueueAndCancel(q, i));
        }
        assertFalse(cancelled.get(0).complete(kept), "a cancelled future stays cancelled");
        CompletableFuture<EnqueueResult> done = q.enqueueAsync(new Job("kept", 1), TaskSpec.defaults().idempotencyKey("k"), callers);
        EnqueueResult keyed = get(done);
        assertFalse(done.cancel(true), "cancel after completion does nothing");

        Awaits.until("only the two completed enqueues' tasks (and one key) left", BOUND, () ->
                children(client, "/queues/jobs/tasks").size() == 2 && children(client, "/queues/jobs/keys").equals(List.of("k-k")));
        List<String> left = children(client, "/queues/jobs/tasks");
        assertTrue(left.contains(kept.id().name()) && left.contains(keyed.id().name()), left.toString());
        cancelled.forEach(f -> assertTrue(f.isCancelled()));
    }

    private CompletableFuture<EnqueueResult> enqueueAndCancel(TaskQueue<Job> q, int i) {
        TaskSpec spec = i % 2 == 0 ? TaskSpec.defaults() : TaskSpec.defaults().idempotencyKey("c" + i);
        CompletableFuture<EnqueueResult> f = q.enqueueAsync(new Job("c", i), spec, callers);
        assertTrue(f.cancel(true));
        return f;
    }

    @Test
    void aCancelledClaimWithdrawsItsWaiterAndAClaimRacingTheCancelIsReleasedAtOnce() throws Exception {
        CoordClient client = ZK.client();
        TaskQueue<Job> q = queue(client, QueueOptions.defaults());
        TaskQueue<Job> other = queue(ZK.client(), QueueOptions.defaults());

        CompletableFuture<TaskClaim<Job>> withdrawn = q.claimAsync(LONG, callers);
        assertTrue(withdrawn.cancel(true));
        q.enqueue(new Job("first", 1));
        Awaits.never("the withdrawn waiter claims the task", Awaits.scaled(Duration.ofMillis(500)),
                () -> !children(client, "/queues/jobs/claims").isEmpty());
        try (TaskClaim<Job> taken = other.claim(BOUND).orElseThrow()) {
            assertEquals(1, taken.deliveries(), "the cancelled waiter never took it");
            taken.complete();
        }

        // The claim lands while the caller cancels: its delivery is held back until after the cancel.
        ConcurrentLinkedQueue<Runnable> held = new ConcurrentLinkedQueue<>();
        CompletableFuture<TaskClaim<Job>> racing = q.claimAsync(LONG, held::add);
        q.enqueue(new Job("second", 2));
        Awaits.until("the task claimed", BOUND, () -> children(client, "/queues/jobs/claims").size() == 1);
        assertTrue(racing.cancel(true));
        held.forEach(Runnable::run);
        assertTrue(racing.isCancelled());
        // Released at once: claimable now, with no claim timeout and no session end to wait for.
        TaskClaim<Job> again = other.claim(BOUND).orElseThrow(() -> new AssertionError("the released task is not claimable"));
        assertEquals(new Job("second", 2), again.payload());
        assertEquals(2, again.deliveries());
        assertEquals(0, again.attempts(), "a release is not a failed attempt");
        again.complete();
    }

    @Test
    void aClaimThatDoesNotComeInTimeFailsWithTheTimeout() throws Exception {
        TaskQueue<Job> q = queue(ZK.client(), QueueOptions.defaults());
        Duration timeout = Duration.ofMillis(300);
        long start = System.nanoTime();
        Throwable e = failure(q.claimAsync(timeout, callers));
        long waited = System.nanoTime() - start;
        assertInstanceOf(CoordTimeoutException.class, e);
        assertTrue(e.getMessage().contains("jobs"), e.getMessage());
        assertTrue(waited >= timeout.toNanos(), "failed after " + waited + " ns, before the timeout");
        assertTrue(q.tasks().isEmpty());
    }

    @Test
    void badInputFailsTheFutureWithTheSyncCallsExceptionAndNothingIsWritten() throws Exception {
        CoordClient client = ZK.client();
        TaskQueue<Job> q = queue(client, QueueOptions.builder().depthCap(2).build());
        assertInstanceOf(TaskRejectedException.class, failure(q.enqueueAsync(new Job("x", 0), TaskSpec.defaults().lane(7), callers)));
        assertThrows(NullPointerException.class, () -> q.enqueueAsync(new Job("x", 0), TaskSpec.defaults(), null));
        assertThrows(IllegalArgumentException.class, () -> q.claimAsync(Duration.ofSeconds(-1), callers));
        get(q.enqueueAsync(new Job("x", 1), TaskSpec.defaults(), callers));
        get(q.enqueueAsync(new Job("x", 2), TaskSpec.defaults(), callers));
        Throwable full = failure(q.enqueueAsync(new Job("x", 3), TaskSpec.defaults(), callers));
        assertInstanceOf(QueueFullException.class, full);
        assertTrue(full.getMessage().contains("'jobs'"), full.getMessage());
        assertEquals(2, children(client, "/queues/jobs/tasks").size());
    }

    @Test
    void sixtyFourInFlightKeepTheirOrderAndTheirKeys() throws Exception {
        TaskQueue<Job> q = queue(ZK.client(), QueueOptions.defaults());
        List<CompletableFuture<EnqueueResult>> sent = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
            sent.add(q.enqueueAsync(new Job("o", i), TaskSpec.defaults(), callers));
        }
        List<TaskId> ids = new ArrayList<>();
        for (CompletableFuture<EnqueueResult> f : sent) {
            ids.add(get(f).id());
        }
        List<TaskId> sorted = new ArrayList<>(ids);
        sorted.sort(null);
        assertEquals(sorted, ids, "sequence numbers follow the order the calls were made in");
        for (int i = 0; i < 64; i++) {
            TaskClaim<Job> c = get(q.claimAsync(BOUND, callers));
            assertEquals(i, c.payload().n(), "the consumer sees the tasks in submission order");
            get(c.completeAsync(callers));
        }

        // 32 keys, each sent twice with both in flight: one task per key, both calls name it.
        List<CompletableFuture<EnqueueResult>> keyed = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
            keyed.add(q.enqueueAsync(new Job("k", i % 32), TaskSpec.defaults().idempotencyKey("key-" + (i % 32)), callers));
        }
        Map<Integer, List<EnqueueResult>> byKey = new HashMap<>();
        for (int i = 0; i < 64; i++) {
            byKey.computeIfAbsent(i % 32, k -> new ArrayList<>()).add(get(keyed.get(i)));
        }
        byKey.forEach((k, results) -> {
            assertEquals(results.get(0).id(), results.get(1).id(), "key " + k + ": " + results);
            assertEquals(List.of(EnqueueResult.Outcome.ADDED, EnqueueResult.Outcome.ALREADY_QUEUED),
                    results.stream().map(EnqueueResult::outcome).sorted().toList(), "key " + k + ": " + results);
        });
        assertEquals(32, q.tasks().size());
        TaskClaim<Job> c = get(q.claimAsync(BOUND, callers));
        String key = "key-" + c.payload().n();
        get(c.completeAsync(callers));
        EnqueueResult again = get(q.enqueueAsync(new Job("k", 99), TaskSpec.defaults().idempotencyKey(key), callers));
        assertEquals(new EnqueueResult(c.id(), EnqueueResult.Outcome.ALREADY_COMPLETED), again, "a completed key is remembered");
    }

    @Test
    void aClaimAcrossASessionEndIsLostAndTheTaskComesBackWhileAPendingClaimWaitsOn() throws Exception {
        CoordClient consumer = ZK.client();
        TaskQueue<Job> q = queue(consumer, QueueOptions.defaults());
        TaskQueue<Job> other = queue(ZK.client(), QueueOptions.defaults());
        other.enqueue(new Job("lost", 1));
        TaskClaim<Job> held = get(q.claimAsync(BOUND, callers));

        ZK.expireSession(consumer);
        Awaits.until("the claim LOST with its session", BOUND, () -> held.state() == io.coord.LeaseState.LOST);
        assertInstanceOf(ClaimLostException.class, failure(held.completeAsync(callers)));
        TaskClaim<Job> back = other.claim(BOUND).orElseThrow(() -> new AssertionError("the task did not come back"));
        assertEquals(held.id(), back.id());
        assertEquals(2, back.deliveries());
        back.complete();

        // A pending claim holds nothing: it waits through the session's end and claims on the new session.
        CompletableFuture<TaskClaim<Job>> pending = q.claimAsync(LONG, callers);
        ZK.expireSession(consumer);
        other.enqueue(new Job("after", 2));
        TaskClaim<Job> later = get(pending);
        assertEquals(new Job("after", 2), later.payload());
        get(later.completeAsync(callers));
        assertTrue(other.tasks().isEmpty());
    }

    @Test
    void aPartitionedQueueClaimsAsyncOldestFirstAndKeepsKeysPerPartition() throws Exception {
        CoordClient client = ZK.client();
        TaskQueue<Job> q = ZK.queue(client, "parts", Job.class, QueueOptions.builder().partitions(4).build());
        CompletableFuture<TaskClaim<Job>> pending = q.claimAsync(LONG, callers);
        List<CompletableFuture<EnqueueResult>> sent = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            sent.add(q.enqueueAsync(new Job("p", i), TaskSpec.defaults(), callers));
        }
        for (CompletableFuture<EnqueueResult> f : sent) {
            get(f);
        }
        TaskClaim<Job> first = get(pending);
        get(first.completeAsync(callers));
        List<Integer> seen = new ArrayList<>(List.of(first.payload().n()));
        for (int i = 1; i < 16; i++) {
            TaskClaim<Job> c = get(q.claimAsync(BOUND, callers));
            seen.add(c.payload().n());
            get(c.completeAsync(callers));
        }
        assertEquals(16, seen.stream().distinct().count(), seen.toString());
        for (int p = 0; p < 4; p++) {
            int part = p;
            List<Integer> inPartition = seen.stream().filter(n -> n % 4 == part).toList();
            List<Integer> ordered = new ArrayList<>(inPartition);
            ordered.sort(null);
            assertEquals(ordered, inPartition, "partition order: " + seen);
        }

        EnqueueResult a = get(q.enqueueAsync(new Job("key", 1), TaskSpec.defaults().idempotencyKey("same"), callers));
        EnqueueResult b = get(q.enqueueAsync(new Job("key", 2), TaskSpec.defaults().idempotencyKey("same"), callers));
        assertEquals(new EnqueueResult(a.id(), EnqueueResult.Outcome.ALREADY_QUEUED), b);
        CompletableFuture<EnqueueResult> cancelled = q.enqueueAsync(new Job("gone", 3), TaskSpec.defaults().idempotencyKey("gone"), callers);
        cancelled.cancel(true);
        Awaits.until("the cancelled keyed task withdrawn from its partition", BOUND, () -> q.tasks().size() == 1);
    }
}
