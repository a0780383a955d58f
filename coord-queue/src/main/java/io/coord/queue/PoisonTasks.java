package io.coord.queue;

import com.fasterxml.jackson.databind.JsonNode;
import io.coord.Codec;
import io.coord.CoordPath;
import io.coord.internal.Zk;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves tasks that cannot be decoded to the dead letters: bytes that are not a task record (a bad
 * hand edit, a producer bug), or a record whose payload is not the queue's type. No consumer can
 * ever process such a task, and passed over it would sit in {@code tasks/} forever. It moves with
 * the discipline of {@code fail()} at the last attempt, claim then one transaction, so that of
 * several consumers racing for it exactly one moves it and none loses it:
 * <pre>
 * claim  multi(create claims/{task}~{unique} EPHEMERAL, setData tasks/{task} = the same bytes @ version read)
 * dead   multi(delete that claim, delete tasks/{task} @ version claimed, create dead/{task}, [delete keys/…])
 * </pre>
 * The claim's version check lets one consumer win (the others fail at the task and drop it until
 * their next read of it); rewriting the same bytes moves the version on, which fences out any
 * earlier claimer; a task a live claim holds (corrupted under its consumer) is left to that claim's
 * ending. The dead letter of bytes that are not a record is those bytes unchanged, so an operator
 * can repair and requeue them ({@link TaskQueue#deadLetters()} shows them with the decode error);
 * a record whose payload is not a {@code T} goes as a dead letter with the decode error as its last
 * error, payload unchanged. Runs on consumer threads, in {@code claim()}: never on ZooKeeper's
 * event thread, where the watch finds these tasks ({@link TaskIndex#taskPoisoned}).
 *
 * <p>{@link #moveClaimed} is also the move of the other kind of poison task, found by
 * {@link Claimer} once a claim is made: one that hangs or kills every consumer it is handed to,
 * delivered {@link QueueOptions#maxDeliveries()} times without an ending.
 */
final class PoisonTasks<T> {
    private static final Logger LOG = LoggerFactory.getLogger(PoisonTasks.class);

    private final ZkTaskQueue<T> queue;
    private final Zk zk;
    private final QueueLayout layout;
    /**
     * Tasks whose dead letter's name is taken (a node made by hand under {@code dead/}): moving them
     * fails until it is gone, and trying again at every claim would churn claims. Checked with one
     * read before each try.
     */
    private final Set<String> deadNameTaken = ConcurrentHashMap.newKeySet();

    PoisonTasks(ZkTaskQueue<T> queue) {
        this.queue = queue;
        this.zk = queue.zk;
        this.layout = queue.layout;
    }

    /** Dead-letters every undecodable task the index holds that no one here or elsewhere is working on. */
    void sweep() throws InterruptedException {
        TaskIndex index = queue.index();
        for (TaskIndex.Poison bad : index.poisoned()) {
            if (blocked(bad.name()) || !index.hold(bad.name())) {
                continue;
            }
            boolean moved = false;
            try {
                moved = deadLetter(bad);
            } catch (RuntimeException e) {
                LOG.warn("could not move undecodable task {} to the dead letters now; its next read tries again: {}",
                        layout.task(bad.name()), e.toString());
            } finally {
                if (!moved) {
                    // Changed, gone, taken by another consumer, or no connection: the watch reads it again
                    // (on its change, its claim's end, or the resync after a reconnect) and that decides.
                    index.poisonNotMoved(bad);
                    index.unhold(bad.name());
                }
            }
        }
    }

    /**
     * Whether a sweep has a task to move now: a worker that would go straight from a completion to
     * its next task ({@link Claimer#prepareNext}) goes through {@code claim()} instead, so a poison
     * task is moved by the first consumer that reads it even under steady load.
     */
    boolean due() {
        return queue.index().poisoned().stream().anyMatch(p -> !deadNameTaken.contains(p.name()));
    }

    /** Claims {@code bad} at the version read, then moves it; false if another consumer or a change came first. */
    private boolean deadLetter(TaskIndex.Poison bad) throws InterruptedException {
        TaskIndex index = queue.index();
        String name = bad.name();
        CoordPath taskPath = layout.task(name);
        String claimName = QueueLayout.claimName(name, Claimer.unique());
        CoordPath claimPath = layout.claim(claimName);
        // no timeout: nothing takes this short-lived claim over, the dead-lettering that follows ends it
        byte[] info = ClaimTimeouts.claimInfo(name, queue.options.consumerName(), queue.options.clock().millis(), 0);
        long session = zk.liveSession().id();
        index.claimedHere(claimName); // before the watch can see it
        List<CuratorOp> claim = List.of(
                Txn.op(zk, claimPath, () -> zk.curator().transactionOp().create().withMode(CreateMode.EPHEMERAL)
                        .forPath(claimPath.value(), info)),
                Txn.op(zk, taskPath, () -> zk.curator().transactionOp().setData().withVersion(bad.version())
                        .forPath(taskPath.value(), bad.data())));
        Stat claimed;
        try {
            claimed = Txn.commit(zk, taskPath, claim).get(1).getResultStat();
        } catch (KeeperException e) {
            int failed = Txn.failedIndex(e);
            Stat mine = failed == 0 && e.code() == KeeperException.Code.NODEEXISTS ? exists(claimPath) : null;
            if (mine == null || mine.getEphemeralOwner() != session) {
                index.notClaimedHere(claimName);
                if (failed != 1) {
                    queue.claimer().deleteQuietly(claimPath); // it may have committed: never leave a claim nobody holds
                }
                return false;
            }
            claimed = exists(taskPath); // a retried send found its own earlier commit (claim names are unique)
            if (claimed == null) {
                queue.claimer().deleteQuietly(claimPath);
                return false;
            }
        }
        return moveClaimed(name, claimPath, claimed.getVersion(), bad.data(), keyOf(name, bad.data(), claimed.getCzxid()),
                "cannot be decoded (" + bad.error() + ")");
    }

    /**
     * The key node of task {@code task}, whose bytes are {@code data} and czxid {@code czxid}: left
     * behind, a caller key would make a later enqueue with it return this task's id, and a requeue of
     * the repaired dead letter fail. Its key was made in the task's own enqueue transaction, so it
     * has the task's czxid; a batch ({@code enqueueAll}) gives all its keys and tasks one czxid, so
     * the keys named by the batch's other live tasks are struck out, then those gone meanwhile (a
     * key goes in the same transaction as its task, so a sibling not read had ended). Null if that does not leave
     * exactly one (or the one the bytes name, if they are JSON that names a key): the key node then
     * stays, which is safer than deleting another task's. Reads every key's stat and the batch's
     * tasks: as many reads as the queue is deep, for a task that cannot be read, never for a claim.
     */
    private String keyOf(String task, byte[] data, long czxid) throws InterruptedException {
        Set<String> candidates = new HashSet<>();
        for (String name : zk.call(layout.keys, () -> zk.curator().getChildren().forPath(layout.keys.value()))) {
            Stat key = QueueLayout.isKeyName(name) ? exists(layout.key(name)) : null;
            if (key != null && key.getCzxid() == czxid) {
                candidates.add(name);
            }
        }
        if (candidates.size() > 1) {
            for (String sibling : zk.call(layout.tasks, () -> zk.curator().getChildren().forPath(layout.tasks.value()))) {
                if (sibling.equals(task) || !QueueLayout.isTaskName(sibling)) {
                    continue;
                }
                Stat stat = new Stat();
                byte[] bytes = zk.call(layout.task(sibling), () -> {
                    try {
                        return zk.curator().getData().storingStatIn(stat).forPath(layout.task(sibling).value());
                    } catch (KeeperException.NoNodeException gone) {
                        return null;
                    }
                });
                if (bytes != null && stat.getCzxid() == czxid) {
                    candidates.remove(keyNamedIn(bytes));
                }
            }
            // A sibling that ended after the key listing was not read, but its key went with it.
            for (String name : Set.copyOf(candidates)) {
                if (exists(layout.key(name)) == null) {
                    candidates.remove(name);
                }
            }
        }
        String named = keyNamedIn(data);
        if (named != null && candidates.contains(named)) {
            return named;
        }
        return candidates.size() == 1 ? candidates.iterator().next() : null;
    }

    /**
     * The second transaction: with our claim {@code claimPath} on task {@code name} at
     * {@code version}, replaces the task by the dead letter {@code dead}, deleting its key node
     * {@code key} if known (as the task's last ending does). False if it did not commit (the claim
     * is then deleted). {@code why} says what is wrong with the task in the log lines ("task … {why}
     * and was moved"). Also moves tasks delivered {@link QueueOptions#maxDeliveries()} times
     * without an ending ({@link Claimer}): poison of the other kind, which hangs or kills its consumers.
     */
    boolean moveClaimed(String name, CoordPath claimPath, int version, byte[] dead, String key, String why)
            throws InterruptedException {
        CoordPath taskPath = layout.task(name);
        CoordPath deadPath = layout.deadLetter(name);
        List<CuratorOp> ops = new ArrayList<>(List.of(
                Txn.op(zk, claimPath, () -> zk.curator().transactionOp().delete().forPath(claimPath.value())),
                Txn.op(zk, taskPath, () -> zk.curator().transactionOp().delete().withVersion(version).forPath(taskPath.value())),
                Txn.op(zk, deadPath, () -> zk.curator().transactionOp().create().forPath(deadPath.value(), dead))));
        if (key != null) {
            CoordPath keyPath = layout.key(key);
            ops.add(Txn.op(zk, keyPath, () -> zk.curator().transactionOp().delete().forPath(keyPath.value())));
        }
        try {
            Txn.commit(zk, taskPath, ops);
        } catch (KeeperException e) {
            if (key != null && Txn.failedIndex(e) == 3 && e.code() == KeeperException.Code.NONODE) {
                return moveClaimed(name, claimPath, version, dead, null, why); // no key node: move it without
            }
            if (Txn.failedIndex(e) == 2 && e.code() == KeeperException.Code.NODEEXISTS && deadNameTaken.add(name)) {
                LOG.warn("task {} {} and cannot be moved to the dead letters: {} exists already (not made by"
                        + " this queue); delete or rename it and the task moves", taskPath, why, deadPath);
            }
            // After a lost reply Curator sends it again, which then fails at our claim: look whether the first send moved it.
            if (exists(taskPath) != null || exists(deadPath) == null) {
                queue.claimer().deleteQuietly(claimPath);
                return false;
            }
        }
        queue.index().finishedHere(name);
        queue.metrics.deadLettered();
        LOG.warn("task {} {} and was moved to the dead letters", taskPath, why);
        return true;
    }

    /** Whether moving {@code task} waits for its dead letter's name to be free (see {@link #deadNameTaken}). */
    boolean blocked(String task) throws InterruptedException {
        if (!deadNameTaken.contains(task)) {
            return false;
        }
        if (exists(layout.deadLetter(task)) != null) {
            return true;
        }
        deadNameTaken.remove(task);
        return false;
    }

    /** The key node named in bytes that are JSON with a valid {@code key} field, else null. */
    private static String keyNamedIn(byte[] data) {
        try {
            JsonNode tree = Codec.mapper().readTree(data);
            String key = tree == null ? null : tree.path("key").asText(null);
            return key != null && QueueLayout.isKeyName(key) && key.indexOf('/') < 0 ? key : null;
        } catch (IOException | RuntimeException notJson) {
            return null;
        }
    }

    private Stat exists(CoordPath path) throws InterruptedException {
        return zk.call(path, () -> zk.curator().checkExists().forPath(path.value()));
    }
}
