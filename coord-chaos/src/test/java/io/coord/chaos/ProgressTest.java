package io.coord.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.test.History;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The throughput floor must catch what it is for: a run that stalled outside its fault windows,
 * a run that stalled inside a fault it could ride out, and a run that left too little time
 * outside its windows to tell (which used to pass with a NaN rate).
 */
class ProgressTest {
    private static final long S = 1_000_000_000L;
    private static final Duration SETTLE = Duration.ofSeconds(1);

    /** {@code perSecond} acknowledgements a second over {@code [from, to)} seconds, evenly spread. */
    private static void acks(List<History.Op> ops, double from, double to, int perSecond) {
        long n = Math.round((to - from) * perSecond);
        for (long i = 0; i < n; i++) {
            long t = (long) (from * S + i * (S / perSecond));
            ops.add(new History.Op(ops.size(), "w", "op", null, t, t + 1, History.Outcome.OK, null, null));
        }
    }

    private static History.Window window(String name, double from, double to) {
        return new History.Window(name, (long) (from * S), (long) (to * S));
    }

    @Test
    void aRunThatKeepsItsRateEverywherePasses() {
        List<History.Op> ops = new ArrayList<>();
        acks(ops, 0, 30, 100);
        Progress p = Progress.of(ops, List.of(window("cut w-1", 5, 6), window("zk-KILL_ZK_LEADER member 0", 12, 15)), SETTLE,
                w -> w.name().startsWith("cut "));
        assertTrue(p.ok(), p.problems().toString());
        assertEquals(100, p.warmup(), 2);
        assertEquals(100, p.outside(), 2);
        assertEquals(100, p.inside(), 2);
    }

    @Test
    void tooLittleTimeOutsideTheWindowsFailsInsteadOfPassingWithNoRate() {
        List<History.Op> ops = new ArrayList<>();
        acks(ops, 0, 20, 100);
        // back-to-back windows (each extended by the settle time) leave 0.5 s outside
        List<History.Window> ws = List.of(window("pause w-1", 4, 9), window("pause w-2", 10, 15), window("pause w-3", 16, 18.5));
        Progress p = Progress.of(ops, ws, SETTLE, w -> false);
        assertTrue(Double.isNaN(p.outside()), "outside rate " + p.outside());
        assertFalse(p.ok(), "a run with " + p.outsideSeconds() + " s outside its windows must fail");
        assertTrue(p.problems().get(0).contains("outside fault windows"), p.problems().toString());
        ChaosResult r = new ChaosResult("x", false, ops.size(), 3, 3, 0, 0, 0, p, java.util.Map.of());
        assertFalse(r.passed(), r.detailLine());
    }

    @Test
    void aStallInsideAFaultTheRecipeCanRideOutFails() {
        List<History.Op> ops = new ArrayList<>();
        acks(ops, 0, 10, 100);
        acks(ops, 10, 14, 5); // a cut-off of one of several workers must not stop the others
        acks(ops, 14, 30, 100);
        List<History.Window> ws = List.of(window("cut w-1", 10, 13));
        Progress ridable = Progress.of(ops, ws, SETTLE, w -> w.name().startsWith("cut "));
        assertFalse(ridable.ok(), "inside rate " + ridable.inside());
        assertTrue(ridable.problems().get(0).contains("inside the fault windows"), ridable.problems().toString());
        // the same stall inside a fault the recipe cannot ride out (say, a leader kill) is allowed
        Progress notRidable = Progress.of(ops, ws, SETTLE, w -> false);
        assertTrue(notRidable.ok(), notRidable.problems().toString());
        assertTrue(Double.isNaN(notRidable.inside()));
    }

    @Test
    void aStallOutsideTheWindowsFails() {
        List<History.Op> ops = new ArrayList<>();
        acks(ops, 0, 10, 100);
        acks(ops, 10, 30, 10);
        Progress p = Progress.of(ops, List.of(window("cut w-1", 10, 11)), SETTLE, w -> false);
        assertFalse(p.ok());
        assertTrue(p.problems().get(0).contains("too little progress outside"), p.problems().toString());
    }

    @Test
    void overlappingWindowsCountAsRidableOnlyIfAllOfThemAre() {
        List<History.Op> ops = new ArrayList<>();
        acks(ops, 0, 10, 100);
        acks(ops, 10, 16, 1);
        acks(ops, 16, 30, 100);
        List<History.Window> ws = List.of(window("cut w-1", 10, 12), window("zk-KILL_ZK_LEADER member 1", 12.5, 15));
        Progress p = Progress.of(ops, ws, SETTLE, w -> w.name().startsWith("cut "));
        assertTrue(Double.isNaN(p.inside()), "the merged window holds a leader kill: " + p.inside());
        assertTrue(p.ok(), p.problems().toString());
    }
}
