package io.coord.queue;

import io.coord.CoordException;
import io.coord.CoordPath;
import io.coord.LeaseListener;
import io.coord.LockLostException;
import io.coord.internal.ForwardingLease;
import io.coord.internal.NodeLease;
import io.coord.internal.Zk;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.curator.framework.api.transaction.CuratorTransactionResult;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A claim on one task, on top of the shared {@link NodeLease} of its claim node. Every ending is
 * one transaction whose first operation deletes the claim node (so it also fences: it fails if the
 * claim is gone); the second works on the task at the version this claim wrote, so only the current
 * claimer's transaction can commit. The lease is told the outcome ({@link NodeLease.OwnRelease}):
 * committed → RELEASED with no further request, so its own watch seeing the node vanish is no
 * spurious LOST. {@link #release()} alone deletes the node through the lease's close.
 *
 * <p>A retry of an ending transaction whose reply was lost fails at its first operation (its
 * earlier try deleted the claim node). Claim nodes are deleted only by their own claim, and an
 * ephemeral node cannot vanish while its session lives, so a claim node gone while the client is
 * still on the claim's session means the earlier try committed; on any other session the claim
 * is lost.
 */
final class ZkTaskClaim<T> extends ForwardingLease implements TaskClaim<T> {
    private static final Logger LOG = LoggerFactory.getLogger(ZkTaskClaim.class);

    private final ZkTaskQueue<T> queue;
    private final Zk zk;
    private final TaskId id;
    private final TaskRecord record;
    private final int version;
    private final long claimedNanos = System.nanoTime();
    private final Object ending = new Object();
    private volatile boolean finished;
    private volatile T payload;
    /** Set by a worker: a completion may take the worker's next task in the same transaction and hand it here. */
    private volatile Consumer<ZkTaskClaim<T>> nextTask;
    private volatile BooleanSupplier nextWanted = () -> false;

    ZkTaskClaim(ZkTaskQueue<T> queue, NodeLease lease, TaskId id, TaskRecord record, int version) {
        super(lease);
        this.queue = queue;
        this.zk = queue.zk;
        this.id = id;
        this.record = record;
        this.version = version;
        // A claim lost with its session frees the task for this process's other consumers too.
        lease.addListener(new LeaseListener() {
            @Override
            public void onLost(io.coord.Lease l, CoordException cause) {
                if (!finished) {
                    queue.index().unhold(id.name());
                }
            }
        }, zk.events());
    }

    void setPayload(T value) {
        this.payload = value;
    }

    /**
     * Lets {@link #complete()} claim this worker's next task in its own transaction (one commit
     * instead of two per task) and hand it to {@code sink}, while {@code wanted} says the worker
     * still takes tasks.
     */
    void takeNextInto(BooleanSupplier wanted, Consumer<ZkTaskClaim<T>> sink) {
        this.nextWanted = wanted;
        this.nextTask = sink;
    }

    @Override
    public TaskId id() {
        return id;
    }

    @Override
    public T payload() {
        return payload;
    }

    @Override
    public int attempts() {
        return record.attempts();
    }

    @Override
    public int deliveries() {
        return record.deliveries();
    }

    @Override
    public int lane() {
        return record.lane();
    }

    @Override
    public Instant enqueuedAt() {
        return Instant.ofEpochMilli(record.enqueuedAt());
    }

    private CoordPath taskPath() {
        return queue.layout.task(id.name());
    }

    private CoordPath keyPath() {
        return queue.layout.key(record.key());
    }

    @Override
    public void complete() {
        completeWith(List.of());
    }

    @Override
    public void completeWith(List<CuratorOp> ops) {
        synchronized (ending) {
            requireOpen("complete");
            NodeLease.OwnRelease release = lease.beginOwnRelease();
            List<CuratorOp> all = new ArrayList<>();
            all.add(release.deleteOp());
            all.add(Txn.op(zk, taskPath(), () -> zk.curator().transactionOp().delete().withVersion(version)
                    .forPath(taskPath().value())));
            all.add(Txn.op(zk, keyPath(), () -> zk.curator().transactionOp().delete().forPath(keyPath().value())));
            all.addAll(ops);
            Consumer<ZkTaskClaim<T>> sink = nextTask;
            Claimer.Prepared next = sink == null || !nextWanted.getAsBoolean() ? null : queue.claimer().prepareNext();
            if (next == null) {
                end("complete", release, all, 2);
            } else {
                endAndClaim(release, all, next, sink);
            }
            queue.index().finishedHere(id.name());
            queue.metrics.completed(Duration.ofNanos(System.nanoTime() - claimedNanos));
        }
    }

    @Override
    public Task.State fail(String reason) {
        synchronized (ending) {
            requireOpen("fail");
            long now = queue.options.clock().millis();
            if (record.lastAttempt()) {
                TaskRecord dead = record.dead(reason, now);
                CoordPath deadPath = queue.layout.deadLetter(id.name());
                byte[] data = queue.codec.encode(deadPath, dead);
                NodeLease.OwnRelease release = lease.beginOwnRelease();
                List<CuratorOp> all = new ArrayList<>();
                all.add(release.deleteOp());
                all.add(Txn.op(zk, taskPath(), () -> zk.curator().transactionOp().delete().withVersion(version)
                        .forPath(taskPath().value())));
                all.add(Txn.op(zk, deadPath, () -> zk.curator().transactionOp().create().forPath(deadPath.value(), data)));
                all.add(Txn.op(zk, keyPath(), () -> zk.curator().transactionOp().delete().forPath(keyPath().value())));
                end("dead-letter", release, all, 3);
                queue.metrics.failed();
                queue.index().finishedHere(id.name());
                queue.metrics.deadLettered();
                LOG.info("task {} of queue '{}' is dead after {} attempts: {}", id, queue.layout.name, dead.attempts(),
                        dead.lastError());
                return Task.State.DEAD;
            }
            Duration delay = queue.options.backoff().delay(record.attempts() + 1, ThreadLocalRandom.current().nextDouble());
            TaskRecord retry = record.retrying(reason, now + delay.toMillis());
            byte[] data = queue.codec.encode(taskPath(), retry);
            NodeLease.OwnRelease release = lease.beginOwnRelease();
            List<CuratorOp> all = List.of(release.deleteOp(),
                    Txn.op(zk, taskPath(), () -> zk.curator().transactionOp().setData().withVersion(version)
                            .forPath(taskPath().value(), data)));
            end("fail", release, all, -1);
            queue.metrics.failed();
            queue.index().unhold(id.name());
            return Task.State.PENDING;
        }
    }

    @Override
    public void release() {
        synchronized (ending) {
            requireOpen("release");
            finished = true;
            lease.close();
            queue.index().unhold(id.name());
            queue.metrics.released();
        }
    }

    @Override
    public boolean isFinished() {
        return finished;
    }

    @Override
    public void close() {
        synchronized (ending) {
            if (!finished) {
                release();
            }
        }
    }

    private void requireOpen(String what) {
        if (finished) {
            throw new IllegalStateException("cannot " + what + " task " + id + ": its claim " + lease.node() + " has already ended");
        }
    }

    /**
     * Commits an ending transaction. Op 0 deletes the claim node (and fences); op 1 works on the
     * task at our version; op {@code keyIndex} deletes the task's key (-1: none). On success the
     * claim ends and its lease is RELEASED by this transaction.
     */
    private void end(String what, NodeLease.OwnRelease release, List<CuratorOp> ops, int keyIndex) {
        try {
            Txn.commit(zk, taskPath(), ops);
        } catch (KeeperException e) {
            int failed = Txn.failedIndex(e);
            if (failed == 0) {
                if (!earlierTryCommitted(what)) {
                    release.notCommitted();
                    throw lost(what, e);
                }
            } else if (failed == keyIndex && e.code() == KeeperException.Code.NONODE) {
                LOG.warn("key node {} of task {} was missing; ending the task without it", keyPath(), id);
                List<CuratorOp> without = new ArrayList<>(ops);
                without.remove(keyIndex);
                end(what, release, without, -1);
                return;
            } else {
                release.notCommitted();
                throw zk.translate(e, taskPath()); // e.g. one of the caller's own ops failed: nothing applied, claim kept
            }
        } catch (InterruptedException e) {
            release.notCommitted();
            Thread.currentThread().interrupt();
            throw new CoordException("interrupted during " + what + " of task " + id + "; it may or may not have been"
                    + " applied: call " + what + " again to find out", e);
        } catch (RuntimeException e) {
            release.notCommitted();
            throw e;
        }
        finished = true;
        release.committed();
    }

    /**
     * The ending failed at its first op: our claim node is gone. If the client is still on the
     * claim's session, nothing but this claim deletes its node (see the class comment): an earlier
     * try of this transaction committed before its reply was lost.
     */
    private boolean earlierTryCommitted(String what) {
        long current;
        try {
            current = zk.curator().getZookeeperClient().getZooKeeper().getSessionId();
        } catch (Exception e) {
            return false;
        }
        if (current != lease.session().id() || lease.session().state().isTerminal()) {
            return false;
        }
        // Someone else (an operator) may have deleted the claim node instead: then the task is still
        // at our version, which our ending, had it committed, would have deleted or moved on.
        // Cannot tell: report the loss, which changes nothing that committed.
        if (taskNow() != TaskNow.MOVED_ON) {
            return false;
        }
        LOG.debug("{} of task {} was already applied by an earlier try", what, id);
        return true;
    }

    /** Where the task stands against the version this claim holds it at. */
    private enum TaskNow { AT_OUR_VERSION, MOVED_ON, UNKNOWN }

    /** One read of the task: still at our version (no ending of ours committed), moved on (gone or changed), or unknown. */
    private TaskNow taskNow() {
        try {
            Stat task = zk.curator().checkExists().forPath(taskPath().value());
            return task != null && task.getVersion() == version ? TaskNow.AT_OUR_VERSION : TaskNow.MOVED_ON;
        } catch (Exception e) {
            LOG.debug("could not read task {} after a refused ending", taskPath(), e);
            return TaskNow.UNKNOWN;
        }
    }

    /**
     * What a refused ending can say about the task. The refusal itself changed nothing; but after a
     * lost reply and a new session, an earlier try may have committed before the session ended
     * (and its claim node with it). The task still at our version proves it did not.
     */
    private String whatChanged() {
        return switch (taskNow()) {
            case AT_OUR_VERSION -> "nothing was changed";
            case MOVED_ON -> "this call changed nothing, but task " + taskPath() + " is gone or has changed since the"
                    + " claim: an earlier try whose reply was lost may have committed, or another consumer took the task over";
            case UNKNOWN -> "this call changed nothing; whether an earlier try whose reply was lost committed is unknown"
                    + " (task " + taskPath() + " could not be read)";
        };
    }

    /**
     * Completes (ops {@code all}) and claims the prepared next task in one transaction. If the next
     * task was taken meanwhile, nothing committed and the completion goes alone. Every other
     * outcome is the plain completion's (see {@link #end}); after a lost reply the next claim is
     * adopted only if it did commit.
     */
    private void endAndClaim(NodeLease.OwnRelease release, List<CuratorOp> all, Claimer.Prepared next, Consumer<ZkTaskClaim<T>> sink) {
        List<CuratorOp> both = new ArrayList<>(all);
        both.addAll(next.ops());
        try {
            List<CuratorTransactionResult> results = Txn.commit(zk, taskPath(), both);
            finished = true;
            release.committed();
            Stat claimed = results.get(all.size() + 1).getResultStat();
            queue.claimer().adopt(next, claimed.getMzxid(), claimed.getVersion()).ifPresent(sink);
            return;
        } catch (KeeperException e) {
            int failed = Txn.failedIndex(e);
            if (failed >= all.size()) {
                queue.claimer().abandon(next, true); // the next task changed: nothing committed
            } else if (failed == 0 && earlierTryCommitted("complete")) {
                // An earlier try of this same transaction committed: the completion and the next claim.
                finished = true;
                release.committed();
                queue.claimer().adoptIfCommitted(next).ifPresent(sink);
                return;
            } else {
                queue.claimer().abandon(next, false);
                if (failed == 0) {
                    release.notCommitted();
                    throw lost("complete", e);
                }
                // Another op failed (a missing key, the caller's own ops): the plain completion below decides.
            }
        } catch (InterruptedException e) {
            queue.claimer().discard(next);
            release.notCommitted();
            Thread.currentThread().interrupt();
            throw new CoordException("interrupted during complete of task " + id + "; it may or may not have been"
                    + " applied: call complete again to find out", e);
        } catch (RuntimeException e) {
            queue.claimer().discard(next); // indeterminate: the next task goes back if it was taken
            release.notCommitted();
            throw e;
        }
        end("complete", release, all, 2);
    }

    private ClaimLostException lost(String what, KeeperException cause) {
        finished = true;
        ClaimLostException lost = new ClaimLostException(what + " of task " + id + " refused: its claim " + lease.node()
                + " (token " + lease.token() + ") no longer exists, so another consumer may hold the task; " + whatChanged(), cause);
        lease.endLost(lost); // the claim, its ended() and its listeners all say LOST
        queue.index().unhold(id.name());
        queue.metrics.claimLost();
        return lost;
    }

    @Override
    public void checkValid() {
        try {
            lease.checkValid();
        } catch (LockLostException e) {
            throw new ClaimLostException("claim on task " + id + ": " + e.getMessage(), e);
        }
    }

    @Override
    public String toString() {
        return "TaskClaim[" + queue.layout.name + "/" + id + " " + lease.token() + " " + (finished ? "finished" : lease.state()) + "]";
    }
}
