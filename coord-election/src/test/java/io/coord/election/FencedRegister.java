package io.coord.election;

import io.coord.ConflictException;
import io.coord.CoordClient;
import io.coord.CoordPath;
import io.coord.StaleTokenException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.zookeeper.data.Stat;

/**
 * A fenced register in ZooKeeper, the way a leader should protect a write to shared state: the
 * node holds the highest epoch that wrote it; a write is one
 * {@code multi(check(leaderNode), setData(register, epoch, expectedVersion))}, refused when the
 * leader's node is gone (LockLostException), and not even tried when a higher epoch already wrote
 * (StaleTokenException). Used by the test JVM and by child-JVM candidates alike.
 */
final class FencedRegister {
    static final CoordPath PATH = CoordPath.of("/fence/register");

    private FencedRegister() {
    }

    static void create(CoordClient client) throws Exception {
        client.curator().create().creatingParentsIfNeeded().forPath(PATH.value(), "0".getBytes(StandardCharsets.UTF_8));
    }

    /** Writes {@code leadership}'s epoch; returns the register's new version (its commit order). */
    static int write(CoordClient client, Leadership leadership) throws Exception {
        long mine = leadership.epoch().value();
        while (true) {
            Stat read = new Stat();
            long highest = Long.parseLong(new String(client.curator().getData().storingStatIn(read).forPath(PATH.value()),
                    StandardCharsets.UTF_8));
            if (highest > mine) {
                throw new StaleTokenException("register already written by epoch 0x" + Long.toHexString(highest)
                        + "; ours is 0x" + Long.toHexString(mine));
            }
            CuratorOp set = client.curator().transactionOp().setData().withVersion(read.getVersion())
                    .forPath(PATH.value(), Long.toString(mine).getBytes(StandardCharsets.UTF_8));
            try {
                var results = leadership.guardedTransaction(List.of(set));
                return results.get(results.size() - 1).getResultStat().getVersion();
            } catch (ConflictException raced) {
                // someone wrote between our read and our write: read again
            }
        }
    }
}
