package io.coord.lock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.CoordPath;
import io.coord.test.ZooKeeperExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** One semaphore path, one permit count: the first client's count is recorded, another count is refused before it takes a permit. */
class SemaphorePermitsIT {
    @RegisterExtension
    static final ZooKeeperExtension SERVER = ZooKeeperExtension.single();

    private static final CoordPath SEM = Locks.path("permits", "slots");
    private static final Duration WAIT = Duration.ofSeconds(10);
    private final ExecutorService pool = Executors.newCachedThreadPool();

    @AfterEach
    void stop() throws InterruptedException {
        pool.shutdownNow();
        assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
    }

    @Test
    void aClientWithAnotherCountIsRefusedNamingBothCountsAndThePathAndTakesNoPermit() throws Exception {
        CoordClient first = SERVER.newClient();
        CoordClient second = SERVER.newClient();
        LockLease held = Locks.semaphore(first, SEM, 2).acquire(WAIT);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Locks.semaphore(second, SEM, 5).tryAcquire());
        assertTrue(e.getMessage().contains(SEM.value()) && e.getMessage().contains("2 permits")
                && e.getMessage().contains("asked for 5"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Locks.semaphore(second, SEM, 1).acquire(WAIT), "a lower count too");
        LockInfo info = LockTesting.inspect(first, SEM);
        assertEquals(1, info.holders().size(), "the refused client holds nothing");
        assertEquals(0, info.waiters().size(), "and left no node behind");

        LockLease same = Locks.semaphore(second, SEM, 2).tryAcquire().orElseThrow(() -> new AssertionError("same count, free permit"));
        assertTrue(Locks.semaphore(second, SEM, 2).tryAcquire().isEmpty(), "two permits, both held");
        same.close();
        held.close();
    }

    @Test
    void anOldNodeWithNoRecordedCountIsRecordedOnFirstUse() throws Exception {
        CoordClient old = SERVER.newClient();
        // A semaphore node made before counts were recorded: a parent with no data.
        old.curator().create().creatingParentsIfNeeded().forPath(SEM.value(), new byte[0]);
        CoordClient client = SERVER.newClient();
        Locks.semaphore(client, SEM, 3).acquire(WAIT).close();
        String recorded = new String(old.curator().getData().forPath(SEM.value()), StandardCharsets.UTF_8);
        assertEquals("{\"permits\":3}", recorded);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Locks.semaphore(old, SEM, 4).acquire(WAIT));
        assertTrue(e.getMessage().contains("3 permits") && e.getMessage().contains("asked for 4"), e.getMessage());
    }

    @Test
    void ofTwoFirstClientsWithDifferentCountsExactlyOneIsRefused() throws Exception {
        CoordClient a = SERVER.newClient();
        CoordClient b = SERVER.newClient();
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Optional<LockLease>>> tries = new ArrayList<>();
        for (Semaphore s : List.of(Locks.semaphore(a, SEM, 2), Locks.semaphore(b, SEM, 3))) {
            tries.add(pool.submit((Callable<Optional<LockLease>>) () -> {
                start.await();
                return s.tryAcquire(WAIT); // the gate admits one at a time: the second waits for it, then compares
            }));
        }
        start.countDown();
        int refused = 0;
        List<LockLease> granted = new ArrayList<>();
        for (Future<Optional<LockLease>> f : tries) {
            try {
                granted.add(f.get(WAIT.toMillis(), TimeUnit.MILLISECONDS).orElseThrow(() -> new AssertionError("a free permit was refused")));
            } catch (ExecutionException e) {
                assertTrue(e.getCause() instanceof IllegalArgumentException, String.valueOf(e.getCause()));
                refused++;
            }
        }
        assertEquals(1, refused, "one count is recorded, the other refused");
        assertEquals(1, granted.size());
        granted.forEach(LockLease::close);
    }

    @Test
    void aNodeHoldingForeignDataIsRefusedNamingThePath() throws Exception {
        CoordClient client = SERVER.newClient();
        client.curator().create().creatingParentsIfNeeded().forPath(SEM.value(), "not a count".getBytes(StandardCharsets.UTF_8));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> Locks.semaphore(client, SEM, 2).tryAcquire());
        assertTrue(e.getMessage().contains(SEM.value()), e.getMessage());
        assertEquals(List.of(), client.curator().getChildren().forPath(SEM.value() + "/locks"), "no gate node left behind");
        assertEquals(null, client.curator().checkExists().forPath(SEM.value() + "/leases"), "no lease was created");
    }
}
