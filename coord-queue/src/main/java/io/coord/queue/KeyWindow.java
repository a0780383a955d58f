package io.coord.queue;

import io.coord.CoordException;
import io.coord.CoordPath;
import io.coord.internal.SequentialNodes;
import io.coord.internal.Zk;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The idempotency window: completed tasks' caller keys, remembered for a while so that a retried
 * enqueue is answered "already completed" instead of adding the task again.
 *
 * <p>A completion does not delete a caller key ({@code keys/k-…}) but rewrites it, in the
 * completion's own transaction, as a record {@code completed:task-…}, and adds an entry
 * {@code completed/c-{seq}} naming the key and the task. Same transaction, so a key is remembered
 * exactly when its task completed. The key node keeps blocking a new enqueue with that key, and the
 * record's mtime is the completion time by ZooKeeper's clock.
 *
 * <p>Forgetting is a bounded sweep, run by producers (on their own thread, never an event thread):
 * entries are sequential, so {@code completed/} lists completions oldest first in short names,
 * and {@code keys/} (long names, and every live task's key) is not listed. A sweep drops the
 * oldest entries past {@link QueueOptions#idempotencyKeys()} and those older than
 * {@link QueueOptions#idempotencyWindow()}, judging age by node times against the server's "now"
 * (the mtime of a write to {@code completed/} itself), never by one client's clock. An entry whose
 * key no longer holds its record (evicted already, or reused since) is dropped alone.
 */
final class KeyWindow {
    private static final Logger LOG = LoggerFactory.getLogger(KeyWindow.class);
    private static final String COMPLETED = "completed:";

    private final Zk zk;
    private final QueueLayout layout;
    private final QueueOptions options;
    private final Object sweeping = new Object();
    /** When this instance last swept by age (System.nanoTime); only schedules sweeps, never judges age. */
    private long lastAgeSweep = System.nanoTime();

    KeyWindow(Zk zk, QueueLayout layout, QueueOptions options) {
        this.zk = zk;
        this.layout = layout;
        this.options = options;
    }

    /** The key record a completion writes. */
    static byte[] completedRecord(TaskId id) {
        return (COMPLETED + id.name()).getBytes(StandardCharsets.UTF_8);
    }

    /** The completed task a key node's data names, or null if the key belongs to a live task. */
    static TaskId completedTask(byte[] keyData) {
        if (keyData == null) {
            return null;
        }
        String s = new String(keyData, StandardCharsets.UTF_8);
        return s.startsWith(COMPLETED) ? new TaskId(s.substring(COMPLETED.length())) : null;
    }

    /**
     * The completion transaction's ops for the task's key, first op first: a caller key becomes a
     * record plus an entry, an automatic key ({@code a-…}) is deleted, as nobody can retry with it.
     */
    List<CuratorOp> completionOps(String keyNode, TaskId id) {
        if (keyNode == null) {
            return List.of(); // a single unkeyed task: no key node
        }
        CoordPath key = layout.key(keyNode);
        if (!keyNode.startsWith(QueueLayout.USER_KEY_PREFIX)) {
            return List.of(Txn.op(zk, key, () -> zk.curator().transactionOp().delete().forPath(key.value())));
        }
        CoordPath prefix = layout.completedEntry(QueueLayout.COMPLETED_PREFIX);
        byte[] entry = (keyNode + " " + id.name()).getBytes(StandardCharsets.UTF_8);
        return List.of(
                Txn.op(zk, key, () -> zk.curator().transactionOp().setData().forPath(key.value(), completedRecord(id))),
                Txn.op(zk, prefix, () -> zk.curator().transactionOp().create().withMode(CreateMode.PERSISTENT_SEQUENTIAL)
                        .forPath(prefix.value(), entry)));
    }

    /**
     * Before a keyed enqueue: sweeps if more completions are remembered than the bound (one stat
     * read tells), or if this instance has not swept by age for half a window.
     */
    void sweepIfDue() {
        Stat dir = zk.callUninterruptibly(layout.completed, () -> zk.curator().checkExists().forPath(layout.completed.value()));
        if (dir == null || dir.getNumChildren() == 0) {
            return;
        }
        boolean ageDue;
        synchronized (sweeping) {
            ageDue = System.nanoTime() - lastAgeSweep >= options.idempotencyWindow().toNanos() / 2;
        }
        if (dir.getNumChildren() > options.idempotencyKeys() || ageDue) {
            sweep();
        }
    }

    /** Drops the oldest remembered completions past the count bound, then every one older than the window. */
    void sweep() {
        synchronized (sweeping) {
            List<String> entries = new ArrayList<>(SequentialNodes.sorted(
                    zk.callUninterruptibly(layout.completed, () -> zk.curator().getChildren().forPath(layout.completed.value())),
                    QueueLayout.COMPLETED_PREFIX));
            entries.sort(Comparator.comparingLong(SequentialNodes::sequence));
            long now = serverNow();
            long window = options.idempotencyWindow().toMillis();
            int excess = entries.size() - options.idempotencyKeys();
            for (String entry : entries) {
                if (excess-- > 0) {
                    evict(entry);
                    continue;
                }
                CoordPath path = layout.completedEntry(entry);
                Stat stat = zk.callUninterruptibly(path, () -> zk.curator().checkExists().forPath(path.value()));
                if (stat == null) {
                    continue;
                }
                if (now - stat.getCtime() < window) {
                    break; // entries are in completion order: the rest are younger
                }
                evict(entry);
            }
            lastAgeSweep = System.nanoTime();
        }
    }

    /**
     * After an enqueue found {@code key} holding a completed record at {@code stat}: whether the
     * record is past the window by the server's clock. If it is, the record is deleted (at that
     * version, so a concurrent sweep or enqueue is not undone) and the key is free again; its
     * entry is dropped by a later sweep.
     */
    boolean forgetIfExpired(CoordPath key, Stat stat) {
        if (serverNow() - stat.getMtime() < options.idempotencyWindow().toMillis()) {
            return false;
        }
        try {
            zk.curator().delete().withVersion(stat.getVersion()).forPath(key.value());
        } catch (KeeperException.NoNodeException | KeeperException.BadVersionException raced) {
            // another producer forgot it first, or reused it: the caller reads the key again
        } catch (Exception e) {
            throw zk.translate(e, key);
        }
        return true;
    }

    /** ZooKeeper's clock now: the mtime of a write to {@code completed/} (its data stays empty). */
    private long serverNow() {
        return zk.callUninterruptibly(layout.completed,
                () -> zk.curator().setData().forPath(layout.completed.value(), new byte[0])).getMtime();
    }

    /** Forgets one completion: its entry, and its key if that still holds the record the entry names. */
    private void evict(String entry) {
        CoordPath path = layout.completedEntry(entry);
        String[] names;
        try {
            names = new String(zk.curator().getData().forPath(path.value()), StandardCharsets.UTF_8).split(" ", 2);
        } catch (KeeperException.NoNodeException gone) {
            return;
        } catch (Exception e) {
            throw zk.translate(e, path);
        }
        List<CuratorOp> ops = new ArrayList<>();
        ops.add(Txn.op(zk, path, () -> zk.curator().transactionOp().delete().forPath(path.value())));
        if (names.length == 2 && QueueLayout.isKeyName(names[0]) && QueueLayout.isTaskName(names[1])) {
            CoordPath key = layout.key(names[0]);
            Stat stat = new Stat();
            try {
                byte[] data = zk.curator().getData().storingStatIn(stat).forPath(key.value());
                if (new TaskId(names[1]).equals(completedTask(data))) {
                    ops.add(Txn.op(zk, key, () -> zk.curator().transactionOp().delete().withVersion(stat.getVersion())
                            .forPath(key.value())));
                }
            } catch (KeeperException.NoNodeException gone) {
                // forgotten already: drop the entry alone
            } catch (Exception e) {
                throw zk.translate(e, key);
            }
        } else {
            LOG.warn("entry {} of queue '{}' does not name a key and a task; dropping it", path, layout.name);
        }
        try {
            Txn.commit(zk, path, ops);
        } catch (KeeperException e) {
            // Another sweep or enqueue got there first: what it did stands, and this entry (if
            // still there) is met by the next sweep.
            LOG.debug("could not forget {} of queue '{}': {}", entry, layout.name, e.code());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CoordException("interrupted while forgetting completed keys of queue '" + layout.name + "'", e);
        }
    }
}
