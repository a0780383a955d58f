package io.coord.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class FigureTest {
    @Test
    void ratioIsOursOverPeerAndAbsentWithoutPeer() {
        assertEquals(0.5, Figure.higher("b", "m", "ops/s", 50, 100.0, "raw-zookeeper").ratio(), 1e-12);
        assertNull(Figure.lower("b", "m", "ms", 3, null, null).ratio());
        JsonNode json = BenchMain.json(Figure.lower("b", "m", "ms", 3, null, null), Instant.EPOCH);
        assertTrue(json.get("peer").isNull() && json.get("peerName").isNull() && json.get("ratio").isNull(), json.toString());
        assertEquals("lower", json.get("better").asText());
    }

    @Test
    void peerAndPeerNameComeTogetherAndValuesAreFinite() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Figure.higher("b", "m", "u", 1, 2.0, null));
        assertTrue(e.getMessage().contains("peerName"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Figure.higher("b", "m", "u", Double.NaN, null, null));
        assertThrows(IllegalArgumentException.class, () -> Figure.higher(" ", "m", "u", 1, null, null));
    }

    @Test
    void percentilesAreNearestRankAndMediansAreMiddleValues() {
        Latencies l = new Latencies(100);
        for (int i = 100; i >= 1; i--) {
            l.add(i * 1_000_000L);
        }
        assertEquals(50.0, l.percentileMs(0.50), 1e-9);
        assertEquals(99.0, l.percentileMs(0.99), 1e-9);
        assertEquals(100.0, l.percentileMs(1.0), 1e-9);
        assertEquals(2.0, Stats.median(List.of(3.0, 1.0, 2.0), Double::doubleValue), 1e-12);
        assertEquals(2.5, Stats.median(List.of(4.0, 1.0, 2.0, 3.0), Double::doubleValue), 1e-12);
    }
}
