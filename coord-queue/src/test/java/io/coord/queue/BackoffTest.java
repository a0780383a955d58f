package io.coord.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The retry-delay rule, without a server or a clock. */
class BackoffTest {
    private static final Backoff NO_JITTER = new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(30), 0);

    @Test
    void delayDoublesPerFailureFromTheBase() {
        assertEquals(Duration.ofSeconds(1), NO_JITTER.delay(1, 0.5));
        assertEquals(Duration.ofSeconds(2), NO_JITTER.delay(2, 0.5));
        assertEquals(Duration.ofSeconds(4), NO_JITTER.delay(3, 0.5));
        assertEquals(Duration.ofSeconds(16), NO_JITTER.delay(5, 0.5));
    }

    @Test
    void delayNeverExceedsTheCapEvenForHugeFailureCounts() {
        assertEquals(Duration.ofSeconds(30), NO_JITTER.delay(6, 0.5));
        assertEquals(Duration.ofSeconds(30), NO_JITTER.delay(63, 0.5));
        assertEquals(Duration.ofSeconds(30), NO_JITTER.delay(64, 0.5));
        assertEquals(Duration.ofSeconds(30), NO_JITTER.delay(Integer.MAX_VALUE, 0.5));
        Backoff huge = new Backoff(Duration.ofDays(365), Duration.ofDays(3650), 0);
        assertEquals(Duration.ofDays(3650), huge.delay(40, 0), "no overflow with a large base");
    }

    @Test
    void jitterOnlyShortensAndStaysWithinItsFraction() {
        Backoff b = new Backoff(Duration.ofSeconds(10), Duration.ofMinutes(5), 0.2);
        assertEquals(Duration.ofSeconds(10), b.delay(1, 0.0), "a zero draw keeps the full delay");
        for (double r = 0; r < 1; r += 0.01) {
            Duration d = b.delay(1, r);
            assertTrue(d.compareTo(Duration.ofSeconds(8)) >= 0 && d.compareTo(Duration.ofSeconds(10)) <= 0, r + " gave " + d);
        }
        assertEquals(Duration.ofMillis(9000), b.delay(1, 0.5));
    }

    @Test
    void zeroBaseRetriesAtOnce() {
        assertEquals(Duration.ZERO, new Backoff(Duration.ZERO, Duration.ofSeconds(5), 0.5).delay(10, 0.9));
    }

    @Test
    void badArgumentsAreRefusedNamingTheValue() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> NO_JITTER.delay(0, 0.5)).getMessage().contains("0"));
        assertThrows(IllegalArgumentException.class, () -> NO_JITTER.delay(1, 1.0));
        assertThrows(IllegalArgumentException.class, () -> NO_JITTER.delay(1, -0.1));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> new Backoff(Duration.ofSeconds(2), Duration.ofSeconds(1), 0)).getMessage().contains("PT1S"));
        assertThrows(IllegalArgumentException.class, () -> new Backoff(Duration.ofSeconds(-1), Duration.ofSeconds(1), 0));
        assertThrows(IllegalArgumentException.class, () -> new Backoff(Duration.ZERO, Duration.ofSeconds(1), 1.5));
    }
}
