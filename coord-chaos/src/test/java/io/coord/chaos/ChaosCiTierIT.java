package io.coord.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The CI tier of the chaos suite, as {@code mvn verify} runs it: every registered scenario on one
 * forked ensemble at the volumes and fault counts of RELIABILITY.md's matrix, each with its
 * control, then each scenario's invariants and volume asserted one by one. The seed is printed
 * (and can be fixed with {@code -Dcoord.chaos.seed=...}); {@code -Dcoord.chaos.profile=short}
 * runs the short smoke profile instead (its volumes are not asserted); {@code -Dcoord.chaos.controls=false}
 * runs no control (CI's loaded second pass; the control tests then skip).
 */
@Tag("fault")
class ChaosCiTierIT {
    private static Map<String, ChaosResult> results;
    private static Profile profile;

    @BeforeAll
    static void runCiTier() throws InterruptedException {
        long seed = Long.getLong("coord.chaos.seed", System.nanoTime());
        String only = System.getProperty("coord.chaos.scenarios", "");
        List<String> names = only.isBlank() ? List.of() : List.of(only.split(","));
        profile = Profile.named(System.getProperty("coord.chaos.profile", "ci"));
        PrintWriter out = new PrintWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), true);
        results = ChaosSuite.run(names, profile, seed, out, controls()).stream()
                .collect(Collectors.toMap(ChaosResult::scenario, Function.identity()));
    }

    private static boolean controls() {
        return Boolean.parseBoolean(System.getProperty("coord.chaos.controls", "true"));
    }

    /** The run reached the CI tier's {@code ciTarget} (scaled to the profile; nothing in the short profile). */
    private static void assertVolume(ChaosResult r, long ciTarget) {
        assertEquals(profile.volume(ciTarget), r.volumeTarget(), r.scenario() + ": volume target: " + r.detailLine());
        assertTrue(r.volume() >= r.volumeTarget(), r.scenario() + ": volume " + r.volume() + " < " + r.volumeTarget() + ": "
                + r.detailLine());
    }

    /** The control ran a prefix of the main run's schedule, applied every fault of it and found a violation. */
    private static void assertControlBites(ChaosResult c, String main) {
        assertFaultsAsScheduled(c);
        assertTrue(c.control(), c.detailLine());
        assertTrue(c.violations() >= 1, "the control without the safety feature must show a violation: " + c.detailLine());
        assertTrue(c.faultsScheduled() <= result(main).faultsScheduled(), "the control runs a prefix of the main schedule: "
                + c.detailLine());
    }

    private static ChaosResult result(String name) {
        String only = System.getProperty("coord.chaos.scenarios", "");
        String base = name.endsWith("-control") ? name.substring(0, name.length() - "-control".length()) : name;
        Assumptions.assumeTrue(only.isBlank() || List.of(only.split(",")).contains(base), name + " was not selected");
        Assumptions.assumeTrue(controls() || base.equals(name), name + ": controls are off (-Dcoord.chaos.controls=false)");
        ChaosResult r = results.get(name);
        assertTrue(r != null, "no result for " + name + " in " + results.keySet());
        return r;
    }

    private static void assertFaultsAsScheduled(ChaosResult r) {
        assertTrue(r.faultsScheduled() > 0, r.scenario() + " scheduled no fault: " + r.detailLine());
        assertEquals(r.faultsScheduled(), r.faultsApplied(), r.scenario() + ": faults applied != scheduled: " + r.detailLine());
        assertEquals(0, r.stuck(), r.scenario() + ": stuck operations: " + r.detailLine());
    }

    private static void assertSafeAndProgressing(ChaosResult r) {
        assertFaultsAsScheduled(r);
        assertEquals(0, r.violations(), r.scenario() + ": violations: " + r.detailLine());
        assertEquals(0, r.lost(), r.scenario() + ": lost updates: " + r.detailLine());
        assertTrue(r.ops() > 0, r.scenario() + ": no acknowledged operation: " + r.detailLine());
        assertTrue(r.progress().ok(), r.scenario() + ": too little progress outside fault windows: " + r.detailLine());
        assertTrue(r.passed(), r.detailLine());
    }

    @Test
    void everyRegisteredScenarioReportedOneResult() {
        String only = System.getProperty("coord.chaos.scenarios", "");
        List<String> expected = only.isBlank() ? Scenarios.names() : List.of(only.split(","));
        for (String name : expected) {
            assertTrue(results.containsKey(name), name + " reported no CHAOS line: " + results.keySet());
        }
    }

    @Test
    void lockAcceptsNoStaleTokenLosesNoIncrementAndNeverOverlaps() {
        ChaosResult r = result("lock");
        assertSafeAndProgressing(r);
        assertEquals(0L, r.details().get("stale-accepted"), r.detailLine());
        assertEquals(0L, r.details().get("overlaps"), r.detailLine());
        assertEquals(0L, r.details().get("token-regressions"), r.detailLine());
        long counter = (Long) r.details().get("counter");
        long acked = (Long) r.details().get("acked");
        long indeterminate = (Long) r.details().get("indeterminate");
        assertTrue(counter >= acked && counter <= acked + indeterminate, "counter " + counter + " outside [" + acked + ", "
                + (acked + indeterminate) + "]: " + r.detailLine());
        assertTrue((Long) r.details().get("stale-rejected") >= 1,
                "the paused holder's stale write must have been attempted and refused: " + r.detailLine());
        assertVolume(r, LockScenario.CYCLES);
        assertEquals(0L, r.details().get("fifo-overtakes"), r.detailLine());
        assertTrue((Long) r.details().get("fifo-grants-checked") > 0, r.detailLine());
        assertEquals(0L, r.details().get("lost-holders-late"), r.detailLine());
        assertTrue((Long) r.details().get("lost-holders-timed") >= 1, "the paused holders' stops must have been timed: " + r.detailLine());
    }

    @Test
    void lockControlWithoutFencingShowsAViolationUnderTheSameSchedule() {
        ChaosResult c = result("lock-control");
        assertControlBites(c, "lock");
        assertTrue((Long) c.details().get("stale-accepted") >= 1, "the unfenced resource must accept the stale write: " + c.detailLine());
    }

    @Test
    void electionHasOneLeaderPerEpochRisingEpochsAndABoundedLeaderlessGap() {
        ChaosResult r = result("election");
        assertSafeAndProgressing(r);
        assertEquals(0L, r.details().get("epoch-conflicts"), r.detailLine());
        assertEquals(0L, r.details().get("two-leaders"), r.detailLine());
        assertEquals(0L, r.details().get("stale-accepted"), r.detailLine());
        assertEquals(0L, r.details().get("token-regressions"), r.detailLine());
        assertTrue((Long) r.details().get("longest-gap-ms") <= (Long) r.details().get("gap-bound-ms"), r.detailLine());
        assertTrue((Integer) r.details().get("epochs") >= 2, "the leader pauses must have moved leadership: " + r.detailLine());
        assertVolume(r, ElectionScenario.CHANGES);
    }

    @Test
    void electionControlWithoutEpochFencingShowsTwoActingLeaders() {
        ChaosResult c = result("election-control");
        assertControlBites(c, "election");
        assertTrue((Long) c.details().get("stale-accepted") >= 1,
                "without fencing the paused leader's write with its old epoch must be accepted: " + c.detailLine());
    }

    @Test
    void namingHandsOutNoDuplicateAndKeepsPerClientAndRealTimeOrder() {
        ChaosResult r = result("naming");
        assertSafeAndProgressing(r);
        assertEquals(0L, r.details().get("duplicates"), r.detailLine());
        assertEquals(0L, r.details().get("per-client-regressions"), r.detailLine());
        assertEquals(0L, r.details().get("real-time-violations"), r.detailLine());
        assertTrue((Long) r.details().get("seq-ids") > 0 && (Long) r.details().get("block-ids") > 0, r.detailLine());
        assertVolume(r, NamingScenario.IDS);
    }

    @Test
    void namingControlWithANaiveCounterHandsOutDuplicates() {
        ChaosResult c = result("naming-control");
        assertControlBites(c, "naming");
        assertTrue((Long) c.details().get("duplicates") >= 1, "the read-increment-write counter must hand out duplicates: " + c.detailLine());
    }

    @Test
    void queueCompletesEveryAcknowledgedTaskExactlyOnceAndRefusesTheStaleClaimant() {
        ChaosResult r = result("queue");
        assertSafeAndProgressing(r);
        assertEquals(0L, r.details().get("duplicate-completions"), r.detailLine());
        assertEquals(0L, r.details().get("wrongly-dead"), r.detailLine());
        assertEquals(0L, r.details().get("unexplained-executions"), r.detailLine());
        assertEquals(0L, r.details().get("stale-accepted"), r.detailLine());
        assertEquals(true, r.details().get("drained"), r.detailLine());
        assertTrue((Long) r.details().get("stale-rejected") >= 1, "the paused worker's completion must have been refused: " + r.detailLine());
        assertTrue((Integer) r.details().get("dead-lettered") >= 1, "the poison tasks must be dead-lettered: " + r.detailLine());
        assertEquals(0L, r.details().get("fifo-inversions"), "FIFO of first attempts within the consumers' spread: " + r.detailLine());
        assertVolume(r, QueueScenario.TASKS);
    }

    @Test
    void queueControlWithoutTheClaimCheckAcceptsTheStaleClaimantsCompletion() {
        ChaosResult c = result("queue-control");
        assertControlBites(c, "queue");
        assertTrue((Long) c.details().get("stale-accepted") >= 1, "without the claim check the stale completion must be accepted: "
                + c.detailLine());
    }

    @Test
    void barrierLetsNobodyThroughEarlyAndTellsEveryWaiterOfABrokenGeneration() {
        ChaosResult r = result("barrier");
        assertSafeAndProgressing(r);
        assertEquals(0L, r.details().get("early-enters"), r.detailLine());
        assertEquals(0L, r.details().get("early-leaves"), r.detailLine());
        assertEquals(0L, r.details().get("isolation"), r.detailLine());
        assertEquals(0L, r.details().get("late-breaks"), r.detailLine());
        assertEquals(0L, r.details().get("unexpected-breaks"), r.detailLine());
        assertTrue((Long) r.details().get("broken-as-expected") >= 1, "a member fault must have broken a generation: " + r.detailLine());
        assertTrue((Long) r.details().get("slowest-break-ms") <= (Long) r.details().get("break-bound-ms"), r.detailLine());
        assertTrue((Integer) r.details().get("rounds") >= (Integer) r.details().get("rounds-target"), r.detailLine());
    }

    @Test
    void barrierControlOnCuratorsDoubleBarrierLetsSomeoneThroughEarly() {
        ChaosResult c = result("barrier-control");
        assertFaultsAsScheduled(c);
        assertTrue(c.control());
        assertTrue(c.violations() >= 1, "Curator's DistributedDoubleBarrier must show a violation (GH-1290): " + c.detailLine());
    }

    @Test
    void configReadersApplyNothingInvalidNeverGoBackAndConvergeToTheLastGoodVersion() {
        ChaosResult r = result("config");
        assertSafeAndProgressing(r);
        assertEquals(0L, r.details().get("invalid-applied"), r.detailLine());
        assertEquals(0L, r.details().get("regressions"), r.detailLine());
        assertEquals(0L, r.details().get("not-converged"), r.detailLine());
        assertEquals(0L, r.details().get("late"), r.detailLine());
        assertTrue((Long) r.details().get("rejected") >= 1, "the readers must have refused the invalid writes: " + r.detailLine());
        assertVolume(r, ConfigScenario.UPDATES);
    }

    @Test
    void configControlWithoutValidationAppliesInvalidValues() {
        ChaosResult c = result("config-control");
        assertControlBites(c, "config");
        assertTrue((Long) c.details().get("invalid-applied") >= 1, "readers without validation must apply an invalid value: "
                + c.detailLine());
    }

    @Test
    void noScenarioFailed() {
        List<String> failed = results.values().stream().filter(r -> !r.passed()).map(ChaosResult::detailLine).collect(Collectors.toList());
        assertFalse(!failed.isEmpty(), "failed: " + failed);
    }

    // --- discovery, membership and the closing ACL audit (self-contained) ---

    @Test
    void discoveryShowsRegisteredInstancesLeavesNoPhantomDropsKilledOnesInTimeAndReRegistersEveryPausedOne() {
        ChaosResult r = result("discovery");
        assertSafeAndProgressing(r);
        assertEquals(0L, r.details().get("invisible"), r.detailLine());
        assertEquals(0L, r.details().get("phantoms"), r.detailLine());
        assertEquals(0L, r.details().get("stale"), r.detailLine());
        assertEquals(0L, r.details().get("not-re-registered"), r.detailLine());
        assertTrue((Long) r.details().get("max-stale-ms") <= (Long) r.details().get("stale-bound-ms"), r.detailLine());
        assertTrue((Long) r.details().get("pause-victims") >= 1, "the pauses must have hit registered instances: " + r.detailLine());
        assertEquals(r.details().get("pause-victims"), r.details().get("re-registered"), "100 % re-registration: " + r.detailLine());
        assertTrue((Long) r.details().get("registrations") >= (Long) r.details().get("target-registrations"), r.detailLine());
    }

    @Test
    void discoveryControlWithoutReRegistrationLosesAPausedInstance() {
        ChaosResult c = result("discovery-control");
        assertFaultsAsScheduled(c);
        assertTrue(c.control());
        assertTrue(c.violations() >= 1, "the plain registration must show a violation: " + c.detailLine());
        assertTrue((Long) c.details().get("not-re-registered") >= 1, "a paused instance must never come back: " + c.detailLine());
    }

    @Test
    void aclAuditFindsEveryNodeInsideThePolicyAndTheTestSecretInNoLog() {
        ChaosResult a = results.get("acl-audit");
        assertTrue(a != null, "the suite ran no ACL audit: " + results.keySet());
        assertTrue(a.ops() > 0, "the audit walked no node: " + a.detailLine());
        assertEquals(0, a.details().get("outside-policy"), a.detailLine());
        assertEquals(0, a.details().get("secret-hits"), a.detailLine());
        assertTrue((Integer) a.details().get("logs-scanned") > 0, "the audit searched no log: " + a.detailLine());
        assertTrue(a.passed(), a.detailLine());
    }

    @Test
    void membershipViewsConvergeNeverGoBackNeverResurrectAMemberAndAPausedMemberRejoins() {
        ChaosResult r = result("membership");
        assertSafeAndProgressing(r);
        assertEquals(0L, r.details().get("divergent"), r.detailLine());
        assertEquals(0L, r.details().get("regressions"), r.detailLine());
        assertEquals(0L, r.details().get("resurrected"), r.detailLine());
        assertEquals(0L, r.details().get("not-rejoined"), r.detailLine());
        assertTrue((Long) r.details().get("quiet-samples") >= 1, "views were never compared after a quiet spell: " + r.detailLine());
        assertTrue((Long) r.details().get("rejoined") >= 1, "a paused or partitioned member must have rejoined: " + r.detailLine());
    }

    @Test
    void membershipControlWithANaiveViewShowsADivergentView() {
        ChaosResult c = result("membership-control");
        assertFaultsAsScheduled(c);
        assertTrue(c.control());
        assertTrue(c.violations() >= 1, "the naive view must show a violation: " + c.detailLine());
        assertTrue((Long) c.details().get("divergent") >= 1, "a naive view must freeze after an expiry: " + c.detailLine());
    }
}
