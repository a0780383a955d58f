package io.coord.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.ConnectionLostException;
import io.coord.CoordClient;
import io.coord.CoordSettings;
import io.coord.test.Awaits;
import io.coord.test.ClientProxy;
import io.coord.test.LeakCheckExtension;
import io.coord.test.ReplyLossServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Fault F10 on the queue's own transactions: the server applies a transaction but the reply is
 * lost, so the client retries it. Each retry must recognize its own earlier commit: no duplicate
 * task, no second claim, no second completion.
 */
class ReplyLossIT {
    @RegisterExtension
    static final LeakCheckExtension LEAKS = LeakCheckExtension.threads();

    /** Where an unkeyed enqueue's one create goes, as the server sees it. */
    private static final String UNKEYED = "/queues/jobs/tasks/task-";

    private ReplyLossServer server;
    private CoordClient client;
    private TaskQueue<Job> queue;

    @BeforeEach
    void start() throws Exception {
        server = ReplyLossServer.start();
        // The server's longest session (10 s): each test's client must stay on one session across
        // the reconnect after a lost reply, however slowly a loaded machine reconnects.
        client = CoordClient.connect(CoordSettings.builder().connectString(server.connectString())
                .sessionTimeout(Duration.ofSeconds(10)).connectionTimeout(Duration.ofSeconds(10)).build());
        queue = TaskQueue.open(client, "jobs", io.coord.Codec.json(Job.class), QueueOptions.defaults());
        client.curator().create().forPath("/records");
    }

    @AfterEach
    void stop() {
        if (queue != null) {
            queue.close();
        }
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
    }

    /** The enqueue either returns (the retry found its own task) or is indeterminate; a keyed retry settles it. */
    private TaskId enqueueRetrying(Job job, String key) {
        for (int i = 0; ; i++) {
            try {
                return queue.enqueue(job, key);
            } catch (ConnectionLostException e) {
                assertTrue(i < 10, "the connection never came back");
            }
        }
    }

    @Test
    void aKeyedEnqueueWhoseReplyWasLostAddsTheTaskOnce() throws Exception {
        server.dropNextMultiReply();
        TaskId id = enqueueRetrying(new Job("once", 1), "order-1");
        assertEquals(1, server.droppedReplies(), "the fault fired");
        assertEquals(List.of(id), queue.tasks().stream().map(Task::id).toList(), "exactly one task");
        assertEquals(id, enqueueRetrying(new Job("once", 1), "order-1"), "a later retry by the caller finds it too");
        assertEquals(1, queue.tasks().size());
    }

    @Test
    void anUnkeyedEnqueueWhoseReplyWasLostIsNotDuplicatedByTheClientsOwnRetry() throws Exception {
        server.dropNextCreateReply(UNKEYED); // one plain create, not a transaction
        TaskId id;
        try {
            id = queue.enqueue(new Job("auto", 1));
        } catch (ConnectionLostException indeterminate) {
            id = null; // the retry could not run in time: the task may exist, but only once
        }
        assertEquals(1, server.droppedReplies());
        List<Task<Job>> tasks = queue.tasks();
        assertEquals(1, tasks.size(), "the enqueue after the lost reply looked for its own node, sent nothing again: " + tasks);
        if (id != null) {
            assertEquals(id, tasks.get(0).id());
        }
    }

    @Test
    void anUnkeyedEnqueueIsOneCreateWhoseLostReplyIsRecoveredByItsUniqueName() throws Exception {
        server.dropNextCreateReply(UNKEYED); // one plain create, not a transaction
        TaskId id = queue.enqueue(new Job("protected", 1));
        assertEquals(1, server.droppedReplies(), "the fault fired");
        List<Task<Job>> tasks = queue.tasks();
        assertEquals(List.of(id), tasks.stream().map(Task::id).toList(), "found by its name, added once: " + tasks);
        assertTrue(id.name().matches("task-[A-Za-z0-9_-]{11}-\\d{10}"), "the name carries the enqueue's unique id: " + id);
        assertEquals(List.of(), client.curator().getChildren().forPath("/queues/jobs/keys"), "no key node: one create");
    }

    /**
     * The chaos race for the one-create unkeyed enqueue: a fast consumer completes the task while
     * the producer is kept from reconnecting. The producer's look finds no node by its unique name
     * and reports the outcome unknown; it never sends the create again, so there is no second task.
     */
    @Test
    void anUnkeyedEnqueueWhoseTaskWasDoneBeforeItsLostReplyCameBackIsUnknownAndNeverAddedTwice() throws Exception {
        ExecutorService caller = Executors.newSingleThreadExecutor();
        try (ClientProxy proxy = ClientProxy.to(server.connectString());
             CoordClient producer = clientVia(proxy, Duration.ofSeconds(10));
             TaskQueue<Job> producerQueue = TaskQueue.open(producer, "jobs", io.coord.Codec.json(Job.class), QueueOptions.defaults())) {
            server.dropNextCreateReply(UNKEYED, proxy::refuse);
            Future<TaskId> call = caller.submit(() -> producerQueue.enqueue(new Job("fast", 1)));
            TaskClaim<Job> claim = queue.claim(Awaits.scaled(Duration.ofSeconds(15))).orElseThrow();
            assertEquals(1, server.droppedReplies(), "the enqueue's reply was lost");
            claim.complete();
            proxy.accept();

            ExecutionException unknown = assertThrows(ExecutionException.class,
                    () -> call.get(Awaits.scaled(Duration.ofSeconds(30)).toMillis(), TimeUnit.MILLISECONDS));
            assertInstanceOf(ConnectionLostException.class, unknown.getCause());
            assertTrue(unknown.getCause().getMessage().contains(claim.id().name().substring(0, 17)),
                    "names the unique name it looked for: " + unknown.getCause().getMessage());
            assertTrue(queue.tasks().isEmpty(), "added once, never again: " + queue.tasks());
        } finally {
            caller.shutdownNow();
            assertTrue(caller.awaitTermination(Awaits.scaled(Duration.ofSeconds(10)).toMillis(), TimeUnit.MILLISECONDS));
        }
    }

    @Test
    void aBatchWhoseReplyWasLostIsAddedOnceAndItsIdsAreFound() throws Exception {
        server.dropNextMultiReply();
        List<TaskId> ids = queue.enqueueAll(List.of(new Job("b", 0), new Job("b", 1), new Job("b", 2)));
        assertEquals(1, server.droppedReplies());
        assertEquals(ids, queue.tasks().stream().map(Task::id).toList());
    }

    @Test
    void aClaimWhoseReplyWasLostIsAdoptedAndACompletionWhoseReplyWasLostCountsOnce() throws Exception {
        TaskId id = queue.enqueue(new Job("c", 0));
        server.dropNextMultiReply();
        TaskClaim<Job> claim = queue.claim(Awaits.scaled(Duration.ofSeconds(15))).orElseThrow();
        assertEquals(1, server.droppedReplies(), "the claim's reply was lost");
        assertEquals(id, claim.id());
        assertEquals(1, claim.deliveries(), "one claim, not two");
        assertEquals(client.curator().checkExists().forPath(claim.token().node().value()).getCzxid(), claim.token().value());

        server.dropNextMultiReply();
        claim.completeWith(List.of(client.curator().transactionOp().create().withMode(CreateMode.PERSISTENT_SEQUENTIAL)
                .forPath("/records/" + id.name() + "-")));
        assertEquals(2, server.droppedReplies(), "the completion's reply was lost");
        assertEquals(1, client.curator().getChildren().forPath("/records").size(), "completed exactly once");
        assertTrue(queue.tasks().isEmpty());
        assertTrue(queue.deadLetters().isEmpty());
    }

    /**
     * The chaos suite's finding: the enqueue's reply is lost, a fast consumer completes the task
     * before the producer is back, and then a retry of the same transaction would succeed and add
     * the task a second time. The producer is kept from reconnecting (its proxy refuses connections
     * from the moment the reply is dropped) until the task is done, so the race goes the bad way
     * every time.
     *
     * <p>Issue 17 part 3: the completion remembered the key (the idempotency window), so the
     * enqueue's look finds it and reports "already completed" with the original id, not "outcome
     * unknown" (without the window the key is gone and the call throws ConnectionLostException),
     * and a later retry by the caller says the same without adding a task.
     */
    @Test
    void aKeyedEnqueueWhoseTaskWasDoneBeforeItsLostReplyCameBackReportsAlreadyCompletedAndIsNeverAddedTwice() throws Exception {
        ExecutorService caller = Executors.newSingleThreadExecutor();
        try (ClientProxy proxy = ClientProxy.to(server.connectString());
             CoordClient producer = clientVia(proxy, Duration.ofSeconds(10));
             TaskQueue<Job> producerQueue = TaskQueue.open(producer, "jobs", io.coord.Codec.json(Job.class), QueueOptions.defaults())) {
            TaskSpec spec = TaskSpec.defaults().idempotencyKey("fast-1");
            server.dropNextMultiReply(proxy::refuse);
            Future<EnqueueResult> call = caller.submit(() -> producerQueue.submit(new Job("fast", 1), spec));
            TaskClaim<Job> claim = queue.claim(Awaits.scaled(Duration.ofSeconds(15))).orElseThrow();
            assertEquals(1, server.droppedReplies(), "the enqueue's reply was lost");
            claim.complete();
            proxy.accept();

            EnqueueResult result = call.get(Awaits.scaled(Duration.ofSeconds(30)).toMillis(), TimeUnit.MILLISECONDS);
            assertEquals(new EnqueueResult(claim.id(), EnqueueResult.Outcome.ALREADY_COMPLETED), result);
            assertEquals(result, producerQueue.submit(new Job("fast", 2), spec), "the caller's retry too");
            assertTrue(queue.tasks().isEmpty(), "the one enqueue added its task once: " + queue.tasks());
            assertTrue(queue.deadLetters().isEmpty());
        } finally {
            caller.shutdownNow();
            assertTrue(caller.awaitTermination(Awaits.scaled(Duration.ofSeconds(10)).toMillis(), TimeUnit.MILLISECONDS));
        }
    }

    /**
     * Runs {@code ending} on {@code consumer}'s claim while the server applies it and loses its
     * reply, and the consumer is kept away (its proxy refuses connections) until the server has
     * ended its session; then lets it back. Returns what the ending returned or threw.
     */
    private Object endingWhoseReplyWasLostAndWhoseSessionThenEnded(ClientProxy proxy, CoordClient consumer,
                                                                  java.util.concurrent.Callable<Object> ending) throws Exception {
        ExecutorService caller = Executors.newSingleThreadExecutor();
        try {
            long session = consumer.session().id();
            server.dropNextMultiReply(proxy::refuse);
            Future<Object> call = caller.submit(ending);
            Awaits.until("the ending's reply was lost", Duration.ofSeconds(15), () -> server.droppedReplies() == 1);
            Awaits.until("the server ended the consumer's session", Duration.ofSeconds(15),
                    () -> consumer.session().id() != session || consumer.session().state().isTerminal());
            proxy.accept();
            Object outcome = outcome(call);
            // The documented contract for an ending that says ConnectionLostException: call it again.
            // The first call's look at the task may itself have found no connection yet (a loaded
            // machine reconnects late), so it asks to be called again; the outcome is what a later
            // call finds out, and that is what is checked.
            long deadline = System.nanoTime() + Awaits.scaled(Duration.ofSeconds(30)).toNanos();
            while (outcome instanceof io.coord.ConnectionLostException && System.nanoTime() < deadline) {
                outcome = outcome(caller.submit(ending));
            }
            return outcome;
        } finally {
            caller.shutdownNow();
            assertTrue(caller.awaitTermination(Awaits.scaled(Duration.ofSeconds(10)).toMillis(), TimeUnit.MILLISECONDS));
        }
    }

    private static Object outcome(Future<Object> call) throws Exception {
        try {
            return call.get(Awaits.scaled(Duration.ofSeconds(30)).toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            return e.getCause();
        }
    }

    private static CoordClient shortSessionVia(ClientProxy proxy) throws InterruptedException {
        return clientVia(proxy, Duration.ofSeconds(2));
    }

    private static CoordClient clientVia(ClientProxy proxy, Duration session) throws InterruptedException {
        return CoordClient.connect(CoordSettings.builder().connectString(proxy.connectString())
                .sessionTimeout(session).connectionTimeout(Duration.ofSeconds(10)).build());
    }

    /**
     * Issues 14 and 15: the completion commits, its reply is lost, and the consumer's session ends
     * before it is back. Curator's retry on the new session was refused at the claim (gone with the
     * old session) and reported {@link ClaimLostException}, a committed completion as refused. Sent
     * once, the completion is settled by a look at the task: gone, and nothing tells whether this
     * completion or another consumer's (after a takeover) deleted it, so the outcome is reported
     * unknown, and said so.
     */
    @Test
    void aCompletionWhoseReplyWasLostAndWhoseSessionThenEndedIsReportedUnknownNotRefused() throws Exception {
        try (ClientProxy proxy = ClientProxy.to(server.connectString());
             CoordClient consumer = shortSessionVia(proxy);
             TaskQueue<Job> consumerQueue = TaskQueue.open(consumer, "jobs", io.coord.Codec.json(Job.class), QueueOptions.defaults())) {
            TaskId id = queue.enqueue(new Job("done-then-expired", 1));
            TaskClaim<Job> claim = consumerQueue.claim(Awaits.scaled(Duration.ofSeconds(15))).orElseThrow();
            Object outcome = endingWhoseReplyWasLostAndWhoseSessionThenEnded(proxy, consumer, () -> {
                claim.completeWith(List.of(consumer.curator().transactionOp().create().withMode(CreateMode.PERSISTENT_SEQUENTIAL)
                        .forPath("/records/" + id.name() + "-")));
                return "returned";
            });
            assertInstanceOf(OutcomeUnknownException.class, outcome, "not refused: it may well have committed");
            assertTrue(((Throwable) outcome).getMessage().contains("unknown"), ((Throwable) outcome).getMessage());
            assertEquals(io.coord.LeaseState.LOST, claim.state(), "the claim is over: its session is");
            assertThrows(OutcomeUnknownException.class, claim::complete, "a second call says the same");
            assertEquals(1, client.curator().getChildren().forPath("/records").size(), "completed exactly once");
            assertTrue(queue.tasks().isEmpty(), "the task is gone: " + queue.tasks());
        }
    }

    /**
     * The same for a failure: it commits, its reply is lost, the session ends. The task then sits
     * one version past the claim with no claim named, which only this failure can have written, so
     * the failure is reported done (PENDING, the attempt counted once), not refused.
     */
    @Test
    void aFailureWhoseReplyWasLostAndWhoseSessionThenEndedIsReportedDone() throws Exception {
        try (ClientProxy proxy = ClientProxy.to(server.connectString());
             CoordClient consumer = shortSessionVia(proxy);
             TaskQueue<Job> consumerQueue = TaskQueue.open(consumer, "jobs", io.coord.Codec.json(Job.class),
                     QueueOptions.builder().maxRetries(3).backoff(Duration.ofMinutes(5), Duration.ofMinutes(5)).build())) {
            TaskId id = queue.enqueue(new Job("failed-then-expired", 1));
            TaskClaim<Job> claim = consumerQueue.claim(Awaits.scaled(Duration.ofSeconds(15))).orElseThrow();
            Object outcome = endingWhoseReplyWasLostAndWhoseSessionThenEnded(proxy, consumer, () -> claim.fail("boom"));
            assertEquals(Task.State.PENDING, outcome, "the failure committed before the session ended");
            List<Task<Job>> tasks = queue.tasks();
            assertEquals(1, tasks.size(), tasks.toString());
            assertEquals(id, tasks.get(0).id());
            assertEquals(1, tasks.get(0).attempts(), "one attempt counted");
        }
    }
}
