package io.coord.election;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import static io.coord.election.CuratorLayout.LATCH;
import static io.coord.election.CuratorLayout.SELECTOR;

import io.coord.LeaseState;
import io.coord.election.CandidateRule.Handover;
import io.coord.election.CandidateRule.View;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The election's decisions, without a server. */
class CandidateRuleTest {
    private static final String A = "_c_aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa-latch-0000000003";
    private static final String B = "_c_bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb-latch-0000000007";
    private static final String C = "_c_cccccccc-cccc-cccc-cccc-cccccccccccc-latch-0000000010";
    private static final String D = "_c_dddddddd-dddd-dddd-dddd-dddddddddddd-latch-0000000011";

    @Test
    void lowestSequenceLeadsWhateverTheListingOrderAndProtectionPrefix() {
        List<String> children = new ArrayList<>(List.of(C, A, D, B));
        for (int i = 0; i < 4; i++) {
            Collections.rotate(children, 1);
            assertEquals(Optional.of(A), CandidateRule.leader(children, LATCH));
            assertEquals(List.of(A, B, C, D), CandidateRule.order(children, LATCH));
        }
    }

    @Test
    void curatorsAndCoordsNodesOfOneLayoutAreOrderedTogetherByCuratorsRule() {
        // Curator's LeaderLatch node (same name shape, its data is the bare id) between Coord's.
        String curator = "_c_eeeeeeee-eeee-eeee-eeee-eeeeeeeeeeee-latch-0000000005";
        assertEquals(List.of(A, curator, B), CandidateRule.order(List.of(B, curator, A), LATCH));
        assertEquals(new CandidateRule.Watch(curator, false), CandidateRule.next(List.of(B, curator, A), B, LATCH));
        // Sequence after the LAST occurrence of the name, exactly 10 digits (StandardLockInternalsDriver).
        assertEquals(7, CandidateRule.sequence("x-latch-latch-0000000007", LATCH));
        assertEquals(-1, CandidateRule.sequence("latch-0000000007-latch-x", LATCH));
        assertEquals(3, CandidateRule.sequence("_c_aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa-lock-0000000003", SELECTOR));
        assertEquals(-1, CandidateRule.sequence(A, SELECTOR));
    }

    @Test
    void nodesOfAnyOtherShapeAreForeignAndNothingIsDecidedBesideThem() {
        String selector = "_c_ffffffff-ffff-ffff-ffff-ffffffffffff-lock-0000000001";
        String oldCoord = "_c_99999999-9999-9999-9999-999999999999-candidate-0000000002";
        List<String> children = List.of(selector, oldCoord, "zzz", "latch-12", B, C);
        assertEquals(List.of(selector, oldCoord, "zzz", "latch-12"), CandidateRule.foreign(children, LATCH));
        assertEquals(new CandidateRule.Foreign(List.of(selector, oldCoord, "zzz", "latch-12")), CandidateRule.next(children, B, LATCH));
        assertEquals(List.of(B, C), CandidateRule.order(children, LATCH), "observers still see the layout's candidates");
        assertEquals(List.of(A), CandidateRule.foreign(List.of(A, selector), SELECTOR));

        String message = CandidateRule.refusal(io.coord.CoordPath.of("/elections/e"), LATCH, List.of(selector, oldCoord), "did not join")
                .getMessage();
        for (String part : List.of("/elections/e", selector, oldCoord, "did not join", "LeaderSelector", "curatorLayout(SELECTOR)",
                "stop the older clients")) {
            assertTrue(message.contains(part), part + " in: " + message);
        }
    }

    @Test
    void eachCandidateWatchesOnlyTheNodeJustAheadSoALeaderLeavingWakesOne() {
        List<String> children = List.of(D, B, A, C);
        assertEquals(new CandidateRule.Lead(), CandidateRule.next(children, A, LATCH));
        assertEquals(new CandidateRule.Watch(A, true), CandidateRule.next(children, B, LATCH));
        assertEquals(new CandidateRule.Watch(B, false), CandidateRule.next(children, C, LATCH));
        assertEquals(new CandidateRule.Watch(C, false), CandidateRule.next(children, D, LATCH));
        // every node is watched by at most one candidate
        List<String> watched = new ArrayList<>();
        for (String n : children) {
            if (CandidateRule.next(children, n, LATCH) instanceof CandidateRule.Watch w) {
                assertFalse(watched.contains(w.predecessor()), "two watchers on " + w.predecessor());
                watched.add(w.predecessor());
            }
        }
        assertEquals(3, watched.size());
    }

    @Test
    void aMiddleCandidateLeavingMakesItsSuccessorWatchTheNextOneAhead() {
        assertEquals(new CandidateRule.Watch(A, true), CandidateRule.next(List.of(A, C), C, LATCH));
    }

    @Test
    void onlyTheDeletionOfTheLeaderAloneElectsTheCandidateBehindIt() {
        List<String> children = List.of(A, B, C);
        CandidateRule.Step behindLeader = CandidateRule.next(children, B, LATCH);
        CandidateRule.Step further = CandidateRule.next(children, C, LATCH);
        assertTrue(((CandidateRule.Watch) behindLeader).electsOnDeletion(), "B waits for the leader A only");
        assertFalse(((CandidateRule.Watch) further).electsOnDeletion(), "C has A ahead besides B: B going elects nobody");
        // and indeed, once the leader is gone the candidate behind it leads, whatever joins later
        assertEquals(new CandidateRule.Lead(), CandidateRule.next(List.of(B, C, D), B, LATCH));
    }

    @Test
    void aCandidateWhoseNodeIsGoneIsToldSo() {
        assertEquals(new CandidateRule.Gone(), CandidateRule.next(List.of(A, B), C, LATCH));
        assertEquals(new CandidateRule.Gone(), CandidateRule.next(List.of(), C, LATCH));
    }

    @Test
    void handoverTableActsOnlyWithACertainLeaseAfterTheGrace() {
        Duration grace = Duration.ofMillis(500);
        long elected = 1_000_000_000L;
        long before = elected + grace.toNanos() - 1;
        long after = elected + grace.toNanos();
        assertEquals(Handover.WAIT_GRACE, CandidateRule.handover(LeaseState.ACQUIRED, true, elected, before, grace));
        assertEquals(Handover.ACT, CandidateRule.handover(LeaseState.ACQUIRED, true, elected, after, grace));
        assertEquals(Handover.ACT, CandidateRule.handover(LeaseState.ACQUIRED, true, elected, elected, Duration.ZERO),
                "grace 0: act at once");
        for (long now : new long[] {before, after}) {
            assertEquals(Handover.WAIT_RESTORED, CandidateRule.handover(LeaseState.UNCERTAIN, true, elected, now, grace));
            assertEquals(Handover.WAIT_RESTORED, CandidateRule.handover(LeaseState.ACQUIRED, false, elected, now, grace),
                    "a suspended session is not certain even before the lease hears of it");
            assertEquals(Handover.ENDED, CandidateRule.handover(LeaseState.LOST, true, elected, now, grace));
            assertEquals(Handover.ENDED, CandidateRule.handover(LeaseState.RELEASED, false, elected, now, grace));
        }
    }

    @Test
    void handoverGraceWorksAcrossTheNanoTimeWrap() {
        long elected = Long.MAX_VALUE - 10;
        Duration grace = Duration.ofNanos(100);
        assertEquals(Handover.WAIT_GRACE, CandidateRule.handover(LeaseState.ACQUIRED, true, elected, elected + 50, grace));
        assertEquals(Handover.ACT, CandidateRule.handover(LeaseState.ACQUIRED, true, elected, elected + 100, grace));
    }

    @Test
    void observersReportOnlyNewerEpochsTheActingFlipAndLeaderlessness() {
        View none = View.NONE;
        View v10 = new View(10, false);
        View v10acting = new View(10, true);
        View v12 = new View(12, true);
        assertTrue(CandidateRule.isNews(none, 0, v10), "a first leader");
        assertTrue(CandidateRule.isNews(v10, 10, v10acting), "the same leader starts acting");
        assertFalse(CandidateRule.isNews(v10acting, 10, v10acting), "nothing changed");
        assertFalse(CandidateRule.isNews(v10acting, 10, v10), "acting never goes back");
        assertTrue(CandidateRule.isNews(v10acting, 10, v12), "a newer leader");
        assertFalse(CandidateRule.isNews(v12, 12, v10acting), "an older epoch is a stale read");
        assertTrue(CandidateRule.isNews(v12, 12, none), "the leader left, nobody else");
        assertFalse(CandidateRule.isNews(none, 12, none), "still nobody");
        assertFalse(CandidateRule.isNews(none, 12, v10acting), "stale after leaderless");
        assertTrue(CandidateRule.isNews(none, 12, v12), "the highest leader again corrects a stale 'no leader'");
    }

    @Test
    void aLeaderActsOnlyOnceItsOwnEpochIsAnnounced() {
        assertTrue(CandidateRule.isActing(10, 10));
        assertFalse(CandidateRule.isActing(9, 10), "the previous leader's announcement is not ours");
        assertFalse(CandidateRule.isActing(11, 10), "nor is a later one");
    }

    @Test
    void viewsAndStepsRejectNonsense() {
        assertThrows(IllegalArgumentException.class, () -> new View(0, true));
        assertThrows(IllegalArgumentException.class, () -> new View(-1, false));
        assertThrows(IllegalArgumentException.class, () -> new CandidateRule.Watch("", true));
    }
}
