package io.coord.queue;

import io.coord.Codec;
import io.coord.CoordClient;
import io.coord.CoordPath;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;

/**
 * A FIFO task queue in ZooKeeper that loses nothing: producers enqueue JSON payloads, consumers
 * claim them, and each task is completed exactly once, retried with backoff after failures, or
 * moved to the dead letters with its last error. See the package documentation for the node
 * layout and the guarantees.
 *
 * <pre>{@code
 * try (TaskQueue<Job> queue = TaskQueue.open(client, "jobs", Job.class)) {
 *     queue.enqueue(new Job("resize", 42));
 *     try (TaskWorker worker = queue.work(4, claim -> resize(claim.payload()))) {
 *         ...
 *     }
 * }
 * }</pre>
 *
 * <p>Thread-safe. One instance per process and queue is enough: its consumers share one watched
 * cache of the queue. {@link #close()} stops that cache; claims still open stay valid until they
 * are ended or their session ends.
 */
public interface TaskQueue<T> extends AutoCloseable {
    /** The queue {@code /queues/{name}} with payloads of {@code type} and default options. */
    static <T> TaskQueue<T> open(CoordClient client, String name, Class<T> type) {
        return open(client, name, Codec.json(type), QueueOptions.defaults());
    }

    /**
     * The queue {@code /queues/{name}}, created if missing. Payloads are encoded with
     * {@code payloadCodec}, limited to {@link QueueOptions#maxTaskBytes()} (which replaces the
     * codec's own limit). {@code name} is one path segment.
     */
    static <T> TaskQueue<T> open(CoordClient client, String name, Codec<T> payloadCodec, QueueOptions options) {
        CoordPath.validateName(name);
        return ZkTaskQueue.open(client, name, payloadCodec, options);
    }

    String name();

    QueueOptions options();

    /**
     * Adds a task at the back of lane 0. Refused before anything is written, with
     * {@link TaskRejectedException}, if the payload cannot be serialized or is over the size
     * limit; {@link QueueFullException} at the depth cap. A
     * {@link io.coord.ConnectionLostException} is indeterminate: the task may have been added;
     * use an idempotency key if a retry must not add it twice.
     */
    default TaskId enqueue(T payload) {
        return enqueue(payload, TaskSpec.defaults());
    }

    /**
     * Adds a task unless one with {@code idempotencyKey} is pending or processing, or completed
     * within the idempotency window ({@link QueueOptions#idempotencyWindow()}), in which case
     * nothing is written and that task's id is returned. Safe to retry after a
     * {@link io.coord.ConnectionLostException}: the retry finds the task the first call added,
     * even if it is already done. {@link #submit} also says which of these happened.
     */
    default TaskId enqueue(T payload, String idempotencyKey) {
        java.util.Objects.requireNonNull(idempotencyKey, "idempotencyKey");
        return enqueue(payload, TaskSpec.defaults().idempotencyKey(idempotencyKey));
    }

    /** Adds a task that is not handed out before {@code notBefore}. */
    default TaskId enqueue(T payload, Instant notBefore) {
        java.util.Objects.requireNonNull(notBefore, "notBefore");
        return enqueue(payload, TaskSpec.defaults().notBefore(notBefore));
    }

    /** Adds a task as {@code spec} says (lane, delay, idempotency key, retries). */
    default TaskId enqueue(T payload, TaskSpec spec) {
        return submit(payload, spec).id();
    }

    /**
     * {@link #enqueue(Object, TaskSpec)}, saying what happened: {@code ADDED} by this call,
     * {@code ALREADY_QUEUED} (a task with the spec's key is pending or processing) or
     * {@code ALREADY_COMPLETED} (a task with that key completed within the idempotency window),
     * each with the task's id. A retry after a lost reply gets the original id and one of these,
     * never a duplicate; only a task whose key is gone (unkeyed, dead-lettered, or completed
     * before the window) leaves a lost reply indeterminate ({@link io.coord.ConnectionLostException}).
     */
    EnqueueResult submit(T payload, TaskSpec spec);

    /**
     * {@link #enqueue(Object)} without blocking: the future completes on
     * {@link java.util.concurrent.ForkJoinPool#commonPool()}. See {@link #enqueueAsync(Object, TaskSpec, Executor)}.
     */
    default CompletableFuture<EnqueueResult> enqueueAsync(T payload) {
        return enqueueAsync(payload, TaskSpec.defaults(), ForkJoinPool.commonPool());
    }

    /** {@link #enqueue(Object, String)} without blocking, completing on the common pool: see {@link #enqueueAsync(Object, TaskSpec, Executor)}. */
    default CompletableFuture<EnqueueResult> enqueueAsync(T payload, String idempotencyKey) {
        java.util.Objects.requireNonNull(idempotencyKey, "idempotencyKey");
        return enqueueAsync(payload, TaskSpec.defaults().idempotencyKey(idempotencyKey), ForkJoinPool.commonPool());
    }

    /** {@link #submit} without blocking, completing on the common pool: see {@link #enqueueAsync(Object, TaskSpec, Executor)}. */
    default CompletableFuture<EnqueueResult> enqueueAsync(T payload, TaskSpec spec) {
        return enqueueAsync(payload, spec, ForkJoinPool.commonPool());
    }

    /**
     * {@link #submit} without blocking, with the same write and the same guarantees: the create is
     * sent with ZooKeeper's async API and no thread waits for it, so many calls may be in flight on
     * one session (that is where the speed is). Calls made one after another (from one thread, or
     * ordered by the caller) are sent in that order, so their tasks get increasing sequence numbers
     * and consumers see them in that order within a lane (per partition of a partitioned queue).
     * <ul>
     *   <li>The future completes on {@code executor}, never on ZooKeeper's or Coord's event thread
     *       (an executor that refuses the task: on the common pool), with what {@link #submit}
     *       returns.
     *   <li>Refusals fail the future with the sync call's exception, nothing written:
     *       {@link TaskRejectedException} (serialization, size limit, lane), {@link QueueFullException}
     *       (the depth cap; the depth is re-read in the background when due, and calls made
     *       meanwhile wait for it without a thread). A null {@code spec} or {@code executor} throws
     *       {@link NullPointerException} at once.
     *   <li>Idempotency keys hold as in {@link #submit}: a keyed call whose key exists gets the
     *       task's id and {@code ALREADY_QUEUED} or {@code ALREADY_COMPLETED}; a lost reply is
     *       settled by looking for the key (or, unkeyed, for the task's unique name) and fails the
     *       future with {@link io.coord.ConnectionLostException} only where the sync call throws it.
     *       These looks are reads, run on the client's callback thread.
     *   <li>Cancelling the future (or completing it yourself) withdraws the task: before the create
     *       is sent, nothing is sent; after, once its reply lands, the task (and its key) is deleted
     *       if no consumer has claimed it yet, so a cancel that wins leaves no node behind. A
     *       consumer that claimed it first keeps it and processes it. A future already completed
     *       ignores the cancel. A cancelled call's task may have been visible to consumers until the
     *       delete.
     * </ul>
     */
    CompletableFuture<EnqueueResult> enqueueAsync(T payload, TaskSpec spec, Executor executor);

    /**
     * Adds all of {@code batch} in one transaction: all or nothing. Every payload is checked
     * first, and the whole batch against the transaction size limit and the depth cap; a refusal
     * writes nothing. Ids come back in batch order.
     */
    default List<TaskId> enqueueAll(List<? extends T> batch) {
        return enqueueAll(batch, TaskSpec.defaults());
    }

    /** {@link #enqueueAll(List)} with one spec for every task; the spec may not carry an idempotency key. */
    List<TaskId> enqueueAll(List<? extends T> batch, TaskSpec spec);

    /**
     * Claims the first ready task (highest lane, lowest sequence; delayed tasks and tasks in a
     * retry backoff wait), waiting up to {@code timeout} for one. Empty if none became ready in
     * time. The first call starts this instance's watched cache of the queue; no call lists the
     * whole queue.
     *
     * <p>On SUSPENDED it keeps waiting within {@code timeout}; claims made before stay as the
     * lease rules say.
     *
     * @throws InterruptedException if interrupted while waiting (no claim is left behind)
     */
    Optional<TaskClaim<T>> claim(Duration timeout) throws InterruptedException;

    /**
     * {@link #claim} without a waiting thread, completing on {@link java.util.concurrent.ForkJoinPool#commonPool()}:
     * see {@link #claimAsync(Duration, Executor)}.
     */
    default CompletableFuture<TaskClaim<T>> claimAsync(Duration timeout) {
        return claimAsync(timeout, ForkJoinPool.commonPool());
    }

    /**
     * {@link #claim} without a waiting thread: the future completes with a claim on the first ready
     * task (the same choice and the same claim transaction as {@code claim}), on {@code executor},
     * never on ZooKeeper's or Coord's event thread. While no task is ready the call is an entry in
     * this instance's watched cache, woken by its changes (and by a timer for delays, backoffs and
     * claim timeouts); each wake-up tries once on the client's callback thread. The first call
     * starts the watched cache, on the calling thread, as {@code claim} does.
     * <ul>
     *   <li>No task claimed within {@code timeout} (on {@link System#nanoTime()} from this call):
     *       fails with {@link io.coord.CoordTimeoutException}; nothing is held.
     *   <li>Cancelling the future (or completing it yourself) withdraws the waiter at once. A claim
     *       that landed in a race with the cancel is released at once: the task is claimable again
     *       right away (no claim timeout, no session end to wait for), attempts unchanged.
     *   <li>The connection SUSPENDED or the session ended while waiting: the wait goes on (nothing is
     *       held while waiting; a claim is made on the session of the moment). A claim already
     *       delivered follows the lease rules: its session's end frees the task for other consumers
     *       and its endings ({@link TaskClaim#completeAsync}) fail with {@link ClaimLostException}.
     *   <li>The queue closed while waiting: fails with {@link IllegalStateException}. Other failures
     *       as {@code claim} throws them.
     * </ul>
     * A null {@code timeout} or {@code executor} throws {@link NullPointerException}, a negative
     * timeout {@link IllegalArgumentException}, a closed queue {@link IllegalStateException}, at once.
     */
    CompletableFuture<TaskClaim<T>> claimAsync(Duration timeout, Executor executor);

    /** Starts {@code concurrency} consumer threads running {@code handler}; see {@link TaskWorker}. */
    TaskWorker work(int concurrency, TaskWorker.Handler<T> handler);

    /**
     * Counts, claims with owner and age, the oldest pending age, and the task nodes that cannot be
     * decoded. Reads the whole queue: an operator call. A bad node does not make it fail.
     */
    QueueStats stats();

    /**
     * Every pending and processing task, by lane (highest first) then sequence; task nodes that
     * cannot be decoded are in {@link TaskList#undecodable()}, with their bytes and why. An
     * operator call.
     */
    TaskList<T> tasks();

    /**
     * Every dead letter, by sequence; dead letters that cannot be decoded (a task that could not
     * be, or a payload not of this queue's type) are in {@link TaskList#undecodable()}, with their
     * bytes and why. An operator call.
     */
    TaskList<T> deadLetters();

    /**
     * Moves one dead letter back to the queue as a new task (at the back of its lane, attempts
     * reset), in one transaction. Returns the new id. Throws {@link io.coord.ConflictException} if
     * its idempotency key is held by another live task or remembered as completed within the
     * idempotency window (nothing changed), {@link io.coord.NoParentException} if there is no such
     * dead letter, and {@link io.coord.CodecException} naming it if its bytes are not a task record
     * (nothing changed: repair them first).
     */
    TaskId requeue(TaskId deadLetter);

    /** Requeues every dead letter; returns how many. One whose bytes are not a task record stays (logged at WARN). */
    int requeueAll();

    /** Deletes every dead letter; returns how many. */
    int purgeDeadLetters();

    /** Stops this instance's cache and metrics. Does not touch tasks or open claims. Idempotent. */
    @Override
    void close();
}
