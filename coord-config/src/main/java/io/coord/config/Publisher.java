package io.coord.config;

import io.coord.ConflictException;
import io.coord.CoordException;
import io.coord.CoordPath;
import io.coord.internal.Payloads;
import io.coord.internal.Zk;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.data.Stat;

/**
 * Publishes one value as a new version of a key, in one transaction with its history entry:
 * {@code multi(setData(key, v) | create(key), create(.history/key/v-{n}), delete(oldest history…),
 * extra…)}. A reader can never see a version that has no history entry, and a failed publish
 * leaves nothing behind.
 *
 * <p>An expected version of {@link #ANY} reads the current version and retries on a concurrent
 * write; a real version is a compare-and-set; {@link #ABSENT} is create-if-absent. A transaction
 * whose answer was lost may have committed: when the retry then conflicts, the node is read, and
 * if it holds exactly our bytes at exactly the version we would have made, that was our write.
 */
final class Publisher {
    static final long ANY = -2;
    static final long ABSENT = -1;
    /** Result of a create-if-absent that found the key already there. */
    static final long EXISTED = -1;
    static final int MAX_ATTEMPTS = 20;

    private final Zk zk;
    private final CuratorFramework curator;
    private final int historyDepth;

    Publisher(Zk zk, int historyDepth) {
        this.zk = zk;
        this.curator = zk.curator();
        this.historyDepth = historyDepth;
    }

    /** Extra operations that go into the same transaction (a promote deletes the canary). */
    interface Extra {
        List<CuratorOp> ops() throws Exception;
    }

    /**
     * Publishes {@code bytes} (already checked) at {@code node} and returns the new version, or
     * {@link #EXISTED} if {@code expected} is {@link #ABSENT} and the key exists.
     *
     * @throws ConflictException naming the current version if a compare-and-set lost, or if
     *                           {@code extra}'s operations no longer hold
     */
    long publish(String app, String key, byte[] bytes, long expected, Extra extra) throws InterruptedException {
        CoordPath node = ConfigLayout.key(app, key);
        CoordPath historyDir = ConfigLayout.historyDir(app, key);
        ensure(historyDir);
        for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
            long base = expected;
            if (expected == ANY) {
                Stat stat = zk.call(node, () -> curator.checkExists().forPath(node.value()));
                base = stat == null ? ABSENT : stat.getVersion();
            }
            long version = base == ABSENT ? 0 : base + 1;
            List<CuratorOp> ops = ops(app, key, node, historyDir, bytes, base, version);
            int nodeOps = ops.size();
            if (extra != null) {
                ops.addAll(zk.call(node, extra::ops));
            }
            Payloads.checkTransaction(ops, Payloads.TRANSACTION_LIMIT);
            KeeperException failure = zk.call(node, () -> {
                try {
                    curator.transaction().forOperations(ops);
                    return null;
                } catch (KeeperException e) {
                    if (e.getResults() == null) {
                        throw e; // not a per-operation failure: connection, auth, ...
                    }
                    return e;
                }
            });
            if (failure == null) {
                return version;
            }
            int failed = failedOp(failure.getResults());
            KeeperException.Code code = failed < 0 ? failure.code() : KeeperException.Code.get(((OpResult.ErrorResult) failure.getResults().get(failed)).getErr());
            if (code == KeeperException.Code.NOAUTH || code == KeeperException.Code.INVALIDACL) {
                throw zk.translate(KeeperException.create(code, failed < 0 ? node.value() : ops.get(failed).getTypeAndPath().getForPath()), node);
            }
            if (alreadyOurs(node, bytes, version)) {
                return version; // an earlier attempt committed; its answer was lost
            }
            if (failed >= nodeOps) {
                throw new ConflictException("publishing " + node + " failed: " + ops.get(failed).getTypeAndPath().getForPath()
                        + " changed meanwhile (" + code + "); nothing was written");
            }
            if (failed == 0 && expected == ABSENT && code == KeeperException.Code.NODEEXISTS) {
                return EXISTED;
            }
            if (failed == 0 && expected >= 0) {
                Stat now = zk.call(node, () -> curator.checkExists().forPath(node.value()));
                throw new ConflictException("compare-and-set of " + node + " expected version " + expected + " but "
                        + (now == null ? "the key does not exist" : "the current version is " + now.getVersion())
                        + "; nothing was written", failure);
            }
            // ANY lost a race with another writer, or history changed under us: read again and retry
        }
        throw new ConflictException("publishing " + node + " lost to concurrent writers " + MAX_ATTEMPTS + " times; nothing was written");
    }

    private List<CuratorOp> ops(String app, String key, CoordPath node, CoordPath historyDir, byte[] bytes, long base, long version)
            throws InterruptedException {
        List<String> history = zk.call(historyDir, () -> curator.getChildren().forPath(historyDir.value()));
        return ops(app, key, node, historyDir, history, bytes, base, version, new ArrayList<>());
    }

    /**
     * The publish transaction on top of {@code ops} (which may already hold creates of missing
     * directories): the key's write first, then the history entry and the trimming of the oldest,
     * given the history's current names.
     */
    List<CuratorOp> ops(String app, String key, CoordPath node, CoordPath historyDir, List<String> children, byte[] bytes,
                        long base, long version, List<CuratorOp> ops) {
        List<String> history = ConfigLayout.sortedHistory(children);
        try {
            ops.add(base == ABSENT ? curator.transactionOp().create().forPath(node.value(), bytes)
                    : curator.transactionOp().setData().withVersion((int) base).forPath(node.value(), bytes));
            String name = ConfigLayout.historyName(version);
            List<String> kept = new ArrayList<>(history);
            if (kept.remove(name)) {
                // left over from a key deleted outside Coord: the new version replaces it
                ops.add(curator.transactionOp().delete().forPath(historyDir.child(name).value()));
            }
            int drop = kept.size() + 1 - historyDepth;
            for (int i = 0; i < drop; i++) {
                ops.add(curator.transactionOp().delete().forPath(historyDir.child(kept.get(i)).value()));
            }
            ops.add(curator.transactionOp().create().forPath(ConfigLayout.historyNode(app, key, version).value(), bytes));
        } catch (Exception e) {
            throw zk.translate(e, node);
        }
        return ops;
    }

    /** Index of the operation that made the transaction fail, or -1. */
    static int failedOp(List<OpResult> results) {
        for (int i = 0; i < results.size(); i++) {
            if (results.get(i) instanceof OpResult.ErrorResult error) {
                int err = error.getErr();
                if (err != 0 && err != KeeperException.Code.RUNTIMEINCONSISTENCY.intValue()) {
                    return i;
                }
            }
        }
        return -1;
    }

    private boolean alreadyOurs(CoordPath node, byte[] bytes, long version) throws InterruptedException {
        Stat stat = new Stat();
        byte[] now;
        try {
            now = zk.call(node, () -> {
                try {
                    return curator.getData().storingStatIn(stat).forPath(node.value());
                } catch (KeeperException.NoNodeException e) {
                    return null;
                }
            });
        } catch (CoordException e) {
            return false;
        }
        return now != null && stat.getVersion() == version && Arrays.equals(now, bytes);
    }

    /** Creates {@code dir} and its parents if missing (with the client's ACL policy). */
    void ensure(CoordPath dir) throws InterruptedException {
        zk.call(dir, () -> {
            if (curator.checkExists().forPath(dir.value()) != null) {
                return null; // the usual case; and a writer without permission then fails on the key itself
            }
            try {
                curator.create().creatingParentsIfNeeded().forPath(dir.value());
            } catch (KeeperException.NodeExistsException e) {
                // there already
            }
            return null;
        });
    }
}
