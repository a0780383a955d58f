package io.coord.config;

import io.coord.ConflictException;
import io.coord.CoordException;
import io.coord.CoordPath;
import io.coord.internal.Payloads;
import io.coord.internal.Zk;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
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
 *
 * <p>Reading first costs round trips before the write readers wait for (a put was the key's stat,
 * the history's listing and its directory's stat, then the transaction: 4 requests, where a plain
 * setData with the version from its last reply is 1). So the store remembers, from its own
 * committed replies, the version and history names each key was left with ({@link Known}), and the
 * next publish of that key sends its transaction at once: 1 request. That is only a guess, safe
 * because every operation in the transaction is conditional: the setData on that version, the
 * create of a history name that must not exist, the deletes of names that must. If anyone else
 * wrote meanwhile the transaction fails whole, nothing is written, and the publish reads and
 * retries as without a guess. The history stays in the same transaction as the value: splitting
 * them would not make the value's write any sooner (one multi is one server transaction, one
 * fsync) and would open a window where a version has no history entry.
 */
final class Publisher {
    static final long ANY = -2;
    static final long ABSENT = -1;
    /** Result of a create-if-absent that found the key already there. */
    static final long EXISTED = -1;
    static final int MAX_ATTEMPTS = 20;
    /** Keys whose last publish this store remembers; past it, it forgets them all (each then reads once). */
    static final int MAX_KNOWN = 1024;

    private final Zk zk;
    private final CuratorFramework curator;
    private final int historyDepth;
    private final ConcurrentHashMap<CoordPath, Known> known = new ConcurrentHashMap<>();

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
        Known guess = take(node, expected);
        boolean ensured = false;
        for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
            long base = expected;
            List<String> children;
            if (guess != null) {
                base = guess.version();
                children = guess.history();
                guess = null; // one try: if it fails, the retry reads
            } else {
                if (!ensured) {
                    ensure(historyDir);
                    ensured = true;
                }
                if (expected == ANY) {
                    Stat stat = zk.call(node, () -> curator.checkExists().forPath(node.value()));
                    base = stat == null ? ABSENT : stat.getVersion();
                }
                children = zk.call(historyDir, () -> curator.getChildren().forPath(historyDir.value()));
            }
            long version = base == ABSENT ? 0 : base + 1;
            Plan plan = plan(app, key, node, historyDir, children, bytes, base, version, new ArrayList<>());
            List<CuratorOp> ops = plan.ops();
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
                remember(node, version, plan.historyAfter());
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
            // ANY lost a race with another writer, history changed under us, or the guess was stale: read again and retry
        }
        throw new ConflictException("publishing " + node + " lost to concurrent writers " + MAX_ATTEMPTS + " times; nothing was written");
    }

    /**
     * What this store's last committed publish of a key left there, from its own reply: the key's
     * version and its history's names.
     */
    record Known(long version, List<String> history) {
    }

    /**
     * The guess for a publish of {@code node} expecting {@code expected}, taken out (a concurrent
     * publish of the same key reads for itself), or null: none kept, a create-if-absent, or a
     * compare-and-set expecting another version than the one this store left (that one reads, to
     * name the current version if it lost).
     */
    Known take(CoordPath node, long expected) {
        if (expected == ABSENT) {
            return null;
        }
        Known guess = known.remove(node);
        return guess != null && (expected == ANY || expected == guess.version()) ? guess : null;
    }

    /** After a committed publish: what it left, for the next publish of the key to send at once. */
    void remember(CoordPath node, long version, List<String> history) {
        if (known.size() >= MAX_KNOWN) {
            known.clear(); // a store writing many keys pays one read per key again, not unbounded memory
        }
        known.put(node, new Known(version, List.copyOf(history)));
    }

    /** A publish transaction and the history names it leaves once it commits. */
    record Plan(List<CuratorOp> ops, List<String> historyAfter) {
    }

    /**
     * The publish transaction on top of {@code ops} (which may already hold creates of missing
     * directories): the key's write first, then the history entry and the trimming of the oldest,
     * given the history's current names.
     */
    Plan plan(String app, String key, CoordPath node, CoordPath historyDir, List<String> children, byte[] bytes,
              long base, long version, List<CuratorOp> ops) {
        List<String> history = ConfigLayout.sortedHistory(children);
        List<String> after;
        try {
            ops.add(base == ABSENT ? curator.transactionOp().create().forPath(node.value(), bytes)
                    : curator.transactionOp().setData().withVersion((int) base).forPath(node.value(), bytes));
            String name = ConfigLayout.historyName(version);
            List<String> kept = new ArrayList<>(history);
            if (kept.remove(name)) {
                // left over from a key deleted outside Coord: the new version replaces it
                ops.add(curator.transactionOp().delete().forPath(historyDir.child(name).value()));
            }
            int drop = Math.max(0, kept.size() + 1 - historyDepth);
            for (int i = 0; i < drop; i++) {
                ops.add(curator.transactionOp().delete().forPath(historyDir.child(kept.get(i)).value()));
            }
            ops.add(curator.transactionOp().create().forPath(ConfigLayout.historyNode(app, key, version).value(), bytes));
            after = new ArrayList<>(kept.subList(drop, kept.size()));
            after.add(name);
        } catch (Exception e) {
            throw zk.translate(e, node);
        }
        return new Plan(ops, after);
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
