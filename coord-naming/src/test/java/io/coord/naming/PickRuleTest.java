package io.coord.naming;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class PickRuleTest {
    private static Endpoint e(String id, String zone, int weight) {
        return Endpoint.builder("svc", id).address("10.0.0.1").port(80).zone(zone).weight(weight).build();
    }

    private static final Endpoint A = e("a", "z1", 1);
    private static final Endpoint B = e("b", "z2", 3);
    private static final Endpoint C = e("c", "z1", 6);

    private static PickRule rule(Strategy s) {
        Random random = new Random(42);
        return new PickRule(s, random::nextInt);
    }

    @Test
    void nothingToPickFromIsNull() {
        for (Strategy s : Strategy.values()) {
            assertNull(rule(s).pick(PickRule.Candidates.NONE));
        }
    }

    @Test
    void roundRobinTakesEachInTurn() {
        PickRule r = rule(Strategy.ROUND_ROBIN);
        PickRule.Candidates c = PickRule.Candidates.of(List.of(A, B, C), null);
        assertEquals(List.of(A, B, C, A, B, C), List.of(r.pick(c), r.pick(c), r.pick(c), r.pick(c), r.pick(c), r.pick(c)));
    }

    @Test
    void stickyKeepsItsChoiceWhileAvailableThenMovesOn() {
        PickRule r = rule(Strategy.STICKY);
        PickRule.Candidates all = PickRule.Candidates.of(List.of(A, B, C), null);
        Endpoint first = r.pick(all);
        for (int i = 0; i < 10; i++) {
            assertEquals(first, r.pick(all));
        }
        PickRule.Candidates without = PickRule.Candidates.of(List.of(A, B, C).stream().filter(x -> x != first).toList(), null);
        Endpoint second = r.pick(without);
        assertTrue(second != first);
        assertEquals(second, r.pick(all), "the new choice sticks even when the old one is back");
    }

    @Test
    void weightedPicksInProportionToWeight() {
        Map<String, Integer> counts = count(rule(Strategy.WEIGHTED), PickRule.Candidates.of(List.of(A, B, C), null), 100_000);
        assertEquals(0.1, counts.get("a") / 100_000.0, 0.01);
        assertEquals(0.3, counts.get("b") / 100_000.0, 0.01);
        assertEquals(0.6, counts.get("c") / 100_000.0, 0.01);
    }

    @Test
    void randomPicksUniformly() {
        Map<String, Integer> counts = count(rule(Strategy.RANDOM), PickRule.Candidates.of(List.of(A, B, C), null), 90_000);
        counts.values().forEach(n -> assertEquals(1.0 / 3, n / 90_000.0, 0.01));
    }

    @Test
    void zonePreferringStaysInTheLocalZoneAndFallsBackWhenItIsEmpty() {
        PickRule r = rule(Strategy.ZONE_PREFERRING);
        Map<String, Integer> local = count(r, PickRule.Candidates.of(List.of(A, B, C), "z1"), 1000);
        assertEquals(Map.of("a", 500, "c", 500), local);
        Map<String, Integer> fallback = count(r, PickRule.Candidates.of(List.of(B), "z1"), 10);
        assertEquals(Map.of("b", 10), fallback);
        Map<String, Integer> unknownZone = count(r, PickRule.Candidates.of(List.of(A, B, C), "z9"), 300);
        assertEquals(Map.of("a", 100, "b", 100, "c", 100), unknownZone);
    }

    private static Map<String, Integer> count(PickRule r, PickRule.Candidates c, int n) {
        Map<String, Integer> counts = new HashMap<>();
        for (int i = 0; i < n; i++) {
            counts.merge(r.pick(c).id(), 1, Integer::sum);
        }
        return counts;
    }
}
