package io.coord.queue;

import io.coord.ConnectionLostException;
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
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.OpResult;
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
 * <p>Endings are sent once, outside Curator's retry loop ({@link Txn#commitOnce}): after a lost
 * reply Curator would send the transaction again, and on a new session that retry fails at the
 * claim (gone with the old session) although the first send may have committed, which would
 * report a committed ending as refused. Instead, an ending that got no answer is settled by one
 * look at the claim node, the session, the task and its dead letter ({@link EndingOutcome}):
 * committed is reported as success, not committed as {@link ClaimLostException} (claim gone) or
 * {@link io.coord.ConnectionLostException} (claim still held: call again), and where nothing
 * tells, {@link OutcomeUnknownException}.
 */
final class ZkTaskClaim<T> extends ForwardingLease implements TaskClaim<T> {
    private static final Logger LOG = LoggerFactory.getLogger(ZkTaskClaim.class);

    private final ZkTaskQueue<T> queue;
    private final Zk zk;
    private final TaskId id;
    private final TaskRecord record;
    private final int version;
    /** The claim node's version: each extend is a setData at it, so only the current claim can extend. Guarded by {@code ending}. */
    private int claimVersion;
    private final long claimedNanos = System.nanoTime();
    private final Object ending = new Object();
    private volatile boolean finished;
    /** A {@link #completeAsync} was sent and has not been answered yet: every other ending waits for its outcome. */
    private volatile boolean inFlight;
    /** A send of an ending of this claim got no answer: it may have committed. Guarded by {@code ending}. */
    private boolean unanswered;
    /** Why the outcome of an ending is unknown for good; every later ending reports it again. Guarded by {@code ending}. */
    private String unknownOutcome;
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
        if (queue.options.claimsTimeOut()) {
            // Nothing in Coord deletes a live claim's node but a takeover past its deadline.
            lease.whenGone(() -> lease.session().state().isTerminal()
                    ? new ClaimLostException("claim on task " + id + " lost: its node " + lease.node() + " went with its session")
                    : new ClaimLostException("claim timed out: task " + id + " is no longer ours; " + timedOut()));
        }
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

    /** The completion's key op (index 2), or -1 for a single unkeyed task, which has no key node. */
    private int completionKeyIndex() {
        return record.key() == null ? -1 : 2;
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
            List<CuratorOp> all = completionOps(release, ops);
            Consumer<ZkTaskClaim<T>> sink = nextTask;
            Claimer.Prepared next = sink == null || !nextWanted.getAsBoolean() ? null : queue.claimer().prepareNext();
            if (next == null) {
                end(EndingOutcome.Ending.COMPLETE, release, all, completionKeyIndex());
            } else {
                endAndClaim(release, all, next, sink);
            }
            completed();
        }
    }

    /**
     * The completion's transaction, as {@link #complete()} builds it, sent with the async API: no
     * thread waits for it, and completions of many claims are in flight at once instead of taking
     * turns on the client's callback thread. The answer is read on ZooKeeper's event thread, which
     * only decides: committed (the common case) ends the claim there and hands the caller's
     * executor the result in one hop; any other answer is settled by the sync ending's own rules
     * ({@link #notCommitted}: reads, a resend without a missing key) on the client's callback thread.
     * While it is in flight, another ending, an extend or a release of this claim is refused
     * ({@link IllegalStateException}), as one after the ending is.
     */
    @Override
    public CompletableFuture<Void> completeAsync(Executor executor) {
        Objects.requireNonNull(executor, "executor");
        CompletableFuture<Void> caller = new CompletableFuture<>();
        NodeLease.OwnRelease release;
        List<CuratorOp> all;
        synchronized (ending) {
            try {
                requireOpen("complete");
                release = lease.beginOwnRelease();
                all = completionOps(release, List.of());
                inFlight = true;
            } catch (RuntimeException e) {
                caller.completeExceptionally(e);
                return caller;
            }
        }
        zk.multiOnceAsync(taskPath(), all).whenComplete((answer, error) -> {
            if (error == null && answer.code() == KeeperException.Code.OK) {
                finished = true;
                inFlight = false;
                release.committed();
                completed();
                Handoff.toCaller(executor, () -> caller.complete(null));
                return;
            }
            Handoff.offEventThread(zk, "settling the complete of task " + id, () -> {
                synchronized (ending) {
                    inFlight = false;
                    if (error != null) { // not sent (no connection handle, a bad op): nothing committed
                        release.notCommitted();
                        Throwable cause = error instanceof java.util.concurrent.CompletionException && error.getCause() != null
                                ? error.getCause() : error;
                        throw cause instanceof RuntimeException r ? r
                                : new CoordException("complete of task " + id + " was not sent: " + cause, cause);
                    }
                    KeeperException e = KeeperException.create(answer.code(), taskPath().value());
                    notCommitted(EndingOutcome.Ending.COMPLETE, release, all, completionKeyIndex(), e,
                            Txn.failedIndex(answer.results()));
                    completed();
                    return null;
                }
            }, executor).whenComplete((v, settled) -> {
                if (settled != null) {
                    caller.completeExceptionally(settled);
                } else {
                    caller.complete(null);
                }
            });
        });
        return caller;
    }

    /** The ops of this claim's completion: the claim, the task at our version, its key, then {@code ops}. */
    private List<CuratorOp> completionOps(NodeLease.OwnRelease release, List<CuratorOp> ops) {
        List<CuratorOp> all = new ArrayList<>();
        all.add(release.deleteOp());
        all.add(Txn.op(zk, taskPath(), () -> zk.curator().transactionOp().delete().withVersion(version)
                .forPath(taskPath().value())));
        all.addAll(queue.keyWindow.completionOps(record.key(), id)); // the key: deleted, or remembered
        all.addAll(ops);
        return all;
    }

    /** After a completion committed: this process's index and metrics learn it. */
    private void completed() {
        queue.index().finishedHere(id.name());
        queue.metrics.completed(Duration.ofNanos(System.nanoTime() - claimedNanos));
    }

    @Override
    public CompletableFuture<Task.State> failAsync(String reason, Executor executor) {
        Objects.requireNonNull(executor, "executor");
        return Handoff.offEventThread(zk, "fail of task " + id, () -> fail(reason), executor);
    }

    @Override
    public void extend(Duration by) {
        if (by == null || by.isNegative() || by.isZero() || by.compareTo(QueueOptions.MAX_CLAIM_TIMEOUT) > 0) {
            throw new IllegalArgumentException("cannot extend the claim on task " + id + " by " + by + ": must be within 1 ms.."
                    + QueueOptions.MAX_CLAIM_TIMEOUT);
        }
        synchronized (ending) {
            requireOpen("extend");
            long timeout = queue.options.claimsTimeOut() ? Math.max(1, by.toMillis()) : 0;
            Long claimedAt = record.claimedAt();
            byte[] info = ClaimTimeouts.claimInfo(id.name(), queue.options.consumerName(), claimedAt == null ? 0 : claimedAt, timeout);
            String node = lease.node().value();
            try {
                claimVersion = zk.curator().setData().withVersion(claimVersion).forPath(node, info).getVersion();
            } catch (KeeperException.BadVersionException e) {
                // Only we write our node: a retry after a lost reply whose first send applied. Still ours?
                Stat now = zk.callUninterruptibly(lease.node(), () -> zk.curator().checkExists().forPath(node));
                if (now == null || now.getEphemeralOwner() != lease.session().id()) {
                    throw lost("extend", e, "nothing was changed");
                }
                claimVersion = now.getVersion();
            } catch (KeeperException.NoNodeException e) {
                throw lost("extend", e, "nothing was changed");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CoordException("interrupted during extend of task " + id + "; call extend again", e);
            } catch (Exception e) {
                throw zk.translate(e, lease.node());
            }
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
                if (record.key() != null) {
                    all.add(Txn.op(zk, keyPath(), () -> zk.curator().transactionOp().delete().forPath(keyPath().value())));
                }
                end(EndingOutcome.Ending.DEAD_LETTER, release, all, record.key() == null ? -1 : 3);
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
            end(EndingOutcome.Ending.FAIL, release, all, -1);
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
            if (!finished && !inFlight) { // a completeAsync in flight decides; if it fails, its caller is told
                release();
            }
        }
    }

    private void requireOpen(String what) {
        if (inFlight) {
            throw new IllegalStateException("cannot " + what + " task " + id + ": its completeAsync is in flight");
        }
        if (unknownOutcome != null && !"release".equals(what)) {
            throw new OutcomeUnknownException(unknownOutcome, null);
        }
        if (finished) {
            throw new IllegalStateException("cannot " + what + " task " + id + ": its claim " + lease.node() + " has already ended");
        }
    }

    /**
     * Commits an ending transaction, sent once. Op 0 deletes the claim node (and fences); op 1
     * works on the task at our version; op {@code keyIndex} deletes the task's key, or for a
     * completion may rewrite it ({@link KeyWindow}) (-1: none). On success the claim ends and its
     * lease is RELEASED by this transaction. No answer (now, or for an earlier call of this
     * claim's endings): {@link #settle}.
     */
    private void end(EndingOutcome.Ending what, NodeLease.OwnRelease release, List<CuratorOp> ops, int keyIndex) {
        try {
            Txn.commitOnce(zk, taskPath(), ops);
        } catch (KeeperException e) {
            notCommitted(what, release, ops, keyIndex, e, Txn.failedIndex(e));
            return;
        } catch (InterruptedException e) {
            unanswered = true;
            release.notCommitted();
            Thread.currentThread().interrupt();
            throw new CoordException("interrupted during " + what.label + " of task " + id + "; it may or may not have been"
                    + " applied: call " + what.label + " again to find out", e);
        } catch (RuntimeException e) {
            release.notCommitted();
            throw e;
        }
        finished = true;
        release.committed();
    }

    /**
     * An ending transaction that came back with {@code e}: settled as the sync ending settles it
     * (may block: reads, a resend without a missing key), so never on an event thread. Returns
     * if the ending committed after all, throws otherwise.
     */
    private void notCommitted(EndingOutcome.Ending what, NodeLease.OwnRelease release, List<CuratorOp> ops, int keyIndex,
                              KeeperException e, int failed) {
        if (neverSent(e)) {
            release.notCommitted();
            throw lost(what.label, e, "nothing was changed: this " + what.label + " was never sent, its claim's session had ended");
        }
        if (unanswered(e, failed)) {
            unanswered = true;
            settle(what, release, findOut(what), e);
            return;
        }
        if (failed == 0) {
            release.notCommitted();
            throw lost(what.label, e, "nothing was changed");
        }
        if (failed == keyIndex && e.code() == KeeperException.Code.NONODE) {
            LOG.warn("key node {} of task {} was missing; ending the task without it", keyPath(), id);
            List<CuratorOp> without = new ArrayList<>(ops);
            without.remove(keyIndex);
            end(what, release, without, -1);
            return;
        }
        release.notCommitted();
        throw zk.translate(e, taskPath()); // e.g. one of the caller's own ops failed: nothing applied, claim kept
    }

    /**
     * Whether the outcome of this send, or of an earlier one, is open: an indeterminate code, an
     * error for the whole request (no per-op results, e.g. SESSIONMOVED: Curator used to retry
     * those), or the claim gone while an earlier send got no answer. {@link #findOut} decides.
     */
    private boolean unanswered(KeeperException e, int failed) {
        return Txn.indeterminate(e) || failed < 0 || (failed == 0 && unanswered);
    }

    /**
     * Whether the send failed without leaving the client: ZooKeeper's client answers SESSIONEXPIRED
     * only to requests it queued while disconnected, once the reconnect learns the session ended
     * (it sends nothing on a new connection before the session handshake; a request it had sent
     * gets CONNECTIONLOSS when that connection drops). A paused consumer whose session ended
     * meanwhile gets it. Unless an earlier send of this claim's endings got no answer, nothing of
     * ours committed.
     */
    private boolean neverSent(KeeperException e) {
        return e.code() == KeeperException.Code.SESSIONEXPIRED && !unanswered;
    }

    /**
     * Reports an ending that got no answer as what {@link #findOut} says it is: returns if it
     * committed, throws otherwise (see the class comment).
     */
    private void settle(EndingOutcome.Ending what, NodeLease.OwnRelease release, EndingOutcome.Verdict verdict, KeeperException cause) {
        String sent = what.label + " of task " + id + " got no answer (" + cause.code() + ")";
        switch (verdict) {
            case COMMITTED -> {
                LOG.debug("{}, and it had committed", sent);
                finished = true;
                release.committed();
            }
            case NOT_COMMITTED_LOST -> {
                release.notCommitted();
                throw lost(what.label, cause, "nothing was changed: task " + taskPath() + " shows that the " + what.label
                        + " whose answer was lost did not commit");
            }
            case NOT_COMMITTED_HELD -> {
                release.notCommitted();
                throw new ConnectionLostException(sent + " and did not commit: its claim " + lease.node()
                        + " is still held; call " + what.label + " again", cause);
            }
            case UNKNOWN_FOR_NOW -> {
                release.notCommitted();
                throw new ConnectionLostException(sent + " and may or may not have committed; where the task stands could not"
                        + " be read: call " + what.label + " again to find out", cause);
            }
            case UNKNOWN -> {
                release.notCommitted();
                unknownOutcome = sent + " and its claim's session " + Long.toHexString(lease.session().id()) + " has ended:"
                        + " whether it committed before that is unknown (task " + taskPath() + " is gone or changed, and"
                        + " another consumer may have taken it over since); at most one ending of the task committed";
                OutcomeUnknownException unknown = new OutcomeUnknownException(unknownOutcome, cause);
                endLost(unknown);
                throw unknown;
            }
        }
    }

    /**
     * One look at where an ending that got no answer stands: our claim node, whether the client is
     * still on the claim's session after reading it, the task and (on a new session) its dead
     * letter. Waits for a connection first (at most the connection timeout).
     */
    private EndingOutcome.Verdict findOut(EndingOutcome.Ending what) {
        EndingOutcome.Look look;
        try {
            zk.curator().getZookeeperClient().blockUntilConnectedOrTimedOut();
            boolean claimNode = zk.curator().checkExists().forPath(lease.node().value()) != null;
            boolean sameSession = sessionIdNow() == lease.session().id() && !lease.session().state().isTerminal();
            EndingOutcome.TaskNow task = EndingOutcome.TaskNow.GONE;
            int deadDeliveries = -1;
            if (!claimNode) {
                task = readTask();
                if (!sameSession) {
                    deadDeliveries = deadLetterDeliveries();
                }
            }
            look = new EndingOutcome.Look(claimNode, sameSession, task, deadDeliveries);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            look = null;
        } catch (Exception e) {
            LOG.debug("could not find out where task {} stands after its {} got no answer", taskPath(), what.label, e);
            look = null;
        }
        EndingOutcome.Verdict verdict = EndingOutcome.decide(what, version, record.deliveries(), look);
        LOG.debug("{} of task {} got no answer; {} -> {}", what.label, id, look, verdict);
        return verdict;
    }

    private EndingOutcome.TaskNow readTask() throws Exception {
        Stat stat = new Stat();
        try {
            byte[] data = zk.curator().getData().storingStatIn(stat).forPath(taskPath().value());
            return new EndingOutcome.TaskNow(true, stat.getVersion(), queue.codec.decode(taskPath(), data).claim() != null);
        } catch (KeeperException.NoNodeException e) {
            return EndingOutcome.TaskNow.GONE;
        }
    }

    private int deadLetterDeliveries() throws Exception {
        CoordPath deadPath = queue.layout.deadLetter(id.name());
        try {
            return queue.codec.decode(deadPath, zk.curator().getData().forPath(deadPath.value())).deliveries();
        } catch (KeeperException.NoNodeException e) {
            return -1;
        }
    }

    private long sessionIdNow() {
        try {
            return zk.curator().getZookeeperClient().getZooKeeper().getSessionId();
        } catch (Exception e) {
            return -1;
        }
    }

    /**
     * Completes (ops {@code all}) and claims the prepared next task in one transaction, sent once.
     * If the next task was taken meanwhile, nothing committed and the completion goes alone. Every
     * other outcome is the plain completion's (see {@link #end}); after a lost answer the next
     * claim is adopted only if it did commit.
     */
    private void endAndClaim(NodeLease.OwnRelease release, List<CuratorOp> all, Claimer.Prepared next, Consumer<ZkTaskClaim<T>> sink) {
        List<CuratorOp> both = new ArrayList<>(all);
        both.addAll(next.ops());
        try {
            List<OpResult> results = Txn.commitOnce(zk, taskPath(), both);
            finished = true;
            release.committed();
            Stat claimed = ((OpResult.SetDataResult) results.get(all.size() + 1)).getStat();
            queue.claimer().adopt(next, claimed.getMzxid(), claimed.getVersion()).ifPresent(sink);
            return;
        } catch (KeeperException e) {
            int failed = Txn.failedIndex(e);
            if (neverSent(e)) {
                queue.claimer().abandon(next, false);
                release.notCommitted();
                throw lost("complete", e, "nothing was changed: this complete was never sent, its claim's session had ended");
            }
            if (unanswered(e, failed)) {
                unanswered = true;
                EndingOutcome.Verdict verdict = findOut(EndingOutcome.Ending.COMPLETE);
                if (verdict != EndingOutcome.Verdict.COMMITTED) {
                    queue.claimer().discard(next); // the next claim went with the completion, or may have
                }
                settle(EndingOutcome.Ending.COMPLETE, release, verdict, e);
                // It committed, and the next claim with it: adopted if its session is still ours.
                queue.claimer().adoptIfCommitted(next).ifPresent(sink);
                return;
            }
            if (failed >= all.size()) {
                queue.claimer().abandon(next, true); // the next task changed: nothing committed
            } else {
                queue.claimer().abandon(next, false);
                if (failed == 0) {
                    release.notCommitted();
                    throw lost("complete", e, "nothing was changed");
                }
                // Another op failed (a missing key, the caller's own ops): the plain completion below decides.
            }
        } catch (InterruptedException e) {
            unanswered = true;
            queue.claimer().discard(next);
            release.notCommitted();
            Thread.currentThread().interrupt();
            throw new CoordException("interrupted during complete of task " + id + "; it may or may not have been"
                    + " applied: call complete again to find out", e);
        } catch (RuntimeException e) {
            queue.claimer().discard(next); // the next task goes back if it was taken
            release.notCommitted();
            throw e;
        }
        end(EndingOutcome.Ending.COMPLETE, release, all, completionKeyIndex());
    }

    private ClaimLostException lost(String what, KeeperException cause, String changed) {
        String why = queue.options.claimsTimeOut() && !lease.session().state().isTerminal()
                ? "the claim timed out: " + timedOut() + "; " : "";
        ClaimLostException lost = new ClaimLostException(what + " of task " + id + " refused: its claim " + lease.node()
                + " (token " + lease.token() + ") no longer exists, so another consumer may hold the task; " + why + changed, cause);
        endLost(lost);
        return lost;
    }

    /** Why a claim node of a live session is gone when claims time out. */
    private String timedOut() {
        return "its node " + lease.node() + " was deleted while its session " + lease.session().idHex() + " lived, which a"
                + " consumer does when a claim was not extended within its timeout (" + queue.options.claimTimeout().toMillis()
                + " ms, judged by ZooKeeper's clock); the task is redelivered";
    }

    /** The claim, its ended() and its listeners all say LOST; the task is free for this process's other consumers. */
    private void endLost(CoordException cause) {
        finished = true;
        lease.endLost(cause);
        queue.index().unhold(id.name());
        queue.metrics.claimLost();
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
