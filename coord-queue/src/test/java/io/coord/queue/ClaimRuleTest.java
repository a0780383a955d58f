package io.coord.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** Which task a consumer tries next: the ordering rule as a table, without a server. */
class ClaimRuleTest {
    private static ClaimRule.Entry task(long seq, int lane, long notBefore) {
        return new ClaimRule.Entry(String.format("task-%010d", seq), seq, lane, notBefore, 0);
    }

    private static TreeSet<ClaimRule.Entry> ordered(ClaimRule.Entry... entries) {
        TreeSet<ClaimRule.Entry> set = new TreeSet<>(ClaimRule.ORDER);
        set.addAll(List.of(entries));
        return set;
    }

    private static List<Long> seqs(ClaimRule.Choice c) {
        return c.candidates().stream().map(ClaimRule.Entry::sequence).toList();
    }

    @Test
    void readyTasksComeInSequenceOrderWithinALane() {
        var c = ClaimRule.choose(ordered(task(3, 0, 0), task(1, 0, 0), task(2, 0, 0)), 100, 8, e -> false);
        assertEquals(List.of(1L, 2L, 3L), seqs(c));
    }

    @Test
    void higherLanesComeFirst() {
        var c = ClaimRule.choose(ordered(task(1, 0, 0), task(2, 2, 0), task(3, 1, 0), task(4, 2, 0)), 100, 8, e -> false);
        assertEquals(List.of(2L, 4L, 3L, 1L), seqs(c));
    }

    @Test
    void aTaskWaitingOutItsNotBeforeIsPassedOverAndSetsTheWakeTime() {
        var c = ClaimRule.choose(ordered(task(1, 0, 500), task(2, 0, 0), task(3, 0, 300)), 100, 8, e -> false);
        assertEquals(List.of(2L), seqs(c));
        assertEquals(Long.MAX_VALUE, c.nextReadyMillis(), "with a candidate there is nothing to wait for");
        var none = ClaimRule.choose(ordered(task(1, 0, 500), task(3, 0, 300)), 100, 8, e -> false);
        assertTrue(none.candidates().isEmpty());
        assertEquals(300, none.nextReadyMillis(), "wake when the earliest waiting task is ready");
    }

    @Test
    void aRetriedTaskKeepsItsPlaceAheadOfLaterTasksOnceReady() {
        // task 1 failed and waited out its backoff until 100: at 100 it is first again
        var c = ClaimRule.choose(ordered(task(1, 0, 100), task(2, 0, 0), task(3, 0, 0)), 100, 1, e -> false);
        assertEquals(List.of(1L), seqs(c));
    }

    @Test
    void unavailableTasksAreSkippedAndDoNotSetTheWakeTime() {
        Set<Long> claimed = Set.of(1L, 3L);
        var c = ClaimRule.choose(ordered(task(1, 0, 0), task(2, 0, 0), task(3, 0, 900)), 100, 8,
                e -> claimed.contains(e.sequence()));
        assertEquals(List.of(2L), seqs(c));
        var none = ClaimRule.choose(ordered(task(1, 0, 0), task(3, 0, 900)), 100, 8, e -> claimed.contains(e.sequence()));
        assertEquals(Long.MAX_VALUE, none.nextReadyMillis(), "a claimed task comes back by an event, not a timer");
    }

    @Test
    void atMostLimitCandidatesAreReturned() {
        var c = ClaimRule.choose(ordered(task(1, 0, 0), task(2, 0, 0), task(3, 0, 0), task(4, 0, 0)), 100, 2, e -> false);
        assertEquals(List.of(1L, 2L), seqs(c));
        assertThrows(IllegalArgumentException.class, () -> ClaimRule.choose(ordered(), 0, 0, e -> false));
    }

    @Test
    void spreadIsOneWithoutOtherConsumersAndGrowsWithThemUpToTheMax() {
        assertEquals(1, ClaimRule.spread(0, 8), "alone: strict FIFO");
        assertEquals(2, ClaimRule.spread(1, 8));
        assertEquals(4, ClaimRule.spread(3, 8));
        assertEquals(8, ClaimRule.spread(50, 8));
        assertEquals(1, ClaimRule.spread(-2, 8));
    }

    @Test
    void rotationStartsAtTheGivenOffsetAndKeepsEveryCandidate() {
        List<ClaimRule.Entry> three = List.of(task(1, 0, 0), task(2, 0, 0), task(3, 0, 0));
        assertEquals(List.of(2L, 3L, 1L), ClaimRule.rotate(three, 1).stream().map(ClaimRule.Entry::sequence).toList());
        assertEquals(List.of(1L, 2L, 3L), ClaimRule.rotate(three, 3).stream().map(ClaimRule.Entry::sequence).toList());
        assertEquals(List.of(3L, 1L, 2L), ClaimRule.rotate(three, -1).stream().map(ClaimRule.Entry::sequence).toList());
        assertEquals(List.of(1L), ClaimRule.rotate(List.of(task(1, 0, 0)), 5).stream().map(ClaimRule.Entry::sequence).toList());
    }
}
