package io.coord.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class AwaitsTest {
    @AfterEach
    void clearProperty() {
        System.clearProperty(Awaits.TIMING_PROPERTY);
    }

    @Test
    void timingMultiplierDefaultsToOneAndStretchesBounds() {
        assertEquals(1.0, Awaits.timing());
        System.setProperty(Awaits.TIMING_PROPERTY, "2.5");
        assertEquals(Duration.ofMillis(2500), Awaits.scaled(Duration.ofSeconds(1)));
    }

    @Test
    void badTimingMultiplierIsRejectedWithItsValue() {
        System.setProperty(Awaits.TIMING_PROPERTY, "fast");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, Awaits::timing);
        assertTrue(e.getMessage().contains("fast"), e.getMessage());
        System.setProperty(Awaits.TIMING_PROPERTY, "0");
        assertThrows(IllegalArgumentException.class, Awaits::timing);
    }

    @Test
    void untilReturnsOnceTheConditionHolds() {
        AtomicInteger polls = new AtomicInteger();
        Awaits.until("three polls", Duration.ofSeconds(5), () -> polls.incrementAndGet() >= 3);
        assertEquals(3, polls.get());
        assertEquals("x", Awaits.value("a value", Duration.ofSeconds(1), () -> Optional.of("x")));
    }

    @Test
    void untilFailsAfterItsBoundNamingWhatItAwaited() {
        AssertionError e = assertThrows(AssertionError.class,
                () -> Awaits.until("the impossible", Duration.ofMillis(100), () -> false));
        assertTrue(e.getMessage().contains("the impossible"), e.getMessage());
    }

    @Test
    void probeExceptionsCountAsNotYetAndAreAttachedOnTimeout() {
        AssertionError e = assertThrows(AssertionError.class, () -> Awaits.value("a flaky probe", Duration.ofMillis(100), () -> {
            throw new IllegalStateException("boom");
        }));
        assertTrue(e.getCause() instanceof IllegalStateException);
    }

    @Test
    void neverFailsAsSoonAsTheThingHappens() {
        Awaits.never("false stays false", Duration.ofMillis(60), () -> false);
        assertThrows(AssertionError.class, () -> Awaits.never("true", Duration.ofSeconds(5), () -> true));
    }
}
