package io.coord.naming;

import io.coord.CoordException;
import io.coord.CoordPath;
import io.coord.internal.Zk;
import java.util.Objects;
import java.util.function.LongSupplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link SequenceIds} on one counter node: an unconditional {@code setData} makes ZooKeeper
 * increment the node's version atomically, and the reply's {@code czxid + version} is the ID
 * ({@link IdRule}). No read, no compare-and-set, so no conflicts between clients. Before its first
 * write a generator reads the counter's nodes once and refuses a Curator counter's bytes there
 * ({@link IdNodes}); every write stores {@link IdNodes#SEQUENCE_MARK}, which Curator refuses in turn.
 */
final class ZkSequenceIds implements SequenceIds {
    private static final Logger LOG = LoggerFactory.getLogger(ZkSequenceIds.class);

    private final Zk zk;
    private final String name;
    private final CoordPath node;
    private final IdOptions options;
    private final LongSupplier nanoTime;
    private final int rolloverAt;
    /** Whether this generator has seen that the counter's nodes are Coord's ({@link IdNodes}): once, before its first write. */
    private volatile boolean checked;

    /** {@code rolloverAt} is {@link IdRule#ROLLOVER_VERSION}; tests lower it to reach a rollover. */
    ZkSequenceIds(Zk zk, String name, IdOptions options, LongSupplier nanoTime, int rolloverAt) {
        this.zk = zk;
        this.node = Layout.sequenceNode(name);
        this.name = name;
        this.options = Objects.requireNonNull(options, "options");
        this.nanoTime = nanoTime;
        this.rolloverAt = rolloverAt;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public long next() throws InterruptedException {
        Attempts attempts = new Attempts(options, nanoTime, "SequenceIds.next() on " + node);
        CuratorFramework curator = zk.curator();
        while (true) {
            Stat stat;
            try {
                if (!checked) {
                    IdNodes.check(zk, name, node);
                    checked = true;
                }
                stat = zk.call(node, () -> {
                    try {
                        return curator.setData().forPath(node.value(), IdNodes.SEQUENCE_MARK);
                    } catch (KeeperException.NoNodeException e) {
                        return null;
                    }
                });
                if (stat == null) {
                    // First use, or the node (or its parent) was deleted: a new incarnation has a
                    // higher czxid, so its IDs start above every ID handed out before.
                    create();
                    attempts.again(null);
                    continue;
                }
            } catch (CoordException e) {
                if (!Attempts.isTransient(e)) {
                    throw e;
                }
                attempts.backoff(e);
                continue;
            }
            if (IdRule.needsRollover(stat.getVersion(), rolloverAt)) {
                rollover(stat.getVersion());
            }
            long id = IdRule.sequenceId(stat.getCzxid(), stat.getVersion());
            if (id > 0) {
                return id;
            }
            attempts.again(null);
        }
    }

    private void create() throws InterruptedException {
        zk.call(node, () -> {
            try {
                zk.curator().create().creatingParentContainersIfNeeded().forPath(node.value(), IdNodes.SEQUENCE_MARK);
            } catch (KeeperException.NodeExistsException raced) {
                // another client created it first: fine, it is the same counter
            }
            return null;
        });
    }

    /**
     * Deletes and re-creates the counter in one transaction, before its 32-bit version can wrap.
     * Unconditional on purpose: under load a version check would rarely pass, and an extra rollover
     * by a racing client is harmless (every new incarnation starts above every earlier ID).
     */
    private void rollover(int version) throws InterruptedException {
        try {
            zk.call(node, () -> {
                CuratorFramework curator = zk.curator();
                try {
                    curator.transaction().forOperations(
                            curator.transactionOp().delete().forPath(node.value()),
                            curator.transactionOp().create().forPath(node.value(), IdNodes.SEQUENCE_MARK));
                } catch (KeeperException.NoNodeException gone) {
                    // deleted meanwhile: the next write re-creates it
                }
                return null;
            });
            LOG.info("rolled over sequence counter {} at version {}", node, version);
            zk.client().metrics().increment("coord.ids.rollovers", "name", name);
        } catch (CoordException e) {
            if (!Attempts.isTransient(e)) {
                throw e;
            }
            LOG.debug("rollover of {} failed; the next write tries again", node, e);
        }
    }

    @Override
    public String toString() {
        return "SequenceIds[" + node + "]";
    }
}
