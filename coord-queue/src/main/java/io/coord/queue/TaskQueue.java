package io.coord.queue;

import io.coord.Codec;
import io.coord.CoordClient;
import io.coord.CoordPath;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

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
