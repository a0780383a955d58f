package io.coord.naming;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.internal.Zk;
import io.coord.test.Awaits;
import io.coord.test.ZooKeeperExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class BlockIdsIT {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.single();

    @RegisterExtension
    final NamingThreadsCheck threads = new NamingThreadsCheck();

    static final int PER_CLIENT = 10_000;

    @Test
    void eightClientsGetUniqueIdsIncreasingPerClient() throws Exception {
        IdOptions small = IdOptions.builder().blockSize(500).build(); // many blocks, many conflicts
        IdHistory history = IdLoad.run(zk, 8, PER_CLIENT, client -> {
            BlockIds ids = BlockIds.open(client, "orders", small);
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
        });
        assertEquals(8 * PER_CLIENT, history.size());
        history.assertUnique();
        history.assertIncreasingPerClient();
        System.out.printf("BlockIds: %d clients x %d IDs in %d ms%n", 8, PER_CLIENT, history.elapsedMillis());
    }

    @Test
    void nextDoesNotWaitWhenTheNextBlockWasPrefetched() throws Exception {
        RecordingMetrics metrics = new RecordingMetrics();
        CoordClient client = zk.newClient(b -> b.metrics(metrics));
        try (BlockIds ids = BlockIds.open(client, "prefetch", IdOptions.builder().blockSize(100).prefetchAt(0.5).build())) {
            long first = ids.next(); // waits: nothing reserved yet
            assertEquals(1, metrics.count("coord.ids.block.waits"));
            for (int i = 1; i < 50; i++) {
                ids.next(); // the 50th ID (half the block) starts the background reservation
            }
            Awaits.until("the second block to be reserved in the background", Duration.ofSeconds(10), () -> metrics.count("coord.ids.block.reserved") == 2);
            long last = first;
            for (int i = 50; i < 150; i++) {
                long id = ids.next();
                assertTrue(id > last);
                last = id;
            }
            assertEquals(1, metrics.count("coord.ids.block.waits"), "next() waited although the next block was ready");
        }
    }

    @Test
    void idsNeverRepeatAfterTheParentIsDeletedAndRecreated() throws Exception {
        CoordClient client = zk.newClient();
        CoordClient other = zk.newClient();
        IdOptions options = IdOptions.builder().blockSize(10).prefetchAt(1.0).build();
        Set<Long> seen = new HashSet<>();
        try (BlockIds a = BlockIds.open(client, "recreated", options); BlockIds b = BlockIds.open(other, "recreated", options)) {
            for (int round = 0; round < 4; round++) {
                for (int i = 0; i < 25; i++) {
                    assertTrue(seen.add(a.next()), "duplicate from a");
                    assertTrue(seen.add(b.next()), "duplicate from b");
                }
                client.curator().delete().deletingChildrenIfNeeded().forPath("/ids/recreated");
                if (round == 2) {
                    // re-created by hand with a value that looks like an old one
                    client.curator().create().creatingParentsIfNeeded().forPath("/ids/recreated/blocks",
                            "1000 manual".getBytes(StandardCharsets.US_ASCII));
                }
            }
            for (int i = 0; i < 25; i++) {
                assertTrue(seen.add(a.next()), "duplicate from a");
                assertTrue(seen.add(b.next()), "duplicate from b");
            }
        }
    }

    @Test
    void aCompareAndSetPreparedOnAnOlderIncarnationIsDiscardedNotUsed() throws Exception {
        CoordClient client = zk.newClient();
        String node = "/ids/aba/blocks";
        IdOptions options = IdOptions.builder().blockSize(10).build();
        BlockReserver a = new BlockReserver(Zk.of(client), "aba", Layout.blockNode("aba"), options, System::nanoTime,
                IdRule.ROLLOVER_VERSION);
        IdRule.Block a1 = a.reserve(); // a now remembers (incarnation 1, version 1) and will skip the read
        client.curator().delete().forPath(node);
        client.curator().create().forPath(node);
        BlockReserver b = new BlockReserver(Zk.of(client), "aba", Layout.blockNode("aba"), options, System::nanoTime,
                IdRule.ROLLOVER_VERSION);
        IdRule.Block b1 = b.reserve(); // incarnation 2 is at version 1 too: a's compare-and-set will pass
        long czxid2 = client.curator().checkExists().forPath(node).getCzxid();
        IdRule.Block a2 = a.reserve();
        Stat after = client.curator().checkExists().forPath(node);
        assertTrue(after.getCzxid() > czxid2, "the counter was not rolled over after the stale write");
        IdRule.Block b2 = b.reserve();
        List<IdRule.Block> blocks = List.of(a1, b1, a2, b2);
        for (int i = 0; i < blocks.size(); i++) {
            for (int j = i + 1; j < blocks.size(); j++) {
                IdRule.Block x = blocks.get(i);
                IdRule.Block y = blocks.get(j);
                assertTrue(x.end() <= y.first() || y.end() <= x.first(), "blocks " + x + " and " + y + " overlap");
            }
        }
        assertTrue(a2.first() >= IdRule.blockBase(after.getCzxid()), "a's block is not from the new incarnation");
    }

    @Test
    void aCounterWrittenOutsideCoordIsRolledOverNeverUsed() throws Exception {
        CoordClient client = zk.newClient();
        try (BlockIds ids = BlockIds.open(client, "garbage", IdOptions.builder().blockSize(10).prefetchAt(1.0).build())) {
            long before = ids.next();
            client.curator().setData().forPath("/ids/garbage/blocks", "not a number".getBytes(StandardCharsets.US_ASCII));
            for (int i = 0; i < 30; i++) {
                long id = ids.next();
                assertTrue(id > before, id + " after " + before);
                before = id;
            }
            client.curator().setData().forPath("/ids/garbage/blocks", new byte[0]); // emptied: must not restart at the base
            for (int i = 0; i < 30; i++) {
                long id = ids.next();
                assertTrue(id > before, id + " after " + before);
                before = id;
            }
            Stat stat = client.curator().checkExists().forPath("/ids/garbage/blocks");
            assertTrue(IdRule.validNext(stat.getCzxid(), stat.getVersion(),
                    IdRule.decodeCounter(client.curator().getData().forPath("/ids/garbage/blocks")).next()) > 0);
        }
    }

    @Test
    void idsKeepIncreasingAcrossACounterRollover() throws Exception {
        CoordClient client = zk.newClient();
        List<Long> seen = new ArrayList<>();
        try (ZkBlockIds ids = new ZkBlockIds(Zk.of(client), "rolling", IdOptions.builder().blockSize(5).build(),
                System::nanoTime, 4)) {
            for (int i = 0; i < 100; i++) {
                seen.add(ids.next());
            }
        }
        assertTrue(client.curator().checkExists().forPath("/ids/rolling/blocks").getVersion() <= 4);
        for (int i = 1; i < seen.size(); i++) {
            assertTrue(seen.get(i) > seen.get(i - 1), seen.get(i) + " after " + seen.get(i - 1));
        }
    }

    @Test
    void nextAfterCloseIsRefused() throws Exception {
        BlockIds ids = BlockIds.open(zk.newClient(), "closed");
        ids.next();
        ids.close();
        ids.close();
        assertThrows(IllegalStateException.class, ids::next);
    }
}
