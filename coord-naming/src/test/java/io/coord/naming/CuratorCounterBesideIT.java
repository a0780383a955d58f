package io.coord.naming;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.CoordPath;
import io.coord.ForeignNodesException;
import io.coord.test.Awaits;
import io.coord.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.recipes.atomic.AtomicValue;
import org.apache.curator.framework.recipes.atomic.DistributedAtomicLong;
import org.apache.curator.framework.recipes.shared.SharedCount;
import org.apache.curator.retry.RetryNTimes;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Curator 5.9's {@code DistributedAtomicLong} and {@code SharedCount} beside Coord's
 * {@code SequenceIds} and {@code BlockIds} on one ID name. The encodings cannot be shared (Curator's
 * IDs are the 8- or 4-byte value it stores, Coord's come from the node's zxid and version, and each
 * side's write would reset the other's), so the mixed fleet is refused loudly on both sides: Coord
 * names the path and the bytes (never reading them as its own), Curator fails on Coord's mark with
 * "Corrupted data", and no ID is handed out twice.
 */
class CuratorCounterBesideIT {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.single();

    @RegisterExtension
    final NamingThreadsCheck threads = new NamingThreadsCheck();

    private static final Duration WAIT = Duration.ofSeconds(10);

    private final CuratorClients curators = new CuratorClients(zk);
    private final ExecutorService pool = Executors.newCachedThreadPool();

    @AfterEach
    void stop() throws InterruptedException {
        pool.shutdownNow();
        assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS), "client threads ended");
        curators.close();
    }

    private DistributedAtomicLong curatorCounter(String path) throws InterruptedException {
        return new DistributedAtomicLong(curators.connect(), path, new RetryNTimes(200, 5));
    }

    private static long increment(DistributedAtomicLong counter) throws Exception {
        AtomicValue<Long> v = counter.increment();
        assertTrue(v.succeeded(), "Curator's increment succeeded");
        return v.postValue();
    }

    private byte[] data(String path) throws Exception {
        return zk.newClient().curator().getData().forPath(path);
    }

    @Test
    void sequenceIdsRefusesACuratorDistributedAtomicLongNamingThePathAndItsBytesAndWritesNothing() throws Exception {
        DistributedAtomicLong curatorIds = curatorCounter("/ids/orders/sequence");
        for (int i = 0; i < 5; i++) {
            increment(curatorIds);
        }
        byte[] before = data("/ids/orders/sequence");

        SequenceIds coord = SequenceIds.open(zk.newClient(), "orders");
        ForeignNodesException e = assertThrows(ForeignNodesException.class, coord::next);

        assertEquals(CoordPath.of("/ids/orders"), e.path(), e.getMessage());
        assertEquals(List.of("sequence"), e.nodes(), e.getMessage());
        assertTrue(e.getMessage().contains("/ids/orders/sequence") && e.getMessage().contains("00 00 00 00 00 00 00 05")
                && e.getMessage().contains("DistributedAtomicLong") && e.getMessage().contains("reads 5")
                && e.getMessage().contains("MIGRATING"), "names the path, the bytes, Curator's value and what to do: " + e.getMessage());
        assertArrayEquals(before, data("/ids/orders/sequence"), "Coord wrote nothing on Curator's counter");
        assertEquals(6, increment(curatorIds), "the Curator counter carries on from its own value");
        assertThrows(ForeignNodesException.class, coord::next, "refused again, not only once");
        assertEquals(List.of("/ids/orders/sequence: 8 bytes 00 00 00 00 00 00 00 06, as Curator's DistributedAtomicLong stores"
                + " its value (it reads 6)"), IdStatus.read(zk.newClient(), "orders").foreign(), "inspection names the node");
    }

    @Test
    void blockIdsRefusesACuratorSharedCountAndNeverRollsItsValueAway() throws Exception {
        try (SharedCount count = new SharedCount(curators.connect(), "/ids/invoices/blocks", 41)) {
            count.start();
            assertTrue(count.trySetCount(count.getVersionedValue(), 42), "Curator set its count");
            byte[] before = data("/ids/invoices/blocks");

            try (BlockIds coord = BlockIds.open(zk.newClient(), "invoices", IdOptions.builder().blockSize(10).build())) {
                ForeignNodesException e = assertThrows(ForeignNodesException.class, coord::next);
                assertEquals(List.of("blocks"), e.nodes(), e.getMessage());
                assertTrue(e.getMessage().contains("/ids/invoices/blocks") && e.getMessage().contains("00 00 00 2a")
                        && e.getMessage().contains("SharedCount") && e.getMessage().contains("reads 42"), e.getMessage());
            }
            assertArrayEquals(before, data("/ids/invoices/blocks"), "Coord neither rolled over nor wrote Curator's counter");
            assertEquals(42, count.getCount());
        }
    }

    @Test
    void aCuratorCounterWritingACoordBlockCounterLaterIsRefusedByTheNextReservation() throws Exception {
        CoordClient client = zk.newClient();
        try (BlockIds coord = BlockIds.open(client, "later", IdOptions.builder().blockSize(5).prefetchAt(1.0).build())) {
            long first = coord.next();
            client.curator().setData().forPath("/ids/later/blocks", new byte[] {0, 0, 0, 0, 0, 0, 0, 7}); // as a DistributedAtomicLong's trySet
            for (int i = 1; i < 5; i++) {
                assertEquals(first + i, coord.next(), "the block reserved before is still handed out");
            }
            ForeignNodesException e = assertThrows(ForeignNodesException.class, coord::next);
            assertTrue(e.getMessage().contains("00 00 00 00 00 00 00 07") && e.getMessage().contains("reads 7"), e.getMessage());
        }
        assertArrayEquals(new byte[] {0, 0, 0, 0, 0, 0, 0, 7}, data("/ids/later/blocks"), "the foreign value was not rolled away");
    }

    @Test
    void aCuratorCounterOnTheNameNodeItselfIsRefused() throws Exception {
        DistributedAtomicLong curatorIds = curatorCounter("/ids/users");
        increment(curatorIds);

        ForeignNodesException e = assertThrows(ForeignNodesException.class, () -> SequenceIds.open(zk.newClient(), "users").next());

        assertEquals(CoordPath.of("/ids"), e.path(), e.getMessage());
        assertEquals(List.of("users"), e.nodes(), e.getMessage());
        assertTrue(e.getMessage().contains("00 00 00 00 00 00 00 01"), e.getMessage());
        assertEquals(2, increment(curatorIds), "Curator's counter is untouched");
        assertFalse(zk.newClient().curator().getChildren().forPath("/ids/users").contains("sequence"), "Coord created nothing");
    }

    @Test
    void aCuratorCounterOnCoordsSequenceNodeFailsLoudlyOnTheMarkAndCoordCarriesOn() throws Exception {
        SequenceIds coord = SequenceIds.open(zk.newClient(), "tickets");
        long first = coord.next();
        assertArrayEquals(IdNodes.SEQUENCE_MARK, data("/ids/tickets/sequence"), "Coord's counter holds its mark, not nothing");

        DistributedAtomicLong curatorIds = curatorCounter("/ids/tickets/sequence");
        RuntimeException e = assertThrows(RuntimeException.class, curatorIds::increment, "Curator never reads the mark as 0");
        assertTrue(e.getMessage().contains("Corrupted data") && e.getMessage().contains("/ids/tickets/sequence"), e.getMessage());
        try (SharedCount count = new SharedCount(curators.connect(), "/ids/tickets/sequence", 0)) {
            count.start();
            assertThrows(RuntimeException.class, count::getCount, "nor does SharedCount");
        }
        assertEquals(first + 1, coord.next(), "Coord's counter was not written by Curator");
    }

    @Test
    void aMixedFleetOfThreeCuratorAndThreeCoordClientsNeverHandsOutAnIdTwiceAndOneSideRefuses() throws Exception {
        String path = "/ids/mixed/sequence";
        int perClient = 60;
        ConcurrentLinkedQueue<Long> handedOut = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<String> refusals = new ConcurrentLinkedQueue<>();
        CountDownLatch go = new CountDownLatch(1);
        List<Callable<Void>> clients = new ArrayList<>();
        for (int c = 0; c < 3; c++) {
            DistributedAtomicLong curatorIds = curatorCounter(path);
            clients.add(() -> {
                go.await();
                for (int i = 0; i < perClient; i++) {
                    try {
                        AtomicValue<Long> v = curatorIds.increment();
                        if (v.succeeded()) {
                            handedOut.add(v.postValue());
                        }
                    } catch (RuntimeException corrupt) {
                        refusals.add("Curator: " + corrupt.getMessage());
                        return null;
                    }
                }
                return null;
            });
            SequenceIds coordIds = SequenceIds.open(zk.newClient(), "mixed");
            clients.add(() -> {
                go.await();
                for (int i = 0; i < perClient; i++) {
                    try {
                        handedOut.add(coordIds.next());
                    } catch (ForeignNodesException foreign) {
                        refusals.add("Coord: " + foreign.getMessage());
                        return null;
                    }
                }
                return null;
            });
        }
        List<Future<Void>> running = new ArrayList<>();
        for (Callable<Void> client : clients) {
            running.add(pool.submit(client));
        }
        go.countDown();
        for (Future<Void> f : running) {
            f.get(Awaits.scaled(Duration.ofSeconds(60)).toMillis(), TimeUnit.MILLISECONDS);
        }

        Set<Long> unique = new HashSet<>(handedOut);
        assertEquals(handedOut.size(), unique.size(), "no ID was handed out twice: " + handedOut);
        assertFalse(refusals.isEmpty(), "one library refused the other, loudly");
        for (String r : refusals) {
            assertTrue(r.contains(path), "every refusal names the path: " + r);
        }
        // Whoever wrote last owns the node now; the other side refuses, never reads it as its own.
        boolean coordRefuses;
        try {
            SequenceIds.open(zk.newClient(), "mixed").next();
            coordRefuses = false;
        } catch (ForeignNodesException e) {
            coordRefuses = true;
        }
        boolean curatorRefuses;
        try {
            curatorCounter(path).increment();
            curatorRefuses = false;
        } catch (RuntimeException e) {
            curatorRefuses = true;
        }
        assertTrue(coordRefuses != curatorRefuses, "exactly one side refuses the node as it is now (Coord "
                + coordRefuses + ", Curator " + curatorRefuses + ")");
    }
}
