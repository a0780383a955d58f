package io.coord.lock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.CoordPath;
import io.coord.ForeignNodesException;
import io.coord.LeaseState;
import io.coord.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The semaphore's layout is InterProcessSemaphoreV2's ({@code locks/}, {@code leases/}); anything
 * else at the path is refused by name, Coord's previous layout ({@code lease-} nodes directly
 * under the path) with what to do about the upgrade; inspection reads Curator's and Coord's
 * leases alike.
 */
class SemaphoreLayoutIT {
    @RegisterExtension
    static final ZooKeeperExtension SERVER = ZooKeeperExtension.single();

    private static final CoordPath SEM = Locks.path("layout", "slots");
    private static final Duration WAIT = Duration.ofSeconds(5);

    @Test
    void leaseNodesOfThePreviousLayoutAreRefusedNamingThemAndTheUpgradeAndNothingIsTaken() throws Exception {
        CoordClient old = SERVER.newClient();
        // What a Coord client of the previous release makes: a protected lease- node under the path itself.
        String oldNode = nameOf(old.curator().create().creatingParentContainersIfNeeded().withProtection()
                .withMode(CreateMode.EPHEMERAL_SEQUENTIAL).forPath(SEM.child("lease-").value()));
        CoordClient client = SERVER.newClient();
        ForeignNodesException e = assertThrows(ForeignNodesException.class, () -> Locks.semaphore(client, SEM, 2).tryAcquire(WAIT));
        assertEquals(List.of(oldNode), e.nodes());
        assertEquals(SEM, e.path());
        assertTrue(e.getMessage().contains(oldNode) && e.getMessage().contains("stop the older Coord clients"), e.getMessage());
        assertNull(client.curator().checkExists().forPath(SEM.child("leases").value()), "no lease was made");
        assertEquals(List.of(), client.curator().getChildren().forPath(SEM.child("locks").value()), "the gate was released");
        assertEquals(List.of(oldNode), LockTesting.inspect(client, SEM).foreign());
    }

    @Test
    void anyOtherNodeAtThePathInLeasesOrInLocksIsRefusedByName() throws Exception {
        CoordClient client = SERVER.newClient();
        Semaphore semaphore = Locks.semaphore(client, SEM, 2);
        semaphore.acquire(WAIT).close(); // locks/ and leases/ exist now
        for (CoordPath junk : List.of(SEM.child("typo"), SEM.child("leases").child("junk"), SEM.child("locks").child("junk"))) {
            client.curator().create().forPath(junk.value());
            ForeignNodesException e = assertThrows(ForeignNodesException.class, () -> semaphore.tryAcquire(WAIT), junk.value());
            assertEquals(List.of("junk".equals(junk.name()) ? "junk" : "typo"), e.nodes(), e.getMessage());
            assertTrue(e.getMessage().contains(junk.parent().value()), e.getMessage());
            String shown = junk.parent().equals(SEM) ? junk.name() : junk.parent().name() + "/" + junk.name();
            assertEquals(List.of(shown), LockTesting.inspect(client, SEM).foreign());
            client.curator().delete().forPath(junk.value());
            assertEquals(List.of(), client.curator().getChildren().forPath(SEM.child("leases").value()), "our lease was removed");
        }
        semaphore.acquire(WAIT).close();
    }

    @Test
    void inspectionShowsCuratorsAndCoordsLeasesAsHoldersAndTheClientBeingAdmitted() throws Exception {
        try (MixedFleet curators = new MixedFleet(SERVER)) {
            CuratorFramework curator = curators.curator();
            InterProcessSemaphoreV2 v2 = new InterProcessSemaphoreV2(curator, SEM.value(), 2);
            Lease curatorLease = v2.acquire(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            assertNotNull(curatorLease);
            CoordClient client = SERVER.newClient();
            LockLease coordLease = Locks.semaphore(client, SEM, 2, LockOptions.builder().ownerName("exporter").build()).acquire(WAIT);
            LockInfo info = LockTesting.inspect(client, SEM);
            assertEquals(Set.of(curatorLease.getNodeName(), coordLease.node().name()),
                    info.holders().stream().map(h -> h.node().name()).collect(Collectors.toSet()));
            assertTrue(info.holders().stream().allMatch(h -> h.type().equals("lease") && h.node().parent().equals(SEM.child("leases"))),
                    info.toString());
            assertEquals(List.of("exporter"), info.holders().stream().filter(h -> h.owner() != null).map(LockInfo.Entry::owner).toList());
            assertEquals(List.of(), info.waiters());
            assertEquals(List.of(), info.foreign());
            assertEquals(List.of(SEM), Locks.list(client, Locks.path("layout", "slots").parent()).stream().map(LockInfo::path).toList(),
                    "listed once, as the semaphore");
            assertEquals(SEM, coordLease.lockPath(), "the lease belongs to the semaphore, not to its leases/");
            v2.returnLease(curatorLease);
            coordLease.close();
            assertEquals(LeaseState.RELEASED, coordLease.state());
        }
    }

    private static String nameOf(String path) {
        return path.substring(path.lastIndexOf('/') + 1);
    }
}
