package io.coord.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The schedule is a pure function of the seed, so a printed seed replays the same faults. */
class FaultPlanTest {
    private static Map<FaultKind, Integer> mix() {
        Map<FaultKind, Integer> m = new EnumMap<>(FaultKind.class);
        m.put(FaultKind.KILL_ZK_LEADER, 1);
        m.put(FaultKind.EXPIRE, 2);
        m.put(FaultKind.PAUSE_HOLDER, 1);
        m.put(FaultKind.CUT, 2);
        return m;
    }

    @Test
    void theSameSeedGivesTheSameScheduleWhateverTheMapOrder() {
        Map<FaultKind, Integer> reversed = new LinkedHashMap<>();
        reversed.put(FaultKind.CUT, 2);
        reversed.put(FaultKind.PAUSE_HOLDER, 1);
        reversed.put(FaultKind.EXPIRE, 2);
        reversed.put(FaultKind.KILL_ZK_LEADER, 1);
        FaultPlan a = FaultPlan.of(new Random(42), Duration.ofSeconds(20), mix());
        FaultPlan b = FaultPlan.of(new Random(42), Duration.ofSeconds(20), reversed);
        assertEquals(a, b);
        assertNotEquals(a, FaultPlan.of(new Random(43), Duration.ofSeconds(20), mix()), "another seed, another schedule");
    }

    @Test
    void everyRequestedFaultIsScheduledInOrderAfterTheWarmupAndWithinTheLength() {
        FaultPlan plan = FaultPlan.of(new Random(7), Duration.ofSeconds(20), mix());
        assertEquals(6, plan.size());
        Map<FaultKind, Integer> seen = new EnumMap<>(FaultKind.class);
        long previous = -1;
        for (FaultPlan.Fault f : plan.faults()) {
            seen.merge(f.kind(), 1, Integer::sum);
            assertTrue(f.atMillis() >= FaultPlan.WARMUP.toMillis() && f.atMillis() < 20_000, f.toString());
            assertTrue(f.atMillis() > previous, "times increase: " + plan);
            previous = f.atMillis();
        }
        assertEquals(mix(), seen);
    }

    @Test
    void aNegativeCountIsRefusedNamingTheKind() {
        Map<FaultKind, Integer> bad = new EnumMap<>(FaultKind.class);
        bad.put(FaultKind.CUT, -1);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> FaultPlan.of(new Random(1), Duration.ofSeconds(20), bad));
        assertTrue(e.getMessage().contains("CUT") && e.getMessage().contains("-1"), e.getMessage());
    }

    @Test
    void theLongProfileScalesFaultCountsWithItsLength() {
        assertEquals(2, Profile.shortProfile().scale(2));
        Profile tenMinutesOverFive = Profile.longProfile(Duration.ofMinutes(10), 5);
        assertEquals(Duration.ofMinutes(2), tenMinutesOverFive.perScenario());
        assertEquals(9, tenMinutesOverFive.scale(2), "0.75 x 120 s / 20 s = 4.5 times the short count");
        assertThrows(IllegalArgumentException.class, () -> Profile.longProfile(Duration.ofSeconds(15), 2));
    }

    @Test
    void theEnsembleFaultsAreExcusedLikeMemberKillsAndOnlyTheClockStepNeedsLibfaketime() {
        for (FaultKind k : FaultKind.values()) {
            boolean ensemble = k.name().contains("ZK") || k == FaultKind.LOSE_QUORUM;
            assertEquals(ensemble, k.hitsEnsemble(), k.name());
            assertEquals(k == FaultKind.CLOCK_STEP, k.needsSteppedClock(), k.name());
        }
    }
}
