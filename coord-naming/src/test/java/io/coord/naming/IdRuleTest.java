package io.coord.naming;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class IdRuleTest {
    private static final long EPOCH_1 = 1L << 32;

    @Test
    void sequenceIdIsCzxidPlusVersionAndNeverAboveTheWritesZxid() {
        long czxid = EPOCH_1 + 5;
        assertEquals(czxid + 1, IdRule.sequenceId(czxid, 1));
        assertEquals(czxid + 7, IdRule.sequenceId(czxid, 7));
        // the 7th write has a zxid of at least czxid + 7, so a node re-created after it starts higher
        long recreatedAt = czxid + 7 + 1;
        assertTrue(IdRule.sequenceId(recreatedAt, 1) > IdRule.sequenceId(czxid, 7));
    }

    @Test
    void aWrappedVersionHandsOutNoSequenceId() {
        assertEquals(-1, IdRule.sequenceId(EPOCH_1, Integer.MIN_VALUE));
        assertEquals(-1, IdRule.sequenceId(EPOCH_1, -1));
        assertEquals(-1, IdRule.sequenceId(EPOCH_1, 0));
        assertEquals(EPOCH_1 + Integer.MAX_VALUE, IdRule.sequenceId(EPOCH_1, Integer.MAX_VALUE));
    }

    @Test
    void countersRollOverLongBeforeTheVersionCanWrap() {
        assertFalse(IdRule.needsRollover(0, IdRule.ROLLOVER_VERSION));
        assertFalse(IdRule.needsRollover(IdRule.ROLLOVER_VERSION - 1, IdRule.ROLLOVER_VERSION));
        assertTrue(IdRule.needsRollover(IdRule.ROLLOVER_VERSION, IdRule.ROLLOVER_VERSION));
        assertTrue(IdRule.needsRollover(-5, IdRule.ROLLOVER_VERSION));
        // room for 16 million writes racing with the rollover before the wrap
        assertTrue(Integer.MAX_VALUE - IdRule.ROLLOVER_VERSION >= 1 << 24);
    }

    @Test
    void anEmptyCounterStartsAtItsBase() {
        assertEquals(EPOCH_1 * IdRule.BLOCK_SCALE, IdRule.validNext(EPOCH_1, 0, -1));
    }

    @Test
    void aCounterEmptiedAfterWritesIsInvalidNotRestartedAtItsBase() {
        assertEquals(-1, IdRule.validNext(EPOCH_1, 3, -1));
    }

    @Test
    void aCounterAboveWhatItsWritesCouldReserveIsInvalid() {
        long base = IdRule.blockBase(EPOCH_1);
        assertEquals(base + 3L * IdRule.MAX_BLOCK, IdRule.validNext(EPOCH_1, 3, base + 3L * IdRule.MAX_BLOCK));
        assertEquals(-1, IdRule.validNext(EPOCH_1, 3, base + 3L * IdRule.MAX_BLOCK + 1));
        assertEquals(-1, IdRule.validNext(EPOCH_1, 0, base + 1));
    }

    @Test
    void aStaleWriteFromAnOlderIncarnationIsAlwaysBelowTheNewBase() {
        // Worst case: every write of the old incarnation reserved the maximum, and the node was
        // re-created (rollover: one transaction) right after the k-th write.
        long czxid1 = EPOCH_1 + 100;
        int k = 1000;
        long lastZxid = czxid1 + k;
        long staleRead = IdRule.validNext(czxid1, k, IdRule.blockBase(czxid1) + (long) k * IdRule.MAX_BLOCK);
        long staleWrite = staleRead + IdRule.MAX_BLOCK;
        long czxid2 = lastZxid + 1;
        assertTrue(staleWrite < IdRule.blockBase(czxid2), "a stale write must land below the new base");
        assertEquals(-1, IdRule.validNext(czxid2, k + 1, staleWrite), "and so be invalid there");
        // every ID of the old incarnation is below the new one's first
        assertTrue(staleRead + IdRule.MAX_BLOCK <= IdRule.blockBase(czxid2));
    }

    @Test
    void aCounterBelowItsBaseIsInvalid() {
        assertEquals(-1, IdRule.validNext(EPOCH_1, 5, IdRule.blockBase(EPOCH_1) - 1));
        assertEquals(-1, IdRule.validNext(EPOCH_1, 5, Long.MIN_VALUE));
        assertEquals(-1, IdRule.validNext(EPOCH_1, 5, 0));
    }

    @Test
    void blockBaseRefusesToOverflowInsteadOfWrapping() {
        long tooManyEpochs = 1L << 47;
        CoordException e = assertThrows(CoordException.class, () -> IdRule.blockBase(tooManyEpochs));
        assertTrue(e.getMessage().contains("overflow"), e.getMessage());
        long epoch32000 = 32_000L << 32;
        assertTrue(IdRule.blockBase(epoch32000) > 0);
        assertTrue(IdRule.blockBase(epoch32000) + (long) Integer.MAX_VALUE * IdRule.MAX_BLOCK > 0);
    }

    @Test
    void counterDataRoundTripsAndGarbageIsInvalid() {
        IdRule.Counter c = IdRule.decodeCounter(IdRule.encodeCounter(123456789L, "abc-7"));
        assertEquals(123456789L, c.next());
        assertEquals("abc-7", c.tag());
        assertEquals(-1, IdRule.decodeCounter(new byte[0]).next());
        assertEquals(Long.MIN_VALUE, IdRule.decodeCounter("hello".getBytes(StandardCharsets.US_ASCII)).next());
        assertEquals(Long.MIN_VALUE, IdRule.decodeCounter("-5 x".getBytes(StandardCharsets.US_ASCII)).next());
        assertEquals(-1, IdRule.validNext(EPOCH_1, 1, IdRule.decodeCounter("hello".getBytes(StandardCharsets.US_ASCII)).next()));
    }

    @Test
    void blocksAreWithinTheScale() {
        assertThrows(IllegalArgumentException.class, () -> new IdRule.Block(0, IdRule.MAX_BLOCK + 1));
        assertThrows(IllegalArgumentException.class, () -> new IdRule.Block(0, 0));
        assertEquals(110, new IdRule.Block(100, 10).end());
    }

    @Test
    void backoffGrowsExponentiallyWithJitterAndIsCapped() {
        long base = 1_000_000;
        long max = 100_000_000;
        assertEquals(1, IdRule.backoffNanos(0, base, max, 0.0));
        assertTrue(IdRule.backoffNanos(0, base, max, 0.999) <= base);
        assertTrue(IdRule.backoffNanos(3, base, max, 0.999) > 4 * base);
        assertTrue(IdRule.backoffNanos(50, base, max, 0.999) <= max);
        assertThrows(IllegalArgumentException.class, () -> IdRule.backoffNanos(0, base, max, 1.0));
    }
}
