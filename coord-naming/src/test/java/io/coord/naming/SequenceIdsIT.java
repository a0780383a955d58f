package io.coord.naming;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.internal.Zk;
import io.coord.test.ZooKeeperExtension;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class SequenceIdsIT {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.single();

    @RegisterExtension
    final NamingThreadsCheck threads = new NamingThreadsCheck();

    /**
     * IDs per client in the 8-client run. One write per ID: about 2 500 IDs/s over 8 clients on a
     * loaded 2-core machine, so the full 80 000 take about half a minute; hence {@code slow}
     * ({@code -Dcoord.naming.seqPerClient=1000 -DexcludedGroups=slow} for a quick loop).
     */
    static final int PER_CLIENT = Integer.getInteger("coord.naming.seqPerClient", 10_000);

    @Test
    @Tag("slow")
    void eightClientsGetUniqueIdsStrictlyIncreasingInRealTimeOrder() throws Exception {
        IdHistory history = IdLoad.run(zk, 8, PER_CLIENT, client -> {
            SequenceIds ids = SequenceIds.open(client, "orders");
            return ids::next;
        });
        assertEquals(8 * PER_CLIENT, history.size());
        history.assertUnique();
        history.assertRealTimeOrder();
        history.assertIncreasingPerClient();
        System.out.printf("SequenceIds: %d clients x %d IDs in %d ms (%.0f IDs/s)%n", 8, PER_CLIENT,
                history.elapsedMillis(), history.size() * 1000.0 / Math.max(1, history.elapsedMillis()));
    }

    @Test
    void idsAreConsecutiveWhileNobodyElseWritesTheCounter() throws Exception {
        SequenceIds ids = SequenceIds.open(zk.newClient(), "dense");
        long first = ids.next();
        for (int i = 1; i <= 100; i++) {
            assertEquals(first + i, ids.next());
        }
    }

    @Test
    void idsNeverRepeatAfterTheParentIsDeletedAndRecreated() throws Exception {
        CoordClient client = zk.newClient();
        SequenceIds ids = SequenceIds.open(client, "recreated");
        List<Long> seen = new ArrayList<>();
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < 50; i++) {
                seen.add(ids.next());
            }
            client.curator().delete().deletingChildrenIfNeeded().forPath("/ids/recreated");
            if (round == 1) {
                // someone re-creates the parent and the counter by hand (empty, as new)
                client.curator().create().creatingParentsIfNeeded().forPath("/ids/recreated/sequence");
            }
        }
        for (int i = 0; i < 50; i++) {
            seen.add(ids.next());
        }
        assertEquals(seen.size(), new HashSet<>(seen).size(), "an ID repeated after re-creation");
        for (int i = 1; i < seen.size(); i++) {
            assertTrue(seen.get(i) > seen.get(i - 1), "ID " + seen.get(i) + " after " + seen.get(i - 1) + " went back");
        }
    }

    @Test
    void idsKeepIncreasingAcrossACounterRollover() throws Exception {
        CoordClient client = zk.newClient();
        // A rollover threshold of 20 writes instead of two billion: the same code path.
        ZkSequenceIds ids = new ZkSequenceIds(Zk.of(client), "rolling", IdOptions.defaults(), System::nanoTime, 20);
        long czxidBefore = -1;
        List<Long> seen = new ArrayList<>();
        for (int i = 0; i < 70; i++) {
            seen.add(ids.next());
            if (i == 0) {
                czxidBefore = client.curator().checkExists().forPath("/ids/rolling/sequence").getCzxid();
            }
        }
        long czxidAfter = client.curator().checkExists().forPath("/ids/rolling/sequence").getCzxid();
        assertTrue(czxidAfter > czxidBefore, "the counter node was not rolled over");
        assertTrue(client.curator().checkExists().forPath("/ids/rolling/sequence").getVersion() < 20,
                "the version kept growing past the rollover threshold");
        Set<Long> unique = new HashSet<>(seen);
        assertEquals(seen.size(), unique.size());
        for (int i = 1; i < seen.size(); i++) {
            assertTrue(seen.get(i) > seen.get(i - 1), "ID " + seen.get(i) + " after " + seen.get(i - 1) + " went back");
        }
    }

    @Test
    void theCounterIsOneNodeNoMatterHowManyIds() throws Exception {
        CoordClient client = zk.newClient();
        SequenceIds ids = SequenceIds.open(client, "nodes");
        for (int i = 0; i < 500; i++) {
            ids.next();
        }
        assertEquals(List.of("sequence"), client.curator().getChildren().forPath("/ids/nodes"));
        assertEquals(0, client.curator().checkExists().forPath("/ids/nodes/sequence").getNumChildren());
    }
}
