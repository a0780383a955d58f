package io.coord.queue;

import io.coord.CoordException;
import io.coord.CoordPath;
import io.coord.internal.Payloads;
import io.coord.internal.Zk;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One {@link TaskQueue#enqueueAsync}: the same write as the sync enqueue ({@link Enqueuer}), sent
 * with ZooKeeper's async API, so no thread waits for it and many are in flight on one session.
 * <ul>
 *   <li>Built on the calling thread: the record is encoded (once) and the create (unkeyed: one plain
 *       create named with a unique id, {@link Zk#createOnceAsync}; keyed: the key and the task in one
 *       transaction) is prepared; a refusal
 *       (serialization, size, lane) fails the future before anything is sent.
 *   <li>Sent in call order through {@link Enqueuer#admit}, which applies the depth cap (a depth read,
 *       when due, is itself a background request) and sends under its lock.
 *   <li>Answered on ZooKeeper's event thread, where it only decides and hands the outcome to the
 *       caller's executor in one hop (no intermediate future). The rare answers that need
 *       reads to settle (a lost reply, a keyed call whose key exists) are settled by the sync code on
 *       the client's callback thread, never on the event thread or the caller's executor.
 *   <li>Delivered on the caller's executor. A caller's future that is already done then (cancelled,
 *       or completed by the caller) withdraws the task this call added: it is deleted (with its key)
 *       at the version it was created with, so a consumer that has claimed it meanwhile keeps it;
 *       a call cancelled before it was sent sends nothing.
 * </ul>
 */
final class AsyncEnqueue<T> {
    private static final Logger LOG = LoggerFactory.getLogger(AsyncEnqueue.class);

    private final ZkTaskQueue<T> queue;
    private final Enqueuer<T> enqueuer;
    private final Zk zk;
    private final T payload;
    private final TaskSpec spec;
    /** Unkeyed: the unique name prefix of its one create; null for a keyed call. */
    private final String prefix;
    /** Keyed: the caller's key node; null for an unkeyed call. */
    private final CoordPath keyPath;
    private final List<CuratorOp> ops;
    private final CompletableFuture<EnqueueResult> caller;
    private final Executor executor;
    /** Whether the task of the result was added by this call (and so is this call's to withdraw). */
    private volatile boolean addedHere;

    private AsyncEnqueue(ZkTaskQueue<T> queue, Enqueuer<T> enqueuer, T payload, TaskSpec spec, CompletableFuture<EnqueueResult> caller,
                         Executor executor) {
        this.queue = queue;
        this.enqueuer = enqueuer;
        this.zk = queue.zk;
        this.payload = payload;
        this.spec = spec;
        this.caller = caller;
        this.executor = executor;
        QueueLayout layout = queue.layout;
        if (spec.idempotencyKey() == null) {
            this.prefix = layout.unkeyedPrefix();
            this.keyPath = null;
            byte[] data = queue.codec.encode(layout.tasks, enqueuer.prepare(payload, spec, null));
            // One plain create, not a transaction; no size check: the record codec's limit keeps it under the request limit.
            this.ops = List.of(enqueuer.createTask(prefix, data));
        } else {
            this.prefix = null;
            TaskRecord record = enqueuer.prepare(payload, spec, Enqueuer.keyNode(spec));
            byte[] data = queue.codec.encode(layout.tasks, record);
            this.keyPath = layout.key(record.key());
            this.ops = List.of(enqueuer.createKey(keyPath), enqueuer.createTask(layout.taskPrefix, data));
            Payloads.checkTransaction(ops, Payloads.TRANSACTION_LIMIT); // as the sync send checks it
        }
    }

    /** Starts one async enqueue; the returned future completes on {@code executor}. */
    static <T> CompletableFuture<EnqueueResult> start(ZkTaskQueue<T> queue, Enqueuer<T> enqueuer, T payload, TaskSpec spec,
                                                      Executor executor) {
        CompletableFuture<EnqueueResult> caller = new CompletableFuture<>();
        AsyncEnqueue<T> call;
        try {
            call = new AsyncEnqueue<>(queue, enqueuer, payload, spec, caller, executor);
        } catch (RuntimeException refused) {
            caller.completeExceptionally(refused); // the sync call's refusal, before anything is sent
            return caller;
        }
        if (call.keyPath != null) {
            enqueuer.sweepKeysInBackground();
        }
        enqueuer.admit(call);
        return caller;
    }

    /** Sends the create (in call order: under the enqueuer's lock); a call already cancelled sends nothing. */
    void send() {
        if (caller.isDone()) {
            return; // nothing sent: nothing to deliver or withdraw
        }
        try {
            if (keyPath == null) {
                zk.createOnceAsync(queue.layout.tasks, ops.get(0), this::created);
            } else {
                zk.multiOnceAsync(queue.layout.tasks, ops).whenComplete(this::answered);
            }
        } catch (RuntimeException e) {
            fail(e);
        }
    }

    /** On ZooKeeper's event thread, for an unkeyed call's one create: decide, never block; one hop to the caller. */
    private void created(KeeperException.Code code, String path) {
        if (code == KeeperException.Code.OK) {
            added(Enqueuer.idOf(path));
        } else {
            failed(code);
        }
    }

    private void added(TaskId id) {
        addedHere = true;
        queue.metrics.enqueued(1);
        deliver(new EnqueueResult(id, EnqueueResult.Outcome.ADDED), null);
    }

    private void fail(Throwable error) {
        deliver(null, error);
    }

    /** Whether the caller's future is done before the send: then nothing is sent. */
    boolean cancelled() {
        return caller.isDone();
    }

    /** Refused before sending (the depth cap, the depth read failed). */
    void refuse(CoordException why) {
        fail(why);
    }

    /** On ZooKeeper's event thread: decide, never block. */
    private void answered(Zk.MultiAnswer answer, Throwable error) {
        if (error != null) {
            fail(error);
            return;
        }
        KeeperException.Code code = answer.code();
        if (code == KeeperException.Code.OK) {
            TaskId id = Enqueuer.idOf(answer.results().get(ops.size() - 1));
            enqueuer.recordTaskInKeyInBackground(keyPath, id);
            added(id);
            return;
        }
        failed(code);
    }

    /** On ZooKeeper's event thread: a send that did not add the task; the rare cases that need reads are settled off it. */
    private void failed(KeeperException.Code code) {
        KeeperException e = KeeperException.create(code, queue.layout.tasks.value());
        if (Zk.indeterminate(e)) {
            settleOffEventThread(() -> keyPath == null ? enqueuer.recoverUnkeyed(prefix, e) : enqueuer.recoverKeyed(keyPath, spec, e));
        } else if (keyPath != null && code == KeeperException.Code.NODEEXISTS) {
            // The key exists: the sync path finds its task (or its completion) and adds ours if the key was freed meanwhile.
            settleOffEventThread(() -> enqueuer.enqueue(payload, spec));
        } else {
            fail(zk.translate(e, queue.layout.tasks));
        }
    }

    /** Runs a blocking settlement on the client's callback thread; ADDED there means this call's task. */
    private void settleOffEventThread(java.util.function.Supplier<EnqueueResult> settle) {
        Runnable run = () -> {
            try {
                EnqueueResult result = settle.get();
                addedHere = result.outcome() == EnqueueResult.Outcome.ADDED;
                deliver(result, null);
            } catch (RuntimeException e) {
                fail(e);
            }
        };
        try {
            zk.callbacks().execute(run);
        } catch (RejectedExecutionException closed) {
            fail(new IllegalStateException("the client of queue '" + queue.layout.name
                    + "' is closed: the reply to an enqueue was lost and cannot be looked into", closed));
        }
    }

    /** On the caller's executor: completes the caller's future; one that was done already withdraws what this call added. */
    private void deliver(EnqueueResult result, Throwable error) {
        Handoff.toCaller(executor, () -> {
            boolean taken = error != null ? caller.completeExceptionally(unwrap(error)) : caller.complete(result);
            if (!taken && error == null && addedHere) {
                zk.offEventThread(() -> withdraw(result.id()));
            }
        });
    }

    /**
     * Deletes the task this cancelled call added, with its key, at version 0 (as created): a consumer
     * that claimed it first (version 1 on) keeps it and the delete changes nothing.
     */
    private void withdraw(TaskId id) {
        CoordPath task = queue.layout.task(id.name());
        try {
            if (keyPath == null) {
                zk.curator().delete().guaranteed().withVersion(0).inBackground((c, event) -> withdrawn(id, event.getResultCode()))
                        .forPath(task.value());
            } else {
                List<CuratorOp> delete = List.of(
                        zk.op(task, () -> zk.curator().transactionOp().delete().withVersion(0).forPath(task.value())),
                        zk.op(keyPath, () -> zk.curator().transactionOp().delete().forPath(keyPath.value())));
                zk.curator().transaction().inBackground((c, event) -> withdrawn(id, event.getResultCode())).forOperations(delete);
            }
        } catch (Exception e) {
            LOG.warn("could not withdraw task {} of queue '{}' after its enqueue was cancelled; it stays queued",
                    id, queue.layout.name, e);
        }
    }

    private void withdrawn(TaskId id, int rc) {
        if (rc == KeeperException.Code.OK.intValue()) {
            LOG.debug("task {} of queue '{}' withdrawn: its enqueue was cancelled", id, queue.layout.name);
        } else {
            LOG.info("task {} of queue '{}' was not withdrawn after its enqueue was cancelled ({}): a consumer claimed it first",
                    id, queue.layout.name, KeeperException.Code.get(rc));
        }
    }

    private static Throwable unwrap(Throwable error) {
        return error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    }
}
