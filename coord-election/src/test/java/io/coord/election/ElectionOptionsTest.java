package io.coord.election;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.ConfigurationException;
import io.coord.InvalidNameException;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The options builder fails early, names the bad value, and has documented defaults. */
class ElectionOptionsTest {
    @Test
    void defaultsAreNoGraceNoRequeueAndAHostPidId() {
        ElectionOptions o = ElectionOptions.defaults();
        assertEquals(Duration.ZERO, o.handoverGrace());
        assertFalse(o.requeue());
        assertEquals(Map.of(), o.metadata());
        assertTrue(o.participantId().endsWith(":" + ProcessHandle.current().pid()), o.participantId());
        assertEquals(Duration.ofSeconds(10), o.taskStopTimeout());
    }

    @Test
    void settingAnOptionTwiceIsAnErrorNamingIt() {
        ConfigurationException e = assertThrows(ConfigurationException.class,
                () -> ElectionOptions.builder().handoverGrace(Duration.ZERO).handoverGrace(Duration.ofSeconds(1)));
        assertTrue(e.getMessage().contains("handoverGrace"), e.getMessage());
    }

    @Test
    void toBuilderDerivesAVariantThatMayOverrideOnce() {
        ElectionOptions base = ElectionOptions.builder().participantId("a").requeue(true).build();
        ElectionOptions variant = base.toBuilder().handoverGrace(Duration.ofMillis(300)).build();
        assertEquals("a", variant.participantId());
        assertTrue(variant.requeue());
        assertEquals(Duration.ofMillis(300), variant.handoverGrace());
    }

    @Test
    void badValuesAreRefusedWithTheValueInTheMessage() {
        assertTrue(assertThrows(ConfigurationException.class, () -> ElectionOptions.builder().handoverGrace(Duration.ofMillis(-1)))
                .getMessage().contains("PT-0.001S"));
        assertTrue(assertThrows(ConfigurationException.class, () -> ElectionOptions.builder().taskStopTimeout(Duration.ZERO))
                .getMessage().contains("PT0S"));
        assertTrue(assertThrows(InvalidNameException.class, () -> ElectionOptions.builder().participantId("a/b"))
                .getMessage().contains("a/b"));
        assertTrue(assertThrows(ConfigurationException.class, () -> ElectionOptions.builder().metadata(Map.of("k", "x".repeat(70_000))))
                .getMessage().contains("over the limit of " + ElectionOptions.MAX_METADATA_BYTES));
    }

    @Test
    void electionNamesAreOnePathSegment() {
        assertThrows(InvalidNameException.class, () -> new ZkElection(null, "a/b", ElectionOptions.defaults()));
    }
}
