package io.coord.election;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.ForeignNodesException;
import io.coord.LeaseState;
import io.coord.test.Faults;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderSelector;
import org.apache.curator.framework.recipes.leader.LeaderSelectorListenerAdapter;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 16, election: a rolling deploy from Curator's LeaderLatch / LeaderSelector to
 * {@link Election} on one election, each client its own session, never has two acting leaders:
 * Coord names its candidates as the chosen Curator recipe does and orders them with Curator's by
 * sequence. Beside the other layout's nodes Coord refuses, leaving the Curator leader alone.
 */
class MixedElectionFleetIT {
    @RegisterExtension
    static final ElectionTestKit KIT = new ElectionTestKit();

    static final int CHANGES = 50;
    static final Duration BUDGET = Duration.ofSeconds(30);

    @Test
    void leaderLatchAndCoordCandidatesNeverActTogether() throws Exception {
        cleanFleet("mixed-latch", CuratorLayout.LATCH);
    }

    @Test
    void leaderSelectorAndCoordCandidatesNeverActTogether() throws Exception {
        cleanFleet("mixed-selector", CuratorLayout.SELECTOR);
    }

    /** 3 Curator candidates of {@code layout}'s recipe and 3 Coord ones, {@link #CHANGES} leader changes, no fault. */
    private static void cleanFleet(String name, CuratorLayout layout) throws Exception {
        try (LeaderFleet fleet = new LeaderFleet(KIT, name)) {
            for (int i = 1; i <= 3; i++) {
                if (layout == CuratorLayout.LATCH) {
                    fleet.latch("curator-" + i);
                } else {
                    fleet.selector("curator-" + i);
                }
                fleet.coord("coord-" + i, KIT.client(), layout);
            }
            fleet.run(CHANGES, BUDGET, null, null);
            fleet.assertSafe(CHANGES, null);
        }
    }

    /** A Coord candidate's session expires half-way: still never two acting, Coord epochs keep rising, the victim leads again. */
    @Test
    @Tag("fault")
    void aCoordCandidatesSessionExpiringMidRunLeavesOneLeader() throws Exception {
        try (LeaderFleet fleet = new LeaderFleet(KIT, "mixed-expiry")) {
            CoordClient victim = KIT.client();
            for (int i = 1; i <= 3; i++) {
                fleet.latch("curator-" + i);
                fleet.coord("coord-" + i, i == 1 ? victim : KIT.client(), CuratorLayout.LATCH);
            }
            fleet.run(CHANGES, BUDGET, () -> fleet.expired.add(Faults.expireSession(victim, KIT.ensemble())), "coord-1");
            assertEquals(1, fleet.expired.size());
            fleet.assertSafe(CHANGES, "coord-1");
        }
    }

    /** LeaderSelector's lock- nodes in a LATCH election: Coord refuses with the documented error; the Curator leader leads on. */
    @Test
    void coordRefusesBesideTheOtherLayoutAndLeavesTheCuratorLeaderAlone() throws Exception {
        try (LeaderFleet fleet = new LeaderFleet(KIT, "refused")) {
            CuratorFramework curator = fleet.curator();
            java.util.concurrent.CountDownLatch leading = new java.util.concurrent.CountDownLatch(1);
            java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
            java.util.concurrent.atomic.AtomicBoolean interrupted = new java.util.concurrent.atomic.AtomicBoolean();
            try (LeaderSelector selector = new LeaderSelector(curator, fleet.path(), new LeaderSelectorListenerAdapter() {
                @Override
                public void takeLeadership(CuratorFramework client) {
                    leading.countDown();
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        interrupted.set(true);
                    }
                }
            })) {
                selector.start();
                assertTrue(leading.await(io.coord.test.Awaits.scaled(Duration.ofSeconds(10)).toMillis(), TimeUnit.MILLISECONDS));
                List<String> before = curator.getChildren().forPath(fleet.path());

                Election coord = KIT.election(KIT.client(), "refused", ElectionOptions.builder().participantId("coord").build());
                ForeignNodesException e = assertThrows(ForeignNodesException.class, () -> coord.campaign(Duration.ofSeconds(5)));
                assertEquals(before, e.nodes());
                assertEquals(fleet.path(), e.path().value());
                for (String part : List.of(fleet.path(), before.get(0), "did not join", "curatorLayout(SELECTOR)")) {
                    assertTrue(e.getMessage().contains(part), part + " in: " + e.getMessage());
                }
                assertEquals(before, curator.getChildren().forPath(fleet.path()), "Coord left no node");
                assertTrue(selector.hasLeadership() && !interrupted.get(), "the Curator leader is undisturbed");
                assertEquals(java.util.Optional.empty(), coord.leader(), "no LATCH candidate there; reading does not fail");
                release.countDown();
            }
        }
    }

    /** A Coord leader that sees a foreign node appear steps down (LOST, the refusal as cause) and does not join again while it is there. */
    @Test
    void aCoordLeaderStepsDownWhenAForeignNodeAppears() throws Exception {
        try (LeaderFleet fleet = new LeaderFleet(KIT, "appears")) {
            Election coord = KIT.election(KIT.client(), "appears", ElectionOptions.builder().participantId("coord").build());
            Leadership l = coord.campaign(Duration.ofSeconds(10));
            Election waiting = KIT.election(KIT.client(), "appears", ElectionOptions.builder().participantId("waiting").build());
            java.util.concurrent.CompletableFuture<Leadership> next = waiting.campaignAsync();
            ElectionTestKit.await(Duration.ofSeconds(10), () -> ElectionTestKit.candidateCount(coord) == 2,
                    () -> "the second Coord candidate queued");
            CuratorFramework curator = fleet.curator();
            try (LeaderSelector selector = new LeaderSelector(curator, fleet.path(), new LeaderSelectorListenerAdapter() {
                @Override
                public void takeLeadership(CuratorFramework client) throws InterruptedException {
                    Thread.sleep(Long.MAX_VALUE);
                }
            })) {
                selector.start();
                LeaseState end = l.ended().get(io.coord.test.Awaits.scaled(Duration.ofSeconds(10)).toMillis(), TimeUnit.MILLISECONDS);
                assertEquals(LeaseState.LOST, end);
                io.coord.LockLostException lost = assertThrows(io.coord.LockLostException.class, l::checkValid);
                assertTrue(lost.getCause() instanceof ForeignNodesException && lost.getMessage().contains("stepped down"),
                        lost.getMessage());
                assertThrows(ForeignNodesException.class, () -> coord.campaign(Duration.ofSeconds(5)), "no rejoin beside it");
                // The waiting candidate, elected by the step-down, is refused, or leads for one round trip and steps down too.
                try {
                    Leadership w = next.get(io.coord.test.Awaits.scaled(Duration.ofSeconds(10)).toMillis(), TimeUnit.MILLISECONDS);
                    assertEquals(LeaseState.LOST, w.ended().get(io.coord.test.Awaits.scaled(Duration.ofSeconds(10)).toMillis(),
                            TimeUnit.MILLISECONDS));
                } catch (java.util.concurrent.ExecutionException refused) {
                    assertTrue(refused.getCause() instanceof ForeignNodesException, refused.toString());
                }
                ElectionTestKit.await(Duration.ofSeconds(10), () -> {
                    try {
                        return curator.getChildren().forPath(fleet.path()).size() == 1;
                    } catch (Exception e) {
                        return false;
                    }
                }, () -> "only the foreign node is left");
            }
        }
    }
}
