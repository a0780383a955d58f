package io.coord.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class CanaryRuleTest {
    @Test
    void theBucketOfAnIdIsStableAndKnown() {
        // Pinned values: a change of hash function would silently move instances in and out of running canaries.
        int[] buckets = IntStream.range(0, 5).map(i -> CanaryRule.bucket("instance-" + i)).toArray();
        assertEquals("[6474, 8869, 5711, 4745, 709]", java.util.Arrays.toString(buckets));
    }

    @Test
    void aboutTheGivenShareOfManyInstancesIsInTheCanary() {
        for (double percent : new double[] {1, 10, 25, 50, 90}) {
            long in = IntStream.range(0, 10_000).filter(i -> CanaryRule.inCanary("host-" + i, percent)).count();
            assertEquals(percent * 100, in, 2.5 * Math.sqrt(10_000 * percent / 100 * (1 - percent / 100)) + 30,
                    percent + "% of 10 000 ids");
        }
    }

    @Test
    void raisingThePercentageOnlyAddsInstances() {
        for (int i = 0; i < 2000; i++) {
            String id = "pod-" + i;
            boolean before = false;
            for (double percent = 0.5; percent <= 100; percent += 0.5) {
                boolean now = CanaryRule.inCanary(id, percent);
                assertTrue(now || !before, id + " left the canary when it grew to " + percent + "%");
                before = now;
            }
        }
    }

    @Test
    void hundredPercentIsEveryoneAndTheSmallestStepIsAHundredth() {
        assertTrue(IntStream.range(0, 1000).allMatch(i -> CanaryRule.inCanary("x" + i, 100)));
        assertFalse(IntStream.range(0, 1000).anyMatch(i -> CanaryRule.inCanary("x" + i, 0.001)), "0.001% rounds to no bucket");
    }

    @Test
    void aPercentageOutsideZeroToHundredIsRefusedWithTheValue() {
        for (double bad : new double[] {0, -1, 100.5, Double.NaN, Double.POSITIVE_INFINITY}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CanaryRule.inCanary("a", bad));
            assertTrue(e.getMessage().contains(String.valueOf(bad)), e.getMessage());
        }
    }
}
