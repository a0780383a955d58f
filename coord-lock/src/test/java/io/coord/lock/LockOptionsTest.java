package io.coord.lock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.ConfigurationException;
import java.time.Clock;
import org.junit.jupiter.api.Test;

/** Options fail early, each setting once, and derived variants start from the original. */
class LockOptionsTest {
    @Test
    void defaultsAreTheThreadNameTheSystemClockAndABoundedQueue() {
        LockOptions d = LockOptions.defaults();
        assertNull(d.ownerName());
        assertEquals(Clock.systemUTC(), d.clock());
        assertEquals(LockOptions.DEFAULT_MAX_QUEUE_LENGTH, d.maxQueueLength());
    }

    @Test
    void eachSettingMayBeSetOnceAndTheErrorNamesIt() {
        LockOptions.Builder b = LockOptions.builder().ownerName("a");
        ConfigurationException e = assertThrows(ConfigurationException.class, () -> b.ownerName("b"));
        assertTrue(e.getMessage().contains("ownerName"), e.getMessage());
    }

    @Test
    void badValuesFailWhenSetQuotingThem() {
        assertTrue(assertThrows(ConfigurationException.class, () -> LockOptions.builder().maxQueueLength(0))
                .getMessage().contains("0"));
        assertTrue(assertThrows(ConfigurationException.class, () -> LockOptions.builder().ownerName(" "))
                .getMessage().contains("\" \""));
        assertThrows(ConfigurationException.class, () -> new LockOptions("x".repeat(257), Clock.systemUTC(), 1));
    }

    @Test
    void toBuilderDerivesAVariantThatMaySetEachSettingAgain() {
        LockOptions base = LockOptions.builder().ownerName("a").maxQueueLength(5).build();
        LockOptions variant = base.toBuilder().ownerName("b").build();
        assertEquals("b", variant.ownerName());
        assertEquals(5, variant.maxQueueLength());
        assertEquals("a", base.ownerName());
    }
}
