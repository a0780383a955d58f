package io.coord.membership;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class FlapRuleTest {
    private static final long S = 1_000_000_000L;
    private static final Instant T = Instant.parse("2025-01-01T00:00:00Z");

    @Test
    void aRejoinWithinTheWindowIsAFlapWithCountTimeAndDowntime() {
        FlapRule rule = new FlapRule(Duration.ofSeconds(10));
        rule.left("w1", 100 * S);
        Group.Flap flap = rule.joined("w1", 103 * S, T).orElseThrow();
        assertEquals(new Group.Flap("w1", 1, T, Duration.ofSeconds(3)), flap);
        rule.left("w1", 200 * S);
        assertEquals(2, rule.joined("w1", 201 * S, T.plusSeconds(100)).orElseThrow().count());
        assertEquals(2, rule.flaps().get("w1").count());
        assertEquals(T.plusSeconds(100), rule.flaps().get("w1").lastAt());
    }

    @Test
    void aRejoinAfterTheWindowOrAFirstJoinIsNoFlap() {
        FlapRule rule = new FlapRule(Duration.ofSeconds(10));
        assertTrue(rule.joined("new", 0, T).isEmpty(), "a first join is no flap");
        rule.left("w1", 100 * S);
        assertTrue(rule.joined("w1", 111 * S, T).isEmpty(), "back after the window");
        assertTrue(rule.flaps().isEmpty());
    }

    @Test
    void oneDepartureMakesAtMostOneFlap() {
        FlapRule rule = new FlapRule(Duration.ofSeconds(10));
        rule.left("w1", 0);
        assertTrue(rule.joined("w1", S, T).isPresent());
        assertTrue(rule.joined("w1", 2 * S, T).isEmpty(), "a join without a departure before it");
    }

    @Test
    void oldDeparturesAreForgotten() {
        FlapRule rule = new FlapRule(Duration.ofSeconds(1));
        for (int i = 0; i < 200; i++) {
            rule.left("m" + i, i * 2 * S);
        }
        assertTrue(rule.joined("m0", 400 * S, T).isEmpty());
        assertTrue(rule.joined("m199", 398 * S + 1, T).isPresent());
    }

    @Test
    void theWindowMustBePositive() {
        assertThrows(IllegalArgumentException.class, () -> new FlapRule(Duration.ZERO));
    }
}
