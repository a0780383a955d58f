package io.coord.queue;

import io.coord.CodecException;
import io.coord.CoordPath;
import io.coord.FencingToken;
import io.coord.internal.NodeLease;
import io.coord.internal.Payloads;
import io.coord.internal.Zk;
import io.coord.internal.ZkSession;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BooleanSupplier;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.curator.framework.api.transaction.CuratorTransactionResult;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The claim protocol. A claim is one transaction on a task read at version {@code v}:
 * <pre>
 * multi( create claims/{task}~{unique}  EPHEMERAL,
 *        setData tasks/{task} = record(claim = that name, deliveries + 1)  @ version v )
 * </pre>
 * The version check makes exactly one of several racing consumers win; the bumped version fences
 * every earlier claimer of the task out of complete/fail (their delete or setData at their version
 * fails); the claim node, bound to the session, gives the task back when the consumer dies; and
 * the claim node's czxid, which equals the transaction's zxid and so the task's new mzxid, is the
 * claim's fencing token without an extra read. A task whose record names a claim is passed over
 * while that claim node exists; claim names are never reused, so once gone it never returns.
 */
final class Claimer<T> {
    private static final Logger LOG = LoggerFactory.getLogger(Claimer.class);

    private final ZkTaskQueue<T> queue;
    private final Zk zk;
    private final QueueLayout layout;
    private final ClaimTimeouts timeouts;

    Claimer(ZkTaskQueue<T> queue) {
        this.queue = queue;
        this.zk = queue.zk;
        this.layout = queue.layout;
        this.timeouts = new ClaimTimeouts(zk, layout, queue::index, queue.options);
    }

    /** Takes over claims past their deadline (see {@link ClaimTimeouts}); a no-op without a claim timeout. */
    void takeOverTimedOut() throws InterruptedException {
        timeouts.takeOverDue();
    }

    Optional<TaskClaim<T>> claim(Duration timeout, BooleanSupplier keepWaiting) throws InterruptedException {
        TaskIndex index = queue.index();
        long deadline = System.nanoTime() + Math.max(0, timeout.toNanos());
        int rotation = ThreadLocalRandom.current().nextInt(TaskIndex.MAX_SPREAD);
        while (true) {
            if (Thread.interrupted()) {
                throw new InterruptedException("interrupted while claiming from queue '" + layout.name + "'");
            }
            long seen = index.changes();
            queue.poison().sweep(); // undecodable tasks go to the dead letters before anything is chosen
            if (timeouts.takeOverDue() > 0) {
                continue; // the watch makes the task claimable: wait for that below, or take it now
            }
            long now = queue.options.clock().millis();
            ClaimRule.Choice choice = index.choose(now, rotation++);
            for (ClaimRule.Entry candidate : choice.candidates()) {
                if (!index.hold(candidate.name())) {
                    continue;
                }
                Optional<TaskClaim<T>> claimed = Optional.empty();
                try {
                    claimed = attempt(candidate.name(), now);
                } finally {
                    if (claimed.isEmpty()) {
                        index.unhold(candidate.name());
                    }
                }
                if (claimed.isPresent()) {
                    return claimed;
                }
            }
            long left = deadline - System.nanoTime();
            if (left <= 0 || !keepWaiting.getAsBoolean()) {
                return Optional.empty();
            }
            if (choice.candidates().isEmpty() && choice.nextReadyMillis() != Long.MAX_VALUE) {
                long untilReady = Math.max(1, choice.nextReadyMillis() - now) * 1_000_000L;
                left = Math.min(left, untilReady);
            }
            // At least 10 ms: another thread of this process may be looking at the claim that is due.
            left = Math.min(left, Math.max(10_000_000L, timeouts.nextLookNanos() - System.nanoTime()));
            // Bounded slices so a worker's shutdown flag is seen soon.
            index.awaitChange(seen, Math.min(left, 250_000_000L));
        }
    }

    /**
     * A claim ready to commit: the task it takes, its unique claim node, the task's new record and
     * the two operations (create the claim node; rewrite the task at the version read).
     */
    record Prepared(String task, String claimName, CoordPath claimPath, TaskRecord claimed, int readVersion,
                    ZkSession session, List<CuratorOp> ops) {
    }

    /** One try at one task; empty if it was not claimable after all (taken, gone, not ready). */
    private Optional<TaskClaim<T>> attempt(String name, long now) throws InterruptedException {
        TaskIndex index = queue.index();
        CoordPath taskPath = layout.task(name);
        TaskIndex.Cached cached = index.cached(name);
        byte[] data;
        int readVersion;
        long czxid = 0;
        if (cached != null) {
            data = cached.data();
            readVersion = cached.version();
        } else {
            Stat stat = new Stat();
            try {
                data = zk.curator().getData().storingStatIn(stat).forPath(taskPath.value());
            } catch (KeeperException.NoNodeException e) {
                index.taskGone(name);
                return Optional.empty();
            } catch (InterruptedException e) {
                throw e;
            } catch (Exception e) {
                throw zk.translate(e, taskPath);
            }
            readVersion = stat.getVersion();
            czxid = stat.getCzxid();
        }
        TaskRecord record = decode(name, data, readVersion);
        if (record == null) {
            return Optional.empty();
        }
        if (cached == null) {
            index.taskRead(name, record, readVersion, data, czxid);
        }
        if (record.notBeforeMillis() > now) {
            return Optional.empty();
        }
        if (record.claim() != null && claimExists(record.claim())) {
            index.passOver(name, readVersion);
            return Optional.empty();
        }
        if (queue.poison().blocked(name)) {
            index.passOver(name, readVersion); // its payload could not be decoded, and its dead letter's name is taken
            return Optional.empty();
        }
        Prepared p = prepare(name, record, readVersion, now);
        long[] committed;
        try {
            committed = commit(p);
        } catch (InterruptedException | RuntimeException e) {
            discard(p); // the transaction may have committed: never leave a claim nobody holds
            throw e;
        }
        if (committed == null) {
            index.notClaimedHere(p.claimName());
            return Optional.empty();
        }
        return adopt(p, committed[0], (int) committed[1]).map(h -> h);
    }

    private TaskRecord decode(String name, byte[] data, int version) {
        try {
            return queue.codec.decode(layout.task(name), data);
        } catch (CodecException e) {
            // Never claimable: the next sweep moves it to the dead letters, bytes as they are.
            queue.index().taskPoisoned(new TaskIndex.Poison(name, data, version, e.getMessage()));
            return null;
        }
    }

    /** Builds the claim of {@code name} (read at {@code readVersion}) and notes its node as this process's. */
    private Prepared prepare(String name, TaskRecord record, int readVersion, long now) {
        CoordPath taskPath = layout.task(name);
        String claimName = QueueLayout.claimName(name, unique());
        CoordPath claimPath = layout.claim(claimName);
        TaskRecord claimed = record.claimed(claimName, queue.options.consumerName(), now);
        byte[] claimedData = queue.codec.encode(taskPath, claimed);
        byte[] claimInfo = ClaimTimeouts.claimInfo(name, queue.options.consumerName(), now,
                queue.options.claimTimeout().toMillis());
        ZkSession session = zk.liveSession();
        List<CuratorOp> ops = List.of(
                Txn.op(zk, claimPath, () -> zk.curator().transactionOp().create().withMode(CreateMode.EPHEMERAL)
                        .forPath(claimPath.value(), claimInfo)),
                Txn.op(zk, taskPath, () -> zk.curator().transactionOp().setData().withVersion(readVersion)
                        .forPath(taskPath.value(), claimedData)));
        queue.index().claimedHere(claimName); // before the watch can see it
        return new Prepared(name, claimName, claimPath, claimed, readVersion, session, ops);
    }

    /**
     * For a completion that takes the next task in the same transaction: the first ready task whose
     * bytes the index holds and that names no earlier claim (those need a read first), held for
     * this process; null if there is none.
     */
    Prepared prepareNext() {
        TaskIndex index = queue.index();
        if (!queue.takesNextHere()) {
            return null; // a partitioned queue: another partition's head is older; complete alone
        }
        if (queue.poison().due()) {
            return null; // complete alone: the worker's next claim() moves the poison task first
        }
        long now = queue.options.clock().millis();
        for (ClaimRule.Entry candidate : index.choose(now, ThreadLocalRandom.current().nextInt(TaskIndex.MAX_SPREAD)).candidates()) {
            TaskIndex.Cached cached = index.cached(candidate.name());
            if (cached == null || !index.hold(candidate.name())) {
                continue;
            }
            TaskRecord record = decode(candidate.name(), cached.data(), cached.version());
            if (record == null || record.notBeforeMillis() > now || record.claim() != null) {
                index.unhold(candidate.name());
                continue;
            }
            try {
                return prepare(candidate.name(), record, cached.version(), now);
            } catch (RuntimeException e) {
                index.unhold(candidate.name());
                return null; // no live session right now: complete alone
            }
        }
        return null;
    }

    /** The claim committed with {@code czxid} and the task at {@code version}: its handle, if its session is still ours. */
    Optional<ZkTaskClaim<T>> adopt(Prepared p, long czxid, int version) {
        if (sessionIdNow() != p.session().id() || p.session().state().isTerminal()) {
            // The claim belongs to a session we no longer hold.
            discard(p);
            return Optional.empty();
        }
        CoordPath taskPath = layout.task(p.task());
        T payload;
        try {
            payload = queue.codec.decodePayload(taskPath, p.claimed().payload());
        } catch (CodecException e) {
            // Not a T: no consumer of this type can ever process it, so retrying is pointless; it goes
            // to the dead letters now, payload as it is, with the decode error as its last error.
            String error = "payload cannot be decoded: " + e.getMessage();
            deadLetterClaimed(p, version, error, "cannot be decoded (" + e.getMessage() + ")");
            return Optional.empty();
        }
        int unended = unendedBefore(p.claimed());
        if (queue.options.maxDeliveries() > 0 && unended >= queue.options.maxDeliveries()) {
            // It hung or killed every consumer it was handed to: handed out again it would most likely
            // cost another claim or session timeout. Dead-lettered by the consumer that won this claim,
            // so exactly once among racing consumers; payload as it is, so it can be requeued once fixed.
            String error = "delivered " + unended + " times without an ending (consumers died or their claims timed out;"
                    + " maxDeliveries is " + queue.options.maxDeliveries() + ")";
            deadLetterClaimed(p, version, error, "was " + error);
            return Optional.empty();
        }
        NodeLease lease = new NodeLease(zk, p.session(), new FencingToken(czxid, p.claimPath()));
        ZkTaskClaim<T> handle = new ZkTaskClaim<>(queue, lease, new TaskId(p.task()), p.claimed(), version);
        handle.setPayload(payload);
        return Optional.of(handle);
    }

    /**
     * Deliveries of a task that ended neither in {@code complete()} (which deletes it) nor in
     * {@code fail()} (which counts an attempt): its consumer died, its claim timed out, or it was
     * released. {@code claimed} is the record written by the claim being adopted, which counts
     * that claim as a delivery too, so it is left out.
     */
    static int unendedBefore(TaskRecord claimed) {
        return claimed.deliveries() - 1 - claimed.attempts();
    }

    /**
     * Moves the task our claim {@code p} holds at {@code version} to the dead letters with the last
     * error {@code error} (the dead-lettering of {@link PoisonTasks}, which {@code why} completes in
     * its log lines: "task … {why} and was moved"). The dead letter keeps the claim's delivery
     * count, which tells a stale claimer's lost-reply look ({@link EndingOutcome}) it is not its own.
     */
    private void deadLetterClaimed(Prepared p, int version, String error, String why) {
        TaskRecord dead = p.claimed().deadWithoutAttempt(error, queue.options.clock().millis());
        boolean moved = false;
        try {
            moved = queue.poison().moveClaimed(p.task(), p.claimPath(), version,
                    queue.codec.encode(layout.deadLetter(p.task()), dead), dead.key(), why);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            LOG.warn("could not move task {} (it {}) to the dead letters now; its next claim tries again",
                    layout.task(p.task()), why, e);
        } finally {
            if (!moved) {
                discard(p);
            }
        }
    }

    /** After a lost reply: adopts the prepared claim if its transaction did commit. */
    Optional<ZkTaskClaim<T>> adoptIfCommitted(Prepared p) {
        Stat mine = zk.callUninterruptibly(p.claimPath(), () -> zk.curator().checkExists().forPath(p.claimPath().value()));
        if (mine == null || mine.getEphemeralOwner() != p.session().id()) {
            abandon(p, false);
            return Optional.empty();
        }
        return adopt(p, mine.getCzxid(), p.readVersion() + 1);
    }

    /** The prepared claim did not commit; {@code raced}: another consumer changed the task first. */
    void abandon(Prepared p, boolean raced) {
        TaskIndex index = queue.index();
        index.notClaimedHere(p.claimName());
        if (raced) {
            index.passOver(p.task(), p.readVersion());
        }
        index.unhold(p.task());
    }

    /** The prepared claim may or may not have committed: delete its node if it exists (safe: never reused). */
    void discard(Prepared p) {
        deleteQuietly(p.claimPath());
        queue.index().unhold(p.task());
    }

    /**
     * Runs the claim transaction; returns {czxid, new task version}, or null if another consumer
     * won the task (or the task went away) first.
     */
    /**
     * One claim try of a {@link TaskQueue#claimAsync}, sent with the async API so that no thread
     * waits for the claim transaction: the task the index has cached at the head, prepared as a
     * worker's completion prepares its next one ({@link #prepareNext}), the same transaction as
     * the sync try, with Curator's retry (a claim name is unique, so a retry recognizes its own
     * commit, as {@link #commit} does). Returns false, sending nothing, where the try needs a read
     * or blocking work first (nothing cached, a poison task due, claim timeouts to look at, an
     * older task in another partition): the caller then runs the sync try. {@code done} runs on
     * the client's callback thread with the claim, empty if another consumer won the task (or it
     * went to the dead letters), or the failure.
     */
    boolean claimAsync(java.util.function.BiConsumer<Optional<TaskClaim<T>>, Throwable> done) {
        if (queue.options.claimsTimeOut()) {
            return false; // the sync try takes over timed-out claims before choosing
        }
        Prepared p = prepareNext();
        if (p == null) {
            return false;
        }
        try {
            Payloads.checkTransaction(p.ops(), Payloads.TRANSACTION_LIMIT);
            zk.curator().transaction().inBackground((client, event) -> {
                try {
                    zk.callbacks().execute(() -> claimAnswered(p, event, done));
                } catch (java.util.concurrent.RejectedExecutionException closed) {
                    discard(p);
                    done.accept(null, new IllegalStateException("the client of queue '" + layout.name + "' is closed"));
                }
            }).forOperations(p.ops());
        } catch (Exception e) {
            abandon(p, false); // not sent
            throw zk.translate(e, layout.task(p.task()));
        }
        return true;
    }

    /** On the client's callback thread: the answer to {@link #claimAsync}, read as {@link #commit} reads it. */
    private void claimAnswered(Prepared p, org.apache.curator.framework.api.CuratorEvent event,
                               java.util.function.BiConsumer<Optional<TaskClaim<T>>, Throwable> done) {
        Optional<TaskClaim<T>> claimed = Optional.empty();
        try {
            long[] committed;
            KeeperException.Code code = KeeperException.Code.get(event.getResultCode());
            if (code == KeeperException.Code.OK) {
                Stat after = event.getOpResults().get(1).getResultStat();
                committed = new long[] {after.getMzxid(), after.getVersion()};
            } else {
                committed = notCommitted(p, KeeperException.create(code, layout.task(p.task()).value()), failedIndex(event));
            }
            if (committed == null) {
                queue.index().notClaimedHere(p.claimName());
            } else {
                claimed = adopt(p, committed[0], (int) committed[1]).map(h -> h);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            discard(p);
            done.accept(null, new io.coord.CoordException("interrupted while settling a claim of queue '" + layout.name + "'", e));
            return;
        } catch (RuntimeException e) {
            discard(p); // the transaction may have committed: never leave a claim nobody holds
            done.accept(null, e);
            return;
        } finally {
            if (claimed.isEmpty()) {
                queue.index().unhold(p.task());
            }
        }
        done.accept(claimed, null);
    }

    private static int failedIndex(org.apache.curator.framework.api.CuratorEvent event) {
        List<CuratorTransactionResult> results = event.getOpResults();
        if (results == null) {
            return -1;
        }
        for (int i = 0; i < results.size(); i++) {
            int err = results.get(i).getError();
            if (err != 0 && err != KeeperException.Code.RUNTIMEINCONSISTENCY.intValue()) {
                return i;
            }
        }
        return -1;
    }

    private long[] commit(Prepared p) throws InterruptedException {
        try {
            List<CuratorTransactionResult> results = Txn.commit(zk, layout.task(p.task()), p.ops());
            Stat after = results.get(1).getResultStat();
            return new long[] {after.getMzxid(), after.getVersion()};
        } catch (KeeperException e) {
            return notCommitted(p, e, Txn.failedIndex(e));
        }
    }

    /** A claim transaction that failed with {@code e} at op {@code failed}: our own earlier commit, a lost race (null), or an error. */
    private long[] notCommitted(Prepared p, KeeperException e, int failed) throws InterruptedException {
        String name = p.task();
        int readVersion = p.readVersion();
        CoordPath claimPath = p.claimPath();
        ZkSession session = p.session();
        if (failed == 0 && e.code() == KeeperException.Code.NODEEXISTS) {
            // Our claim name is unique: a retried transaction found its own earlier commit.
            Stat mine = exists(claimPath);
            if (mine == null || mine.getEphemeralOwner() != session.id()) {
                deleteQuietly(claimPath);
                return null;
            }
            return new long[] {mine.getCzxid(), readVersion + 1};
        }
        if (failed == 1) {
            queue.index().passOver(name, readVersion); // another consumer won this one, or it is gone
            return null;
        }
        throw zk.translate(e, layout.task(name));
    }

    private boolean claimExists(String claimName) throws InterruptedException {
        if (queue.index().claimLive(claimName)) {
            return true;
        }
        return exists(layout.claim(claimName)) != null; // the cache may lag; the server decides
    }

    private Stat exists(CoordPath path) throws InterruptedException {
        return zk.call(path, () -> zk.curator().checkExists().forPath(path.value()));
    }

    void deleteQuietly(CoordPath claimPath) {
        try {
            // Guaranteed: retried in the background until it succeeds. Safe because claim names are never reused.
            zk.curator().delete().guaranteed().inBackground().forPath(claimPath.value());
        } catch (Exception e) {
            LOG.warn("could not schedule the delete of claim {}; it ends with its session", claimPath, e);
        }
    }

    private long sessionIdNow() {
        try {
            return zk.curator().getZookeeperClient().getZooKeeper().getSessionId();
        } catch (Exception e) {
            return -1;
        }
    }

    static String unique() {
        return Long.toHexString(ThreadLocalRandom.current().nextLong() | Long.MIN_VALUE);
    }
}
