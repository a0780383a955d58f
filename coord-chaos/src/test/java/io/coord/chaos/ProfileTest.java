package io.coord.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** What each profile asks of a scenario: volume, fault counts, minimum and maximum time; and a control's schedule. */
class ProfileTest {
    @Test
    void theCiTierAsksTheMatrixVolumesAndFaultCountsWithNoMinimumTime() {
        Profile ci = Profile.named("ci");
        assertTrue(ci.volumeDriven());
        assertEquals(2_000, ci.volume(2_000));
        assertEquals(10, ci.faults(2, 10));
        assertEquals(Duration.ZERO, ci.minimum());
        assertEquals(Duration.ofSeconds(180), ci.maxTime(Duration.ofSeconds(180)));
        assertEquals(1, ci.scale(1), "a count given for the short profile only stays as it is");
        assertEquals(10, ci.scale(4, 10), "a scenario whose base count is the CI tier's does it in the CI tier");
    }

    @Test
    void theShortProfileRunsForItsTimeWithItsOwnCountsAndNoVolume() {
        Profile s = Profile.named("short");
        assertFalse(s.volumeDriven());
        assertEquals(0, s.volume(2_000));
        assertEquals(2, s.faults(2, 10));
        assertEquals(4, s.scale(4, 10), "the short profile's own count, so CI's loaded pass fits its budget");
        assertEquals(Duration.ofSeconds(Profile.SHORT_SECONDS), s.minimum());
    }

    @Test
    void aLongShareDoesAtLeastTheCiTierAndMoreWhenLonger() {
        Profile tight = Profile.longProfile(Duration.ofMinutes(5), 5); // 60 s a share: still the CI tier
        assertEquals(2_000, tight.volume(2_000));
        assertEquals(10, tight.faults(2, 10));
        Profile roomy = Profile.longProfile(Duration.ofMinutes(20), 5); // 240 s a share: twice the CI nominal
        assertEquals(4_000, roomy.volume(2_000));
        assertEquals(20, roomy.faults(2, 10));
        assertEquals(20, roomy.scale(4, 10), "a long run scales the CI tier's count by its volume factor, as faults()");
        assertEquals(Duration.ofSeconds(240), roomy.minimum());
        assertTrue(roomy.maxTime(Duration.ofSeconds(180)).compareTo(Duration.ofSeconds(360)) >= 0);
    }

    @Test
    void anUnknownProfileNameIsRefusedNamingIt() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Profile.named("nightly"));
        assertTrue(e.getMessage().contains("'nightly'") && e.getMessage().contains("ci, short"), e.getMessage());
    }

    @Test
    void aControlRunsThePrefixUpToItsBitingFaultsWithAtMostThreeOthers() {
        Map<FaultKind, Integer> counts = new EnumMap<>(FaultKind.class);
        counts.put(FaultKind.CUT, 10);
        counts.put(FaultKind.PAUSE_HOLDER, 3);
        FaultPlan plan = FaultPlan.of(new Random(7), Duration.ofSeconds(60), counts);
        FaultPlan control = ChaosContext.controlPlan(plan, FaultKind.PAUSE_HOLDER, 2);
        List<FaultKind> kinds = control.faults().stream().map(FaultPlan.Fault::kind).toList();
        assertEquals(2, kinds.stream().filter(k -> k == FaultKind.PAUSE_HOLDER).count(), control.toString());
        assertTrue(kinds.stream().filter(k -> k == FaultKind.CUT).count() <= ChaosContext.CONTROL_OTHERS, control.toString());
        assertEquals(FaultKind.PAUSE_HOLDER, kinds.get(kinds.size() - 1), "it ends at the second biting fault: " + control);
        for (int i = 1; i < control.size(); i++) {
            assertTrue(control.faults().get(i).atMillis() > control.faults().get(i - 1).atMillis(), control.toString());
        }
    }
}
