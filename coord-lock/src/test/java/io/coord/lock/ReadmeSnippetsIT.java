package io.coord.lock;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.CoordException;
import io.coord.CoordPath;
import io.coord.Lease;
import io.coord.LeaseListener;
import io.coord.fence.FenceGuard;
import io.coord.fence.InMemoryFenceGuard;
import io.coord.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.recipes.locks.InterProcessLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The lock snippets of docs/RECIPES.md, compiled and run (kept in step by hand). */
class ReadmeSnippetsIT {
    @RegisterExtension
    static final ZooKeeperExtension SERVER = ZooKeeperExtension.single();

    @Test
    void theLeaseSnippetWritesFencedAndReleases() throws Exception {
        CoordClient client = SERVER.newClient();
        client.curator().create().creatingParentsIfNeeded().forPath("/orders/42/state", "NEW".getBytes(UTF_8));
        FenceGuard ledger = new InMemoryFenceGuard();

        CoordPath path = Locks.path("orders", "42");            // /locks/orders/42; "orders/" or "" are errors
        DistributedLock lock = Locks.mutex(client, path);

        try (LockLease lease = lock.acquire(Duration.ofSeconds(5))) {
            lease.guardedSetData(CoordPath.of("/orders/42/state"), "PAID".getBytes(UTF_8));
            ledger.enforce("order-42", lease.token());
            lease.checkValid();
            assertEquals(lease.token().value(), ledger.highest("order-42"));
        }

        assertArrayEquals("PAID".getBytes(UTF_8), client.curator().getData().forPath("/orders/42/state"));
        assertTrue(Locks.inspect(client, path).holders().isEmpty());
    }

    @Test
    void theCuratorSnippetsAndTheListenerSnippetWork() throws Exception {
        CoordClient client = SERVER.newClient();
        CoordPath path = Locks.path("orders", "42");
        InterProcessLock mutex = Locks.mutex(client, path).asInterProcessLock();
        mutex.acquire();
        try {
            assertTrue(mutex.isAcquiredInThisProcess());
        } finally {
            mutex.release();
        }

        FenceGuard fence = new InMemoryFenceGuard();
        CuratorReadWriteLock rw = Locks.readWrite(client, Locks.path("catalog", "prices")).asInterProcessReadWriteLock();
        if (rw.writeLock().acquire(5, TimeUnit.SECONDS)) {
            try {
                fence.enforce("prices", rw.writeLock().heldByCurrentThread().orElseThrow().token());
                assertTrue(rw.writeLock().isOwnedByCurrentThread());
            } finally {
                rw.writeLock().release();
            }
        }
        assertTrue(fence.highest("prices") > 0, "the snippet wrote fenced");
        assertTrue(rw.writeLock().heldByCurrentThread().isEmpty());

        JucLock ledger = Locks.mutex(client, Locks.path("ledger", "eu")).asLock();
        if (ledger.tryLock(5, TimeUnit.SECONDS)) {
            try {
                fence.enforce("ledger-eu", ledger.heldByCurrentThread().orElseThrow().token());
                assertTrue(ledger.heldByCurrentThread().isPresent());
            } finally {
                ledger.unlock();
            }
        }
        assertTrue(fence.highest("ledger-eu") > 0, "the Lock snippet wrote fenced");
        assertTrue(ledger.heldByCurrentThread().isEmpty());

        List<String> worker = new CopyOnWriteArrayList<>();
        ExecutorService executor = Executors.newSingleThreadExecutor();
        try (LockLease lease = Locks.mutex(client, path).acquire(Duration.ofSeconds(5))) {
            lease.addListener(new LeaseListener() {
                @Override public void onUncertain(Lease l) { worker.add("pause"); }
                @Override public void onRestored(Lease l)  { worker.add("resume"); }
                @Override public void onLost(Lease l, CoordException cause) { worker.add("abort"); }
            }, executor);
            LockTesting.expire(client, SERVER);
            lease.ended().get(10, TimeUnit.SECONDS);
            LockTesting.await("abort", Duration.ofSeconds(5), () -> worker.contains("abort"));
        } finally {
            executor.shutdownNow();
            assertTrue(executor.awaitTermination(5, TimeUnit.SECONDS));
        }
    }
}
