package io.coord.lock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.CoordPath;
import io.coord.LeaseState;
import io.coord.test.Awaits;
import io.coord.test.ZooKeeperExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link Semaphore#asCuratorSemaphore()} against InterProcessSemaphoreV2's documented contract:
 * {@code acquire(qty, time, unit)} gives all {@code qty} leases or {@code null} (returning what
 * it took), the timed forms return {@code null} when not granted in time, {@code returnLease} and
 * {@link Lease#close()} give a lease back, {@code getNodeName}/{@code getData} name and read its
 * node, and a waiter whose session ends starts again on the new session. Beside a real V2 client.
 */
class CuratorSemaphoreViewIT {
    @RegisterExtension
    static final ZooKeeperExtension SERVER = ZooKeeperExtension.single();

    private static final CoordPath SEM = Locks.path("view", "slots");
    private static final long WAIT_MS = 5_000;
    private final ExecutorService other = Executors.newSingleThreadExecutor();

    @AfterEach
    void stop() throws InterruptedException {
        other.shutdownNow();
        assertTrue(other.awaitTermination(10, TimeUnit.SECONDS));
    }

    private static List<String> leaseNodes(CoordClient client) throws Exception {
        return client.curator().getChildren().forPath(SEM.child("leases").value());
    }

    @Test
    void qtyLeasesAreAllOrNoneTimedFormsReturnNullAndReturnedLeasesFreeTheirPermits() throws Exception {
        CoordClient client = SERVER.newClient();
        Semaphore semaphore = Locks.semaphore(client, SEM, 2);
        CuratorSemaphore view = semaphore.asCuratorSemaphore();
        assertSame(view, semaphore.asCuratorSemaphore(), "the same view every call");
        Collection<Lease> both = view.acquire(2, WAIT_MS, TimeUnit.MILLISECONDS);
        assertEquals(2, both.size());
        Set<String> names = both.stream().map(Lease::getNodeName).collect(Collectors.toSet());
        assertEquals(Set.copyOf(leaseNodes(client)), names, "each lease is its node in leases/, by name");
        assertEquals(names, Set.copyOf(view.getParticipantNodes()));
        for (Lease lease : both) {
            LockLease coord = ((CuratorSemaphore.CoordLease) lease).lockLease();
            assertEquals(LeaseState.ACQUIRED, coord.state());
            assertEquals(client.curator().checkExists().forPath(coord.node().value()).getCzxid(), coord.token().value(),
                    "the token is the lease node's czxid");
            assertTrue(new String(lease.getData(), StandardCharsets.UTF_8).contains("\"type\":\"lease\""), "getData reads the node");
        }

        CuratorSemaphore second = Locks.semaphore(SERVER.newClient(), SEM, 2).asCuratorSemaphore();
        assertNull(second.acquire(100, TimeUnit.MILLISECONDS), "no permit free: null, as V2");
        try (MixedFleet curators = new MixedFleet(SERVER)) {
            InterProcessSemaphoreV2 v2 = new InterProcessSemaphoreV2(curators.curator(), SEM.value(), 2);
            assertNull(v2.acquire(100, TimeUnit.MILLISECONDS), "Curator's V2 counts the view's leases too");
        }

        List<Lease> held = new ArrayList<>(both);
        view.returnLease(held.remove(0)); // one permit free, two asked: none taken
        assertNull(second.acquire(2, 300, TimeUnit.MILLISECONDS), "not all in time: null");
        // Given back by close(), whose delete another client sees once it lands (FENCING.md, "After close() returns").
        Awaits.until("the lease taken meanwhile was given back", Duration.ofSeconds(10), () -> {
            try {
                return leaseNodes(client).size() == 1;
            } catch (Exception e) {
                return false;
            }
        });
        CuratorSemaphore.CoordLease one = second.acquire(WAIT_MS, TimeUnit.MILLISECONDS);
        assertNotNull(one, "the freed permit");
        held.get(0).close();
        held.get(0).close(); // a second close does nothing
        assertEquals(LeaseState.RELEASED, ((CuratorSemaphore.CoordLease) held.get(0)).lockLease().state());
        second.returnAll(List.of(one));
        assertEquals(LeaseState.RELEASED, one.lockLease().state());
        // `one` was the second client's: its delete reaches this client when it lands.
        Awaits.until("every lease given back", Duration.ofSeconds(10), () -> {
            try {
                return leaseNodes(client).isEmpty();
            } catch (Exception e) {
                return false;
            }
        });
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> view.acquire(0));
        assertTrue(e.getMessage().contains("0") && e.getMessage().contains(SEM.value()), e.getMessage());
    }

    @Test
    void theLossSignalIsReachableFromTheViewsLease() throws Exception {
        CoordClient client = SERVER.newClient();
        CuratorSemaphore.CoordLease lease = Locks.semaphore(client, SEM, 1).asCuratorSemaphore().acquire(WAIT_MS, TimeUnit.MILLISECONDS);
        assertNotNull(lease, "a free permit");
        LockTesting.expire(client, SERVER);
        assertEquals(LeaseState.LOST, lease.lockLease().ended().get(10, TimeUnit.SECONDS));
        lease.close(); // closing a lost lease stays LOST and throws nothing
        assertEquals(LeaseState.LOST, lease.lockLease().state());
    }

    /** V2's acquire starts again (RETRY_DUE_TO_MISSING_NODE, within the retry policy) when the waiter's session ends. */
    @Test
    @Tag("fault")
    void aWaiterWhoseSessionExpiresQueuesAgainOnTheNewSessionAndAcquiresLikeV2() throws Exception {
        CoordClient holder = SERVER.newClient();
        CoordClient waiter = SERVER.newClient();
        LockLease held = Locks.semaphore(holder, SEM, 1).acquire(Awaits.scaled(Duration.ofSeconds(5)));
        CuratorSemaphore view = Locks.semaphore(waiter, SEM, 1).asCuratorSemaphore();
        CompletableFuture<Long> waited = CompletableFuture.supplyAsync(() -> {
            try {
                CuratorSemaphore.CoordLease lease = view.acquire(Awaits.scaled(Duration.ofSeconds(30)).toMillis(), TimeUnit.MILLISECONDS);
                if (lease == null) {
                    return -1L;
                }
                long session = lease.lockLease().session().id();
                view.returnLease(lease);
                return session;
            } catch (Exception e) {
                throw new CompletionException(e);
            }
        }, other);
        long expired = LockTesting.expireTheWaiterAndAwaitItQueuedAgain(holder, SEM, waiter, SERVER);
        assertFalse(waited.isDone(), "still waiting: the holder holds");
        held.close();
        long session = waited.get(Awaits.scaled(Duration.ofSeconds(20)).toMillis(), TimeUnit.MILLISECONDS);
        assertTrue(session != expired && session != -1L, "acquired on the new session, got " + session);
    }
}
