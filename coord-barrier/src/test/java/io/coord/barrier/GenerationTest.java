package io.coord.barrier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.ConfigurationException;
import io.coord.barrier.BarrierStatus.Phase;
import io.coord.barrier.Generation.Members;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Node names, listings and records, without a server. */
class GenerationTest {
    private static final String UNIQUE = "0123456789abcdef0123456789abcdef";

    @Test
    void seatNamesReadBackTheirMemberAndSequenceAlsoWithDashesInTheMemberId() {
        String node = Generation.seatName("worker-3", UNIQUE) + "0000000012";
        Generation.Seat seat = Generation.parseSeat(node).orElseThrow();
        assertEquals("worker-3", seat.memberId());
        assertEquals(12, seat.seq());
        assertEquals("worker-3 (#12)", seat.label());
        assertTrue(Generation.parseSeat("left-0000000003").isEmpty());
        assertTrue(Generation.parseSeat("m-x-" + UNIQUE.substring(1) + "-0000000001").isEmpty(), "short unique part");
        assertTrue(Generation.parseSeat("m--" + UNIQUE + "-0000000001").isEmpty(), "empty member id");
        assertTrue(Generation.parseSeat("m-x-" + UNIQUE.toUpperCase() + "-0000000001").isEmpty(), "not our hex");
        assertThrows(IllegalArgumentException.class, () -> Generation.seatName("x", "abc"));
        assertEquals(3, Generation.parseLeft(Generation.leftName(3)));
        assertEquals(-1, Generation.parseLeft("ready"));
    }

    @Test
    void generationNodesAreTenDigits() {
        assertEquals("0000000007", Generation.nodeName(7));
        assertEquals(7, Generation.parseNumber("0000000007"));
        assertEquals(-1, Generation.parseNumber("gate"));
        assertEquals(-1, Generation.parseNumber("000000007x"));
        assertEquals("/barriers/etl/0000000007/members", new Generation(Generation.rootOf("etl"), 7).members().value());
        assertThrows(IllegalArgumentException.class, () -> new Generation(Generation.rootOf("etl"), 0));
    }

    @Test
    void aListingCountsDeletionsFromTheParentsChildVersion() {
        String s0 = Generation.seatName("a", UNIQUE) + "0000000000";
        String s2 = Generation.seatName("c", UNIQUE) + "0000000002";
        // three seats created (cversion 3), #1 deleted (cversion 4), two left: one deletion
        Members m = Members.parse(List.of(s0, s2, "ready-ish", Generation.leftName(0)), 5, 3);
        assertEquals(Set.of(0L, 2L), m.present().keySet());
        assertEquals(Set.of(0L), m.left());
        assertEquals(1, m.deletions());
        assertEquals(3, m.arrivals());
        assertEquals(0, Members.parse(List.of(s0), 1, 1).deletions());
    }

    @Test
    void recordsValidateThemselves() {
        GenerationRecord open = GenerationRecord.open(3, 4);
        assertEquals(Phase.READY, open.ready().phase());
        GenerationRecord broken = open.ready().broken("why", List.of("w (#1)"), "w0");
        assertEquals(Phase.READY, broken.brokenIn());
        assertThrows(IllegalArgumentException.class, () -> open.ready().done().broken("late", List.of(), "w"),
                "a DONE generation cannot break");
        assertThrows(IllegalArgumentException.class, () -> new GenerationRecord(0, Phase.OPEN, 4, null, null, List.of(), null));
        assertThrows(IllegalArgumentException.class, () -> new GenerationRecord(1, Phase.OPEN, 0, null, null, List.of(), null));
        assertThrows(IllegalArgumentException.class, () -> new GenerationRecord(1, Phase.BROKEN, 4, null, "why", List.of(), null));
        GenerationRecord decoded = BarrierStore.RECORDS.decode(Generation.rootOf("x"),
                BarrierStore.RECORDS.encode(Generation.rootOf("x"), broken));
        assertEquals(broken, decoded);
    }

    @Test
    void optionsFailEarlyNamingTheBadValue() {
        ConfigurationException slash = assertThrows(ConfigurationException.class, () -> BarrierOptions.builder().memberId("a/b"));
        assertTrue(slash.getMessage().contains("a/b"), slash.getMessage());
        assertThrows(ConfigurationException.class, () -> BarrierOptions.builder().memberId(" "));
        assertThrows(ConfigurationException.class, () -> BarrierOptions.builder().memberId("x".repeat(101)));
        assertThrows(ConfigurationException.class, () -> BarrierOptions.builder().keepGenerations(1));
        ConfigurationException twice = assertThrows(ConfigurationException.class, () -> BarrierOptions.builder().memberId("a").memberId("b"));
        assertTrue(twice.getMessage().contains("memberId"), twice.getMessage());
        BarrierOptions d = BarrierOptions.defaults();
        assertNotNull(d.memberId());
        assertTrue(d.memberId().contains("#"), "pid@host#n: " + d.memberId());
        assertEquals(d.memberId(), d.toBuilder().build().memberId());
    }
}
