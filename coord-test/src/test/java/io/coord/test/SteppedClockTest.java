package io.coord.test;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * F12 as the chaos suite applies it: {@link SteppedClock} steps a running child's wall clock
 * forward and back by hours while its {@code System.nanoTime} keeps real time. Skipped, with one
 * line saying what to install, where libfaketime is missing.
 */
@Tag("fault")
class SteppedClockTest {
    /** The child: prints {@code ready}, then {@code clock <currentTimeMillis> <nanoTime>} for every line it reads. */
    public static final class Probe {
        private Probe() {
        }

        public static void main(String[] args) throws Exception {
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            System.out.println("ready");
            while (in.readLine() != null) {
                System.out.println("clock " + System.currentTimeMillis() + " " + System.nanoTime());
            }
        }
    }

    private static long[] clock(ChildJvm child) {
        String[] p = child.request("clock", Duration.ofSeconds(10)).split(" ");
        return new long[] {Long.parseLong(p[1]), Long.parseLong(p[2])};
    }

    /**
     * Sets {@code offset} and checks that the child's wall clock follows (within
     * {@link SteppedClock#LAG}) while its nanoTime keeps counting real time.
     */
    private static void assertSteps(SteppedClock clock, ChildJvm child, Duration offset) {
        Duration previous = clock.offset();
        long[] before = clock(child);
        long realBefore = System.nanoTime();
        clock.set(offset);
        // a request/answer round trip on a busy machine: allow some seconds either way
        long slack = Awaits.scaled(Duration.ofSeconds(5)).toMillis();
        Duration shown = Awaits.until("the child's wall clock to show the offset " + offset, SteppedClock.LAG.plusSeconds(10),
                () -> Math.abs(clock(child)[0] - System.currentTimeMillis() - offset.toMillis()) < slack);
        long[] after = clock(child);
        long realMs = (System.nanoTime() - realBefore) / 1_000_000;
        long wallMs = after[0] - before[0];
        long monoMs = (after[1] - before[1]) / 1_000_000;
        long expectedWallMs = realMs + offset.minus(previous).toMillis();
        assertTrue(Math.abs(wallMs - expectedWallMs) < slack,
                "the child's wall clock moved " + wallMs + " ms in " + realMs + " ms of real time; expected about " + expectedWallMs);
        assertTrue(monoMs >= 0 && Math.abs(monoMs - realMs) < slack,
                "the child's nanoTime moved " + monoMs + " ms in " + realMs + " ms of real time: it must not follow the step");
        System.out.printf("F12: offset %s -> %s (shown after %d ms): child wall clock moved %d ms, nanoTime %d ms, in %d ms of real time%n",
                previous, offset, shown.toMillis(), wallMs, monoMs, realMs);
    }

    @Test
    void steppingTheOffsetMovesTheChildsWallClockByHoursAndLeavesItsNanoTimeAlone() throws Exception {
        Assumptions.assumeTrue(SteppedClock.available(), SteppedClock.MISSING);
        try (SteppedClock clock = SteppedClock.create();
             ChildJvm child = clock.applyTo(ChildJvm.builder(Probe.class.getName())).start()) {
            // the bound is for a hang (a JVM under libfaketime took 10-45 s before SteppedClock turned off its monotonic fix)
            child.expectLine("ready", Duration.ofSeconds(120));
            assertTrue(Math.abs(clock(child)[0] - System.currentTimeMillis()) < Awaits.scaled(Duration.ofSeconds(5)).toMillis(),
                    "at offset zero the child's clock is real time");
            assertSteps(clock, child, Duration.ofHours(2));
            assertSteps(clock, child, Duration.ofHours(-1));
            assertSteps(clock, child, Duration.ZERO);
        }
    }
}
