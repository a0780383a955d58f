package io.coord.queue;

import com.fasterxml.jackson.databind.JsonNode;
import io.coord.ConnectionLostException;
import io.coord.CoordException;
import io.coord.CoordPath;
import io.coord.TooManyChildrenException;
import io.coord.ValueTooLargeException;
import io.coord.internal.Payloads;
import io.coord.internal.SequentialNodes;
import io.coord.internal.Zk;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Adding tasks. A single unkeyed task is one create whose name carries a unique id
 * ({@link #enqueueUnkeyed}). Every other task (keyed, or in a batch) comes with a key node,
 * created in the same transaction:
 * <pre>
 * multi( create keys/{k-key | a-uuid},  create tasks/task- PERSISTENT_SEQUENTIAL )
 * </pre>
 * An automatic key ({@code a-…}) exists exactly while its task does; a caller key while its task
 * does and then, rewritten by the completion's own transaction, as a completed record for the
 * idempotency window ({@link KeyWindow}); dead-lettering deletes it. So a second enqueue with the
 * same caller key fails at the key and does nothing, and the key node says whether the task it
 * names is still queued or already completed.
 *
 * <p>The transaction is sent exactly once ({@link Txn#commitOnce}), never retried by Curator: a
 * retry after a lost reply would fail at its own key only while the task still exists, and once a
 * fast consumer has completed it (deleting the key) the retry would add it a second time — one
 * acknowledged enqueue, two tasks (found by the chaos suite). After a lost reply the enqueue
 * reconnects and looks for its key instead: found, the task is returned (it has the key's czxid,
 * same transaction, and the newest tasks are checked first), or for a caller key the completed
 * task it remembers; gone, the outcome is unknown and the caller gets
 * {@link ConnectionLostException} — its task may have been added, and even done (an unkeyed task,
 * or a dead-lettered one).
 */
final class Enqueuer<T> {
    private static final Logger LOG = LoggerFactory.getLogger(Enqueuer.class);

    /** Below half the depth cap, the depth is read again after this many enqueues of this instance. */
    static final int REREAD_EVERY = 100;

    private final ZkTaskQueue<T> queue;
    private final Zk zk;
    private final QueueLayout layout;
    private final Object depthLock = new Object();
    /** Depth at the last read plus this instance's enqueues since; -1 before the first read. */
    private long knownDepth = -1;
    private int sinceRead;
    /** Async enqueues waiting for the depth read in flight, in the order they were made. Guarded by {@link #depthLock}. */
    private final java.util.ArrayDeque<AsyncEnqueue<T>> waitingForDepth = new java.util.ArrayDeque<>();
    private boolean depthReadInFlight;
    /**
     * An async producer's re-read that calls do not wait for (below half the cap): sent when
     * {@value #REREAD_EVERY} calls were counted since the last read, while calls keep being sent
     * (at most {@value #REREAD_EVERY} more) so the pipeline never drains for it. Guarded by
     * {@link #depthLock}, as are the two counters below.
     */
    private boolean refreshInFlight;
    /** Calls sent after the refresh read was sent: ZooKeeper answers it before they apply, so they come on top of its count. */
    private int sentSinceRefresh;
    /** Bumped by every read that waits (sync or async): a refresh sent before one of them is stale when it answers. */
    private long readGeneration;
    private final java.util.concurrent.atomic.AtomicBoolean sweepQueued = new java.util.concurrent.atomic.AtomicBoolean();

    Enqueuer(ZkTaskQueue<T> queue) {
        this.queue = queue;
        this.zk = queue.zk;
        this.layout = queue.layout;
    }

    EnqueueResult enqueue(T payload, TaskSpec spec) {
        if (spec.idempotencyKey() == null) {
            return enqueueUnkeyed(payload, spec);
        }
        TaskRecord record = prepare(payload, spec, keyNode(spec));
        byte[] data = queue.codec.encode(layout.tasks, record);
        CoordPath keyPath = layout.key(record.key());
        boolean keyed = spec.idempotencyKey() != null;
        if (keyed) {
            queue.keyWindow.sweepIfDue();
        }
        for (int round = 0; ; round++) {
            checkCap(1);
            List<CuratorOp> ops = List.of(createKey(keyPath), createTask(data));
            try {
                List<OpResult> results = Txn.commitOnce(zk, layout.tasks, ops);
                TaskId id = idOf(results.get(1));
                if (keyed) {
                    recordTaskInKey(keyPath, id);
                }
                queue.metrics.enqueued(1);
                return new EnqueueResult(id, EnqueueResult.Outcome.ADDED);
            } catch (KeeperException e) {
                if (Txn.indeterminate(e)) {
                    return afterLostReply(keyPath, spec, e);
                }
                if (Txn.failedIndex(e) == 0 && e.code() == KeeperException.Code.NODEEXISTS) {
                    Optional<Found> existing = findByKey(keyPath);
                    if (existing.isPresent() && existing.get().completed()
                            && queue.keyWindow.forgetIfExpired(keyPath, existing.get().keyStat())) {
                        existing = Optional.empty(); // remembered past the window: forgotten now, the key is free
                    }
                    if (existing.isPresent()) {
                        if (keyed) {
                            queue.metrics.duplicate();
                            return existing.get().result();
                        }
                        queue.metrics.enqueued(1); // our own earlier try committed
                        return new EnqueueResult(existing.get().id(), EnqueueResult.Outcome.ADDED);
                    }
                    if (round < 3) {
                        continue; // the keyed task ended, or its completion was forgotten, meanwhile: add ours
                    }
                }
                throw zk.translate(e, layout.tasks);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CoordException("interrupted while enqueueing to " + layout.tasks
                        + "; the task may or may not have been added", e);
            }
        }
    }

    /**
     * One create, sent once: {@code tasks/task-{unique}-} PERSISTENT_SEQUENTIAL, with no key node
     * (a plain {@code create}, not a transaction: {@link Zk#createOnce}).
     * The unique part ({@link QueueLayout#unkeyedPrefix}) is what Curator's protected mode puts in
     * a name: after a lost reply the enqueue lists {@code tasks/} (only then) and finds its own node
     * by it, so recovery is as exact as with a key node (found: ours, added once; gone: never added,
     * or added and already done, which nothing can tell apart for an unkeyed task), at the cost of
     * one create instead of a two-op transaction.
     */
    private EnqueueResult enqueueUnkeyed(T payload, TaskSpec spec) {
        byte[] data = queue.codec.encode(layout.tasks, prepare(payload, spec, null));
        String prefix = layout.unkeyedPrefix();
        checkCap(1);
        try {
            // A plain create, not a one-op multi; no size check: the record codec's limit keeps it under the request limit.
            String created = zk.createOnce(layout.tasks, createTask(prefix, data));
            queue.metrics.enqueued(1);
            return new EnqueueResult(idOf(created), EnqueueResult.Outcome.ADDED);
        } catch (KeeperException e) {
            if (!Txn.indeterminate(e)) {
                throw zk.translate(e, layout.tasks);
            }
            return recoverUnkeyed(prefix, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CoordException("interrupted while enqueueing to " + layout.tasks
                    + "; the task may or may not have been added", e);
        }
    }

    /** {@link TaskQueue#enqueueAsync}: see {@link AsyncEnqueue}. */
    java.util.concurrent.CompletableFuture<EnqueueResult> enqueueAsync(T payload, TaskSpec spec, java.util.concurrent.Executor executor) {
        return AsyncEnqueue.start(queue, this, payload, spec, executor);
    }

    /** After a lost reply only: the task whose name starts with {@code prefix} (one listing), if it is there. */
    private Optional<TaskId> findByPrefix(String prefix) {
        List<String> names = zk.callUninterruptibly(layout.tasks, () -> zk.curator().getChildren().forPath(layout.tasks.value()));
        return names.stream().filter(n -> n.startsWith(prefix) && QueueLayout.isTaskName(n)).findFirst().map(TaskId::new);
    }

    List<TaskId> enqueueAll(List<? extends T> batch, TaskSpec spec) {
        if (spec.idempotencyKey() != null) {
            throw new TaskRejectedException("enqueueAll takes no idempotency key (one key names one task); got \""
                    + spec.idempotencyKey() + "\"");
        }
        if (batch.isEmpty()) {
            return List.of();
        }
        List<CuratorOp> ops = new ArrayList<>(batch.size() * 2);
        CoordPath firstKey = null;
        for (T payload : batch) {
            TaskRecord record = prepare(payload, spec, keyNode(spec));
            byte[] data = queue.codec.encode(layout.tasks, record);
            if (firstKey == null) {
                firstKey = layout.key(record.key());
            }
            ops.add(createKey(layout.key(record.key())));
            ops.add(createTask(data));
        }
        try {
            Payloads.checkTransaction(ops, Payloads.TRANSACTION_LIMIT);
        } catch (ValueTooLargeException e) {
            throw new TaskRejectedException("batch of " + batch.size() + " tasks for queue '" + layout.name + "' is "
                    + e.size() + " bytes as one transaction, over the limit of " + e.limit()
                    + " bytes; nothing was written (split it)", e);
        }
        checkCap(batch.size());
        try {
            List<OpResult> results = Txn.commitOnce(zk, layout.tasks, ops);
            List<TaskId> ids = new ArrayList<>(batch.size());
            for (int i = 1; i < results.size(); i += 2) {
                ids.add(idOf(results.get(i)));
            }
            queue.metrics.enqueued(ids.size());
            return ids;
        } catch (KeeperException e) {
            if (Txn.indeterminate(e)) {
                // Fresh random keys: only our own transaction can have made the first one.
                awaitConnection(e);
                Stat key = existsOrNull(firstKey);
                if (key != null) {
                    List<TaskId> ids = findByCzxid(key.getCzxid(), batch.size());
                    if (ids.size() == batch.size()) {
                        queue.metrics.enqueued(ids.size());
                        return ids;
                    }
                }
                throw new ConnectionLostException("the reply to a batch of " + batch.size() + " tasks for queue '"
                        + layout.name + "' was lost and its tasks are not (all) there now: all of them may have been"
                        + " added, and some already done, or none (" + e.code() + ")", e);
            }
            throw zk.translate(e, layout.tasks);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CoordException("interrupted while enqueueing a batch to " + layout.tasks
                    + "; all or none of it may have been added", e);
        }
    }

    TaskRecord prepare(T payload, TaskSpec spec, String keyNode) {
        if (spec.lane() >= queue.options.lanes()) {
            throw new TaskRejectedException("lane " + spec.lane() + " does not exist: queue '" + layout.name + "' has "
                    + queue.options.lanes() + " lane(s), 0.." + (queue.options.lanes() - 1));
        }
        JsonNode tree = queue.codec.encodePayload(layout.tasks, payload);
        Instant notBefore = spec.notBefore();
        int maxRetries = spec.maxRetries() == null ? queue.options.maxRetries() : spec.maxRetries();
        return TaskRecord.fresh(tree, spec.lane(), queue.options.clock().millis(),
                notBefore == null ? null : notBefore.toEpochMilli(), maxRetries, keyNode);
    }

    static String keyNode(TaskSpec spec) {
        return spec.idempotencyKey() != null ? QueueLayout.USER_KEY_PREFIX + spec.idempotencyKey()
                : QueueLayout.AUTO_KEY_PREFIX + UUID.randomUUID();
    }

    /** Builds the op (never waits: allowed on any thread, as an async enqueue's caller may be on one). */
    CuratorOp createKey(CoordPath keyPath) {
        return zk.op(keyPath, () -> zk.curator().transactionOp().create().forPath(keyPath.value(), new byte[0]));
    }

    private CuratorOp createTask(byte[] data) {
        return createTask(layout.taskPrefix, data);
    }

    CuratorOp createTask(String namePrefix, byte[] data) {
        CoordPath prefix = layout.task(namePrefix);
        return zk.op(prefix, () -> zk.curator().transactionOp().create().withMode(CreateMode.PERSISTENT_SEQUENTIAL)
                .forPath(prefix.value(), data));
    }

    /**
     * The enqueue transaction may or may not have committed. Its key says: if it exists, the task
     * holding it is returned (ours, or for a caller key a pending task with the same key — what a
     * duplicate enqueue returns anyway), or for a caller key the completed task it remembers. If
     * not (an unkeyed task that is done, a dead-lettered one), nothing can tell "never added" from
     * "added and already done", so the caller is told the outcome is unknown.
     */
    private EnqueueResult afterLostReply(CoordPath keyPath, TaskSpec spec, KeeperException lost) {
        awaitConnection(lost);
        Optional<Found> existing = findByKey(keyPath);
        if (existing.isPresent()) {
            queue.metrics.enqueued(1);
            Found found = existing.get();
            // Ours, or for a caller key possibly an earlier call's (nothing tells them apart): still
            // queued, or completed meanwhile (the window remembers it).
            return new EnqueueResult(found.id(), found.completed() ? EnqueueResult.Outcome.ALREADY_COMPLETED
                    : EnqueueResult.Outcome.ADDED);
        }
        String which = spec.idempotencyKey() == null ? "a task" : "the task with key \"" + spec.idempotencyKey() + "\"";
        throw new ConnectionLostException("the reply to enqueueing " + which + " to queue '" + layout.name
                + "' was lost and its key is gone now: it may never have been added, or been added and already done ("
                + lost.code() + "); enqueueing again with the same key adds it unless it is still queued or remembered as completed", lost);
    }

    /** After a lost reply: wait (at most the connection timeout) until the client is connected again. */
    private void awaitConnection(KeeperException lost) {
        boolean connected;
        try {
            connected = zk.curator().getZookeeperClient().blockUntilConnectedOrTimedOut();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CoordException("interrupted after a lost reply from " + layout.tasks
                    + "; the task may or may not have been added", e);
        }
        if (!connected) {
            throw new ConnectionLostException("the reply to an enqueue to queue '" + layout.name + "' was lost and the"
                    + " connection did not come back in time: the task may or may not have been added (" + lost.code() + ")", lost);
        }
    }

    static TaskId idOf(OpResult created) {
        return idOf(((OpResult.CreateResult) created).getPath());
    }

    static TaskId idOf(String createdPath) {
        return new TaskId(createdPath.substring(createdPath.lastIndexOf('/') + 1));
    }

    /**
     * Depth cap (bad-input row 13), checked before anything is written. From half the cap on, the
     * depth is read before every enqueue and the cap holds exactly (the refusal comes from
     * {@link Payloads#checkChildCap}). Below half, a producer re-reads it only every
     * {@value #REREAD_EVERY} enqueues and counts its own in between, which saves a read per
     * enqueue (an async producer sends the re-read in the background and keeps sending, at most
     * {@value #REREAD_EVERY} more, until it answers: {@link #admit}); concurrent producers could
     * then overshoot only if more than cap / (2 × {@value #REREAD_EVERY}) of them enqueued at
     * once, and by at most {@value #REREAD_EVERY} tasks each (2 × {@value #REREAD_EVERY} for an
     * async producer), still far below the listing limit the cap protects.
     */
    private void checkCap(int adding) {
        int cap = queue.options.depthCap();
        if (adding > cap) {
            throw new QueueFullException("a batch of " + adding + " tasks is larger than queue '" + layout.name
                    + "''s depth cap of " + cap + "; nothing was added");
        }
        synchronized (depthLock) {
            if (countIfKnown(adding)) {
                return;
            }
        }
        Stat stat = existsOrNull(layout.tasks);
        int depth = stat == null ? 0 : stat.getNumChildren();
        if (depth + adding > cap) {
            try {
                // Room for `adding` more means fewer than cap - adding + 1 children now.
                Payloads.checkChildCap(zk, layout.tasks, cap - adding + 1);
            } catch (TooManyChildrenException e) {
                throw new QueueFullException("queue '" + layout.name + "' cannot take " + adding + " more task(s) within its"
                        + " depth cap of " + cap + "; nothing was added (" + e.getMessage() + ")", e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CoordException("interrupted while checking the depth of " + layout.tasks, e);
            }
        }
        synchronized (depthLock) {
            knownDepth = depth + adding;
            sinceRead = adding;
            readGeneration++;
        }
    }

    /** Under {@link #depthLock}: counts {@code adding} more if the depth read last allows it without a read; false if one is due. */
    private boolean countIfKnown(int adding) {
        int cap = queue.options.depthCap();
        if (knownDepth >= 0 && knownDepth + adding <= cap / 2 && sinceRead + adding <= REREAD_EVERY) {
            knownDepth += adding;
            sinceRead += adding;
            return true;
        }
        return false;
    }

    /**
     * An async enqueue passes the depth cap here and is sent from here, in the order the calls were
     * made: under {@link #depthLock}, so the creates of one producer reach the session in its order
     * (ZooKeeper keeps a session's order, so their sequence numbers follow it). When the depth must
     * be read again, the read is sent in the background and every call made meanwhile waits in
     * {@link #waitingForDepth} (no thread), to be sent, or refused at the cap, when it answers.
     */
    void admit(AsyncEnqueue<T> call) {
        synchronized (depthLock) {
            if (!depthReadInFlight && countIfKnown(1)) {
                sentCounted(call);
                return;
            }
            if (!depthReadInFlight && knownDepth >= 0 && knownDepth + 1 <= queue.options.depthCap() / 2
                    && sinceRead + 1 <= 2 * REREAD_EVERY) {
                // Due for a re-read, far below the cap: re-read in the background and keep sending meanwhile.
                if (!refreshInFlight) {
                    refreshInFlight = true;
                    sentSinceRefresh = 0;
                    refresh(readGeneration);
                }
                knownDepth++;
                sinceRead++;
                sentCounted(call);
                return;
            }
            waitingForDepth.add(call);
            if (depthReadInFlight) {
                return;
            }
            depthReadInFlight = true;
        }
        try {
            zk.curator().checkExists().inBackground((client, event) -> depthRead(event)).forPath(layout.tasks.value());
        } catch (Exception e) {
            depthUnread(zk.translate(e, layout.tasks));
        }
    }

    /** Under {@link #depthLock}: sends a call already counted, counting it on top of a refresh in flight. */
    private void sentCounted(AsyncEnqueue<T> call) {
        if (refreshInFlight) {
            sentSinceRefresh++;
        }
        call.send();
    }

    /** Under {@link #depthLock}: the background re-read; sent under the lock, so it keeps its place among this producer's creates. */
    private void refresh(long generation) {
        try {
            zk.curator().checkExists().inBackground((client, event) -> refreshed(event, generation)).forPath(layout.tasks.value());
        } catch (Exception e) {
            refreshInFlight = false; // the next due call tries again, or waits for a read once 2 x REREAD_EVERY are unread
            LOG.debug("re-reading the depth of queue '{}' failed to send", layout.name, e);
        }
    }

    /** On ZooKeeper's event thread: the re-read's count plus the calls sent since it, unless a newer read answered first. */
    private void refreshed(CuratorEvent event, long generation) {
        KeeperException.Code code = KeeperException.Code.get(event.getResultCode());
        synchronized (depthLock) {
            refreshInFlight = false;
            if (generation != readGeneration || (code != KeeperException.Code.OK && code != KeeperException.Code.NONODE)) {
                return; // stale, or failed: the counts stand, and the next due call re-reads
            }
            int depth = event.getStat() == null ? 0 : event.getStat().getNumChildren();
            knownDepth = depth + sentSinceRefresh;
            sinceRead = sentSinceRefresh;
        }
    }

    /** On ZooKeeper's event thread: the depth for the calls waiting in {@link #waitingForDepth}; sends or refuses each, in order. */
    private void depthRead(CuratorEvent event) {
        KeeperException.Code code = KeeperException.Code.get(event.getResultCode());
        if (code != KeeperException.Code.OK && code != KeeperException.Code.NONODE) {
            depthUnread(zk.translate(KeeperException.create(code, layout.tasks.value()), layout.tasks));
            return;
        }
        int cap = queue.options.depthCap();
        synchronized (depthLock) {
            // Exact for this producer: the read was sent after all of its earlier creates, on the same session.
            knownDepth = event.getStat() == null ? 0 : event.getStat().getNumChildren();
            sinceRead = 0;
            readGeneration++;
            for (AsyncEnqueue<T> call; (call = waitingForDepth.poll()) != null; ) {
                if (call.cancelled()) {
                    call.send(); // sends nothing: it only ends the call
                } else if (knownDepth + 1 > cap) {
                    call.refuse(new QueueFullException("queue '" + layout.name + "' has " + knownDepth + " tasks, its depth"
                            + " cap; nothing was added"));
                } else {
                    knownDepth++;
                    sinceRead++;
                    sentCounted(call);
                }
            }
            depthReadInFlight = false;
        }
    }

    private void depthUnread(CoordException e) {
        synchronized (depthLock) {
            for (AsyncEnqueue<T> call; (call = waitingForDepth.poll()) != null; ) {
                call.refuse(e);
            }
            depthReadInFlight = false;
        }
    }

    /** Keyed async enqueues sweep the idempotency window too, off the caller's thread: at most one sweep queued at a time. */
    void sweepKeysInBackground() {
        if (!sweepQueued.compareAndSet(false, true)) {
            return;
        }
        try {
            zk.callbacks().execute(() -> {
                sweepQueued.set(false);
                try {
                    queue.keyWindow.sweepIfDue();
                } catch (RuntimeException e) {
                    LOG.debug("sweeping the idempotency window of queue '{}' failed; the next enqueue tries again", layout.name, e);
                }
            });
        } catch (java.util.concurrent.RejectedExecutionException closed) {
            sweepQueued.set(false); // the client is closing: the enqueue itself fails or is the last
        }
    }

    /**
     * An async unkeyed enqueue whose reply was lost: the sync recovery (wait for the connection,
     * one listing), run off the event thread by the caller.
     */
    EnqueueResult recoverUnkeyed(String prefix, KeeperException lost) {
        awaitConnection(lost);
        Optional<TaskId> mine = findByPrefix(prefix);
        if (mine.isPresent()) {
            queue.metrics.enqueued(1);
            return new EnqueueResult(mine.get(), EnqueueResult.Outcome.ADDED);
        }
        throw new ConnectionLostException("the reply to enqueueing a task to queue '" + layout.name + "' was lost and"
                + " no task named " + prefix + "… is there now: it may never have been added, or been added and already"
                + " done (" + lost.code() + "); give it an idempotency key if a retry must tell these apart", lost);
    }

    /** An async keyed enqueue whose reply was lost: the sync recovery ({@link #afterLostReply}), off the event thread. */
    EnqueueResult recoverKeyed(CoordPath keyPath, TaskSpec spec, KeeperException lost) {
        return afterLostReply(keyPath, spec, lost);
    }

    /** Best effort: lets later duplicates find the task in one read. Without it they find it by czxid. */
    void recordTaskInKey(CoordPath keyPath, TaskId id) {
        try {
            zk.curator().setData().withVersion(0).forPath(keyPath.value(), id.name().getBytes(StandardCharsets.UTF_8));
        } catch (KeeperException.NoNodeException | KeeperException.BadVersionException e) {
            // the task already ended (or the name was already recorded): nothing to record
        } catch (Exception e) {
            LOG.debug("could not record task {} in key {}", id, keyPath, e);
        }
    }

    /** {@link #recordTaskInKey} sent in the background (from ZooKeeper's event thread: nothing may block there). */
    void recordTaskInKeyInBackground(CoordPath keyPath, TaskId id) {
        try {
            zk.curator().setData().withVersion(0).inBackground().forPath(keyPath.value(), id.name().getBytes(StandardCharsets.UTF_8));
        } catch (Exception e) {
            LOG.debug("could not record task {} in key {}", id, keyPath, e);
        }
    }

    /** What a key node says: the task holding it, or the completed task it remembers. */
    private record Found(TaskId id, boolean completed, Stat keyStat) {
        EnqueueResult result() {
            return new EnqueueResult(id, completed ? EnqueueResult.Outcome.ALREADY_COMPLETED : EnqueueResult.Outcome.ALREADY_QUEUED);
        }
    }

    /** The task that holds key {@code keyPath} if both still exist, or the completed task the key remembers. */
    private Optional<Found> findByKey(CoordPath keyPath) {
        Stat stat = new Stat();
        byte[] data;
        try {
            data = zk.curator().getData().storingStatIn(stat).forPath(keyPath.value());
        } catch (KeeperException.NoNodeException e) {
            return Optional.empty();
        } catch (Exception e) {
            throw zk.translate(e, keyPath);
        }
        TaskId completed = KeyWindow.completedTask(data);
        if (completed != null) {
            return Optional.of(new Found(completed, true, stat));
        }
        if (data != null && data.length > 0) {
            return Optional.of(new Found(new TaskId(new String(data, StandardCharsets.UTF_8)), false, stat));
        }
        List<TaskId> found = findByCzxid(stat.getCzxid(), 1);
        return found.isEmpty() ? Optional.empty() : Optional.of(new Found(found.get(0), false, stat));
    }

    /**
     * The tasks created by the transaction with zxid {@code czxid}: newest first, stopping at the
     * first older one. Lists the task names once; reads only stats. Used only after a lost reply.
     */
    private List<TaskId> findByCzxid(long czxid, int expected) {
        List<String> names;
        try {
            names = zk.curator().getChildren().forPath(layout.tasks.value());
        } catch (Exception e) {
            throw zk.translate(e, layout.tasks);
        }
        List<String> sorted = new ArrayList<>(SequentialNodes.sorted(names, QueueLayout.TASK_PREFIX));
        sorted.sort(Comparator.comparingLong(SequentialNodes::sequence).reversed());
        List<TaskId> out = new ArrayList<>();
        for (String name : sorted) {
            Stat s = existsOrNull(layout.task(name));
            if (s == null) {
                continue;
            }
            if (s.getCzxid() == czxid) {
                out.add(new TaskId(name));
                if (out.size() == expected) {
                    break;
                }
            } else if (s.getCzxid() < czxid) {
                break;
            }
        }
        out.sort(Comparator.naturalOrder());
        return out;
    }

    private Stat existsOrNull(CoordPath path) {
        return zk.callUninterruptibly(path, () -> zk.curator().checkExists().forPath(path.value()));
    }
}
