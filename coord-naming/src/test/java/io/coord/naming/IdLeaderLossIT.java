package io.coord.naming;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.test.Faults;
import io.coord.test.ZooKeeperExtension;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Both generators on a 3-node ensemble whose leader is killed mid-run (restarted after the test). */
@Tag("fault")
class IdLeaderLossIT {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.quorum();

    @RegisterExtension
    final NamingThreadsCheck threads = new NamingThreadsCheck();

    @Test
    void sequenceIdsStayUniqueAndInRealTimeOrderWhenTheLeaderDies() throws Exception {
        AtomicLong killedAt = new AtomicLong();
        IdHistory history = IdLoad.run(zk, 4, 1500, client -> {
            SequenceIds ids = SequenceIds.open(client, "leaderless");
            return ids::next;
        }, 2000, () -> {
            Faults.killLeader(zk.ensemble());
            killedAt.set(System.nanoTime());
        });
        assertEquals(6000, history.size());
        history.assertUnique();
        history.assertRealTimeOrder();
        history.assertIncreasingPerClient();
        assertTrue(history.countInvokedAfter(killedAt.get()) >= 1000, "the clients made no progress after the leader died");
    }

    @Test
    void blockIdsStayUniqueAndIncreasingPerClientWhenTheLeaderDies() throws Exception {
        AtomicLong killedAt = new AtomicLong();
        IdOptions small = IdOptions.builder().blockSize(200).build();
        IdHistory history = IdLoad.run(zk, 4, 20_000, client -> {
            BlockIds ids = BlockIds.open(client, "leaderless", small);
            return new IdLoad.Source() {
                @Override
                public long next() throws InterruptedException {
                    return ids.next();
                }

                @Override
                public void close() {
                    ids.close();
                }
            };
        }, 20_000, () -> {
            Faults.killLeader(zk.ensemble());
            killedAt.set(System.nanoTime());
        });
        assertEquals(80_000, history.size());
        history.assertUnique();
        history.assertIncreasingPerClient();
        assertTrue(history.countInvokedAfter(killedAt.get()) >= 10_000, "the clients made no progress after the leader died");
    }
}
