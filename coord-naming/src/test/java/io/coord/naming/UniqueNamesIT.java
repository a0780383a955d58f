package io.coord.naming;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.InvalidNameException;
import io.coord.LeaseState;
import io.coord.test.Awaits;
import io.coord.test.Faults;
import io.coord.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class UniqueNamesIT {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.single();

    @RegisterExtension
    final NamingThreadsCheck threads = new NamingThreadsCheck();

    @Test
    void exactlyOneOfManyConcurrentClaimantsWins() throws Exception {
        int claimants = 8;
        List<UniqueNames> names = new ArrayList<>();
        for (int i = 0; i < claimants; i++) {
            names.add(UniqueNames.open(zk.newClient(), "claimant-" + i));
        }
        ExecutorService pool = Executors.newFixedThreadPool(claimants);
        CountDownLatch go = new CountDownLatch(1);
        try {
            List<Future<Object>> results = new ArrayList<>();
            for (UniqueNames n : names) {
                results.add(pool.submit((Callable<Object>) () -> {
                    go.await();
                    try {
                        return n.claim("printer-1");
                    } catch (NameTakenException e) {
                        return e;
                    }
                }));
            }
            go.countDown();
            List<NameClaim> won = new ArrayList<>();
            List<NameTakenException> lost = new ArrayList<>();
            for (Future<Object> f : results) {
                Object r = f.get(30, TimeUnit.SECONDS);
                if (r instanceof NameClaim c) {
                    won.add(c);
                } else {
                    lost.add((NameTakenException) r);
                }
            }
            assertEquals(1, won.size(), "claims that succeeded: " + won);
            assertEquals(claimants - 1, lost.size());
            String winner = won.get(0).owner();
            for (NameTakenException e : lost) {
                assertEquals("printer-1", e.name());
                // a loser that raced the winner's create may name it or (released meanwhile); no release happened here
                assertEquals(winner, e.owner(), e.getMessage());
                assertTrue(e.getMessage().contains(winner), e.getMessage());
            }
            won.get(0).close();
        } finally {
            pool.shutdownNow();
            pool.awaitTermination(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aReleasedNameCanBeClaimedByAnother() throws Exception {
        UniqueNames a = UniqueNames.open(zk.newClient(), "a");
        UniqueNames b = UniqueNames.open(zk.newClient(), "b");
        NameClaim claim = a.claim("shard-3");
        assertEquals(Optional.of("a"), b.owner("shard-3"));
        NameTakenException taken = assertThrows(NameTakenException.class, () -> b.claim("shard-3"));
        assertEquals("a", taken.owner());
        claim.close();
        assertEquals(LeaseState.RELEASED, claim.lease().orElseThrow().state());
        assertEquals(Optional.empty(), b.owner("shard-3"));
        try (NameClaim second = b.claim("shard-3")) {
            assertTrue(second.token().isNewerThan(claim.token()), "a later claim has a higher token");
            assertEquals(Optional.of("b"), a.owner("shard-3"));
        }
    }

    @Test
    void anEphemeralClaimEndsWithItsSessionAndTheNameIsFree() throws Exception {
        CoordClient victim = zk.newClient();
        UniqueNames a = UniqueNames.open(victim, "a");
        UniqueNames b = UniqueNames.open(zk.newClient(), "b");
        NameClaim claim = a.claim("lease-me");
        Faults.expireSession(victim, zk.ensemble());
        assertEquals(LeaseState.LOST, claim.lease().orElseThrow().ended().get(20, TimeUnit.SECONDS));
        Awaits.until("the name to be free", Duration.ofSeconds(20), () -> ownerOf(b, "lease-me").isEmpty());
        try (NameClaim mine = b.claim("lease-me")) {
            claim.close(); // the stale claim's close must not delete b's claim
            assertEquals(Optional.of("b"), b.owner("lease-me"));
            assertTrue(mine.lease().orElseThrow().state() == LeaseState.ACQUIRED);
        }
    }

    @Test
    void aPersistentClaimSurvivesItsClientAndIsReleasedByItsOwnerLater() throws Exception {
        CoordClient first = zk.newClient();
        NameClaim claim = UniqueNames.open(first, "svc@host-1").claimPersistent("alias-7");
        assertTrue(claim.persistent());
        assertTrue(claim.lease().isEmpty());
        first.close(); // the handle is dropped without close(): the name stays
        UniqueNames other = UniqueNames.open(zk.newClient(), "someone-else");
        assertEquals(Optional.of("svc@host-1"), other.owner("alias-7"));
        assertThrows(NameTakenException.class, () -> other.claim("alias-7"));
        assertFalse(other.release("alias-7"), "released by an owner that does not hold it");
        UniqueNames again = UniqueNames.open(zk.newClient(), "svc@host-1");
        assertTrue(again.release("alias-7"));
        assertEquals(Optional.empty(), other.owner("alias-7"));
    }

    @Test
    void closingAPersistentClaimReleasesItOnlyIfItIsStillThatClaim() throws Exception {
        UniqueNames a = UniqueNames.open(zk.newClient(), "a");
        UniqueNames b = UniqueNames.open(zk.newClient(), "b");
        NameClaim old = a.claimPersistent("p");
        assertTrue(a.release("p"));
        NameClaim newer = b.claimPersistent("p");
        old.close(); // its node is gone; must not touch b's
        assertEquals(Optional.of("b"), a.owner("p"));
        newer.close();
        assertEquals(Optional.empty(), a.owner("p"));
    }

    @Test
    void anEphemeralAndAPersistentClaimOfOneNameExcludeEachOther() throws Exception {
        UniqueNames a = UniqueNames.open(zk.newClient(), "a");
        UniqueNames b = UniqueNames.open(zk.newClient(), "b");
        try (NameClaim held = a.claimPersistent("both")) {
            assertEquals(held.owner(), assertThrows(NameTakenException.class, () -> b.claim("both")).owner());
        }
        try (NameClaim held = b.claim("both")) {
            assertEquals(held.owner(), assertThrows(NameTakenException.class, () -> a.claimPersistent("both")).owner());
        }
    }

    @Test
    void aRefusedClaimLeavesNoNodeBehind() throws Exception {
        CoordClient client = zk.newClient();
        UniqueNames a = UniqueNames.open(client, "a");
        UniqueNames b = UniqueNames.open(zk.newClient(), "b");
        try (NameClaim held = a.claim("tidy")) {
            assertEquals(held.owner(), assertThrows(NameTakenException.class, () -> b.claim("tidy")).owner());
            List<String> children = client.curator().getChildren().forPath("/names/tidy");
            assertEquals(2, children.size(), "owner + a's lease node only: " + children);
        }
        Awaits.until("the claim's nodes to be gone after release", Duration.ofSeconds(5), () -> childrenOf(client, "/names/tidy").isEmpty());
    }

    @Test
    void badNamesAndOwnersAreRefusedBeforeAnythingIsSent() throws Exception {
        UniqueNames a = UniqueNames.open(zk.newClient(), "a");
        assertThrows(InvalidNameException.class, () -> a.claim("a/b"));
        assertThrows(InvalidNameException.class, () -> a.claim(""));
        assertThrows(InvalidNameException.class, () -> a.claimPersistent(".."));
        assertThrows(InvalidNameException.class, () -> UniqueNames.open(zk.newClient(), " "));
    }

    private static Optional<String> ownerOf(UniqueNames names, String name) {
        try {
            return names.owner(name);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private static List<String> childrenOf(CoordClient client, String path) {
        try {
            return client.curator().getChildren().forPath(path);
        } catch (org.apache.zookeeper.KeeperException.NoNodeException e) {
            return List.of();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
