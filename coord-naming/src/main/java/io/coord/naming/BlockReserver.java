package io.coord.naming;

import io.coord.CoordException;
import io.coord.CoordMetrics;
import io.coord.CoordPath;
import io.coord.internal.Zk;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reserves one block with a compare-and-set on the block counter node (the ZooKeeper side of
 * {@link ZkBlockIds}). Called by one thread at a time. The rules are in {@link IdRule}:
 * <ul>
 *   <li>the node holds the next free ID and the tag of the write that set it;</li>
 *   <li>an invalid counter (written outside Coord, or by a compare-and-set that landed on a newer
 *       incarnation) is never used: it is rolled over; but a Curator counter's bytes (4 or 8) are
 *       refused by name ({@link IdNodes}), never rolled over;</li>
 *   <li>after a lost reply the node is re-read: if it holds our tag and value, the block is ours;
 *       otherwise it may be a gap, never a duplicate.</li>
 * </ul>
 */
final class BlockReserver {
    private static final Logger LOG = LoggerFactory.getLogger(BlockReserver.class);

    /** What we last know of the counter node: its incarnation, version and stored value (-1 = empty). */
    private record Known(long czxid, int version, long stored, String tag) {
    }

    /** A compare-and-set sent whose reply may have been lost. */
    private record Attempt(long czxid, long first, long newNext, String tag) {
    }

    private final Zk zk;
    private final String name;
    private final CoordPath node;
    private final IdOptions options;
    private final LongSupplier nanoTime;
    private final int rolloverAt;
    private final CoordMetrics metrics;
    private final String tagPrefix = IdRule.newTagPrefix();
    private final AtomicLong tags = new AtomicLong();
    /** Our own last successful write: lets the next reservation skip the read when nobody else wrote. */
    private volatile Known known;
    /** Whether the counter's nodes were seen to be Coord's ({@link IdNodes}): once, before the first write. */
    private boolean checked;

    BlockReserver(Zk zk, String name, CoordPath node, IdOptions options, LongSupplier nanoTime, int rolloverAt) {
        this.zk = zk;
        this.name = name;
        this.node = node;
        this.options = options;
        this.nanoTime = nanoTime;
        this.rolloverAt = rolloverAt;
        this.metrics = zk.client().metrics();
    }

    IdRule.Block reserve() throws InterruptedException {
        int size = options.blockSize();
        String tag = tagPrefix + "-" + tags.incrementAndGet();
        Attempts attempts = new Attempts(options, nanoTime, "reserving a block of " + size + " IDs on " + node);
        Known k = known;
        Attempt sent = null;
        int conflicts = 0;
        while (true) {
            try {
                if (!checked) {
                    IdNodes.check(zk, name, node);
                    checked = true;
                }
                if (k == null) {
                    k = read();
                    if (k == null) {
                        create();
                        attempts.again(null);
                        continue;
                    }
                    if (sent != null && k.czxid() == sent.czxid() && k.stored() == sent.newNext() && k.tag().equals(sent.tag())) {
                        // Our write was applied although its reply was lost (or Curator's retry of it
                        // met the version it had itself moved): the block is ours.
                        known = k;
                        return reserved(sent.first(), size);
                    }
                }
                long next = IdRule.validNext(k.czxid(), k.version(), k.stored());
                if (next < 0 || IdRule.needsRollover(k.version(), rolloverAt)) {
                    rollover(k, next < 0 ? "it holds an invalid value" : "its version is near the 32-bit limit");
                    k = null;
                    attempts.again(null);
                    continue;
                }
                long newNext = next + size;
                sent = new Attempt(k.czxid(), next, newNext, tag);
                Stat stat = compareAndSet(k.version(), IdRule.encodeCounter(newNext, tag));
                if (stat == null) {
                    // Another client reserved first (or the node is gone): re-read, and back off
                    // from the second conflict on so that racing clients spread out.
                    metrics.increment("coord.ids.block.conflicts", "name", name);
                    k = null;
                    if (++conflicts > 1) {
                        attempts.backoff(null);
                    } else {
                        attempts.again(null);
                    }
                    continue;
                }
                if (stat.getCzxid() != k.czxid()) {
                    // Prepared on an older incarnation, applied to a newer one at the same version.
                    // The value we wrote is below the newer base, so nobody will use it; discard
                    // our block and roll the node over now.
                    LOG.warn("block counter {} was re-created between our read and our write; discarding the block and"
                            + " rolling the counter over", node);
                    rollover(new Known(stat.getCzxid(), stat.getVersion(), newNext, tag), "a stale write landed on it");
                    k = null;
                    sent = null;
                    continue;
                }
                known = new Known(stat.getCzxid(), stat.getVersion(), newNext, tag);
                return reserved(next, size);
            } catch (CoordException e) {
                if (!Attempts.isTransient(e)) {
                    throw e;
                }
                k = null;
                attempts.backoff(e);
            }
        }
    }

    private IdRule.Block reserved(long first, int size) {
        metrics.increment("coord.ids.block.reserved", "name", name);
        return new IdRule.Block(first, size);
    }

    private Known read() throws InterruptedException {
        CuratorFramework curator = zk.curator();
        Stat stat = new Stat();
        byte[] data = zk.call(node, () -> {
            try {
                return curator.getData().storingStatIn(stat).forPath(node.value());
            } catch (KeeperException.NoNodeException e) {
                return null;
            }
        });
        if (data == null) {
            return null;
        }
        String problem = IdNodes.counterProblem(data, false);
        if (problem != null) {
            // A Curator counter wrote here since our check: refuse by name, never roll its value away.
            throw IdNodes.refusal(name, node, problem);
        }
        IdRule.Counter counter = IdRule.decodeCounter(data);
        return new Known(stat.getCzxid(), stat.getVersion(), counter.next(), counter.tag());
    }

    /** The write's stat, or null if the version moved or the node is gone. */
    private Stat compareAndSet(int version, byte[] data) throws InterruptedException {
        CuratorFramework curator = zk.curator();
        return zk.call(node, () -> {
            try {
                return curator.setData().withVersion(version).forPath(node.value(), data);
            } catch (KeeperException.BadVersionException | KeeperException.NoNodeException e) {
                return null;
            }
        });
    }

    private void create() throws InterruptedException {
        CuratorFramework curator = zk.curator();
        zk.call(node, () -> {
            try {
                curator.create().creatingParentContainersIfNeeded().forPath(node.value(), new byte[0]);
            } catch (KeeperException.NodeExistsException raced) {
                // another client created it first
            }
            return null;
        });
    }

    /**
     * Deletes the counter at the version we saw and creates it again, in one transaction: the new
     * incarnation's base is above every ID any earlier one handed out. If the node changed
     * meanwhile, nothing happens and the caller re-reads.
     */
    private void rollover(Known k, String why) throws InterruptedException {
        CuratorFramework curator = zk.curator();
        boolean done = zk.call(node, () -> {
            try {
                curator.transaction().forOperations(
                        curator.transactionOp().delete().withVersion(k.version()).forPath(node.value()),
                        curator.transactionOp().create().forPath(node.value(), new byte[0]));
                return true;
            } catch (KeeperException.BadVersionException | KeeperException.NoNodeException e) {
                return false;
            }
        });
        if (done) {
            LOG.info("rolled over block counter {} ({}; version {}, czxid 0x{})", node, why, k.version(),
                    Long.toHexString(k.czxid()));
            metrics.increment("coord.ids.rollovers", "name", name);
        }
        known = null;
    }
}
