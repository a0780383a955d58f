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

    /**
     * The enqueue fast path (issue 18): unkeyed names come from one JVM-wide counter, so two
     * clients and two queues in one JVM, sync and async interleaved, never share the unique part
     * of a name; the payload, spliced into its record without a re-parse, reads back exactly
     * (escapes, non-ASCII, nesting); and a keyed enqueue beside them is still idempotent.
     */
    @Test
    void unkeyedNamesAreUniqueAcrossClientsAndQueuesAndPayloadsReadBackExactly() throws Exception {
        CoordClient a = ZK.client();
        CoordClient b = ZK.client();
        io.coord.Codec<com.fasterxml.jackson.databind.JsonNode> json = io.coord.Codec.json(com.fasterxml.jackson.databind.JsonNode.class);
        List<TaskQueue<com.fasterxml.jackson.databind.JsonNode>> queues = List.of(
                ZK.track(TaskQueue.open(a, "one", json, QueueOptions.defaults())),
                ZK.track(TaskQueue.open(b, "one", json, QueueOptions.defaults())),
                ZK.track(TaskQueue.open(a, "two", json, QueueOptions.defaults())),
                ZK.track(TaskQueue.open(b, "two", json, QueueOptions.defaults())));
        com.fasterxml.jackson.databind.JsonNode payload = io.coord.Codec.mapper().readTree(
                "{\"s\":\"quote \\\" slash \\\\ tab \\t \u00e9\u4e2d\ud83d\ude00\",\"n\":[1,2.5,-3e7,{\"deep\":[[[true,null]]]}]}");
        List<CompletableFuture<EnqueueResult>> async = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            for (TaskQueue<com.fasterxml.jackson.databind.JsonNode> q : queues) {
                q.enqueue(payload);
                async.add(q.enqueueAsync(payload, TaskSpec.defaults(), callers));
            }
        }
        for (CompletableFuture<EnqueueResult> f : async) {
            assertEquals(EnqueueResult.Outcome.ADDED, get(f).outcome());
        }
        List<String> names = new ArrayList<>(children(a, "/queues/one/tasks"));
        names.addAll(children(a, "/queues/two/tasks"));
        assertEquals(400, names.size(), "every enqueue added one task");
        java.util.Set<String> unique = new java.util.HashSet<>();
        for (String name : names) {
            assertTrue(name.matches("task-[A-Za-z0-9_-]{11}-\\d{10}"), "an unkeyed task's name: " + name);
            assertTrue(unique.add(name.substring(5, 16)), "unique part used twice: " + name);
        }
        EnqueueResult keyed = queues.get(0).submit(payload, TaskSpec.defaults().idempotencyKey("k"));
        assertEquals(new EnqueueResult(keyed.id(), EnqueueResult.Outcome.ALREADY_QUEUED),
                get(queues.get(1).enqueueAsync(payload, TaskSpec.defaults().idempotencyKey("k"), callers)),
                "a key is still idempotent beside the fast path");
        for (int i = 0; i < 3; i++) {
            TaskClaim<com.fasterxml.jackson.databind.JsonNode> c = get(queues.get(i).claimAsync(BOUND, callers));
            assertEquals(payload, c.payload(), "the payload reads back exactly");
            get(c.completeAsync(callers));
        }
    }

    /**
     * A payload at the JSON nesting limit is one level deeper inside its record, so it could never
     * be read back: refused at enqueue (sync and async) as a {@link TaskRejectedException} naming
     * the queue, with nothing written (before, a raw CodecException for the record's path).
     */
    @Test
    void aPayloadTooDeepForItsRecordIsRejectedNamingTheQueueAndNothingIsWritten() throws Exception {
        CoordClient client = ZK.client();
        io.coord.Codec<com.fasterxml.jackson.databind.JsonNode> json = io.coord.Codec.json(com.fasterxml.jackson.databind.JsonNode.class);
        TaskQueue<com.fasterxml.jackson.databind.JsonNode> q = ZK.track(TaskQueue.open(client, "deep", json, QueueOptions.defaults()));
        String text = "[".repeat(io.coord.Codec.MAX_DEPTH) + "]".repeat(io.coord.Codec.MAX_DEPTH);
        com.fasterxml.jackson.databind.JsonNode deep = io.coord.Codec.mapper().readTree(text);
        json.encode(io.coord.CoordPath.of("/deep"), deep); // the payload alone is within the limits
        TaskRejectedException sync = assertThrows(TaskRejectedException.class, () -> q.enqueue(deep));
        assertTrue(sync.getMessage().contains("queue 'deep'") && sync.getMessage().contains("nothing was written"), sync.getMessage());
        assertInstanceOf(TaskRejectedException.class, failure(q.enqueueAsync(deep, TaskSpec.defaults(), callers)));
        assertEquals(List.of(), children(client, "/queues/deep/tasks"));
    }

    /**
     * {@code completeAsync} is sent with the async API (issue 18): completions of one client's
     * claims are in flight together and none waits for the client's callback thread, which is
     * held busy here for the whole test (before, each completion ran there, blocking, one by one:
     * none of these would complete). A keyed task's completion still rewrites its key, and a claim
     * whose completion committed is ended.
     */
    @Test
    void completionsAreInFlightTogetherAndNeverWaitForTheCallbackThread() throws Exception {
        CoordClient client = ZK.client();
        TaskQueue<Job> q = queue(client, QueueOptions.defaults());
        for (int i = 0; i < 8; i++) {
            q.enqueue(new Job("c", i), i == 0 ? TaskSpec.defaults().idempotencyKey("done") : TaskSpec.defaults());
        }
        List<TaskClaim<Job>> claims = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            claims.add(q.claim(BOUND).orElseThrow());
        }
        java.util.concurrent.CountDownLatch freed = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch held = new java.util.concurrent.CountDownLatch(1);
        io.coord.internal.Zk.of(client).callbacks().execute(() -> {
            held.countDown();
            try {
                freed.await(LONG.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        try {
            assertTrue(held.await(BOUND.toMillis(), TimeUnit.MILLISECONDS), "the callback thread is held");
            List<CompletableFuture<Void>> completions = new ArrayList<>();
            for (TaskClaim<Job> c : claims) {
                completions.add(c.completeAsync(callers));
            }
            for (CompletableFuture<Void> f : completions) {
                get(f);
            }
            for (TaskClaim<Job> c : claims) {
                assertTrue(c.isFinished(), c.id() + " ended with its completion");
                assertThrows(IllegalStateException.class, c::complete);
            }
            assertEquals(List.of(), children(client, "/queues/jobs/tasks"));
            TaskId first = claims.stream().filter(c -> c.payload().n() == 0).findFirst().orElseThrow().id();
            assertEquals(new EnqueueResult(first, EnqueueResult.Outcome.ALREADY_COMPLETED),
                    q.submit(new Job("c", 0), TaskSpec.defaults().idempotencyKey("done")), "the completed key is remembered");
        } finally {
            freed.countDown();
        }
    }

    /**
     * Claim tries of {@code claimAsync} are sent with the async API (issue 18): many calls of two
     * clients, pending together, each get a different task exactly once (a try that lost the race
     * to another call looks again), and nothing stays held.
     */
    @Test
    void asyncClaimTriesInFlightTogetherHandEachTaskToExactlyOneCall() throws Exception {
        CoordClient a = ZK.client();
        CoordClient b = ZK.client();
        TaskQueue<Job> qa = queue(a, QueueOptions.defaults());
        TaskQueue<Job> qb = queue(b, QueueOptions.defaults());
        List<CompletableFuture<TaskClaim<Job>>> pending = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            pending.add((i % 2 == 0 ? qa : qb).claimAsync(LONG, callers));
        }
        for (int i = 0; i < 32; i++) {
            qa.enqueueAsync(new Job("p", i), TaskSpec.defaults(), callers);
        }
        for (int i = 0; i < 16; i++) {
            pending.add((i % 2 == 0 ? qa : qb).claimAsync(LONG, callers));
        }
        java.util.Set<Integer> seen = new java.util.HashSet<>();
        List<CompletableFuture<Void>> completions = new ArrayList<>();
        for (CompletableFuture<TaskClaim<Job>> f : pending) {
            TaskClaim<Job> c = get(f);
            assertTrue(seen.add(c.payload().n()), "task " + c.payload().n() + " handed to two calls");
            completions.add(c.completeAsync(callers));
        }
        for (CompletableFuture<Void> f : completions) {
            get(f);
        }
        assertEquals(32, seen.size());
        assertEquals(List.of(), children(a, "/queues/jobs/tasks"));
        assertEquals(List.of(), children(a, "/queues/jobs/claims"));
    }

    /**
     * The depth cap with 64 calls in flight: below half the cap the re-read goes in the background
     * while calls keep being sent (issue 18: the pipeline never drains for it), and from half on
     * the cap is exact: of 40 calls past a cap of 400, exactly those over the cap fail with
     * {@link QueueFullException}, and 400 tasks are queued.
     */
    @Test
    void withCallsInFlightTheDepthCapStaysExactPastHalf() throws Exception {
        CoordClient client = ZK.client();
        TaskQueue<Job> q = queue(client, QueueOptions.builder().depthCap(400).build());
        java.util.concurrent.Semaphore slots = new java.util.concurrent.Semaphore(64);
        List<CompletableFuture<EnqueueResult>> sent = new ArrayList<>();
        for (int i = 0; i < 440; i++) {
            assertTrue(slots.tryAcquire(BOUND.toMillis(), TimeUnit.MILLISECONDS), "a slot within the bound");
            CompletableFuture<EnqueueResult> f = q.enqueueAsync(new Job("d", i), TaskSpec.defaults(), callers);
            f.whenComplete((r, e) -> slots.release());
            sent.add(f);
        }
        int added = 0;
        int full = 0;
        for (CompletableFuture<EnqueueResult> f : sent) {
            try {
                get(f);
                added++;
            } catch (ExecutionException e) {
                assertInstanceOf(QueueFullException.class, e.getCause());
                full++;
            }
        }
        assertEquals(400, added, "every call under the cap added its task");
        assertEquals(40, full, "every call over the cap was refused");
        assertEquals(400, children(client, "/queues/jobs/tasks").size());
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
