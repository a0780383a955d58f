package io.coord.barrier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.barrier.BarrierRule.Action;
import io.coord.barrier.BarrierRule.Cause;
import io.coord.barrier.BarrierRule.Step;
import io.coord.barrier.BarrierStatus.Phase;
import io.coord.barrier.Generation.Members;
import io.coord.barrier.Generation.Seat;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The decision table, without a server. */
class BarrierRuleTest {
    private static final int PARTIES = 4;

    private static GenerationRecord record(Phase phase) {
        GenerationRecord open = GenerationRecord.open(7, PARTIES);
        return switch (phase) {
            case OPEN -> open;
            case READY -> open.ready();
            case DONE -> open.ready().done();
            case BROKEN -> open.broken("test", List.of(), "m0");
        };
    }

    private static Seat seat(long seq) {
        return new Seat("m-w" + seq + "-" + "0".repeat(32) + "-" + String.format("%010d", seq), "w" + seq, seq);
    }

    /** Seats {@code present} there, {@code left} left, and {@code deletions} children deleted so far. */
    private static Members members(List<Long> present, List<Long> left, int deletions) {
        Map<Long, Seat> seats = new TreeMap<>();
        present.forEach(s -> seats.put(s, seat(s)));
        return new Members(seats, Set.copyOf(left), deletions);
    }

    @Test
    void aDecidedGenerationDecidesEveryEnterWhateverTheMembersShow() {
        for (Cause cause : Cause.values()) {
            assertEquals(Action.RELEASED, BarrierRule.enter(record(Phase.READY), 3, null, cause).action());
            assertEquals(Action.REFUSED, BarrierRule.enter(record(Phase.READY), 4, null, cause).action(), "seat #4 is an extra");
            assertEquals(Action.BROKEN, BarrierRule.enter(record(Phase.BROKEN), 0, null, cause).action());
        }
    }

    @Test
    void anOpenGenerationIsDecidedOnlyFromTheMembers() {
        assertEquals(Action.READ_MEMBERS, BarrierRule.enter(record(Phase.OPEN), 1, null, Cause.NONE).action());
    }

    @Test
    void onlyTheSeatThatCompletesTheCountRecordsReady() {
        Members full = members(List.of(0L, 1L, 2L, 3L), List.of(), 0);
        Step last = BarrierRule.enter(record(Phase.OPEN), 3, full, Cause.NONE);
        assertEquals(Action.DECIDE_READY, last.action());
        assertEquals(List.of(0L, 1L, 2L, 3L), last.seats().stream().map(Seat::seq).toList(), "admits seats #0..#3");
        Step other = BarrierRule.enter(record(Phase.OPEN), 1, full, Cause.NONE);
        assertEquals(Action.WAIT, other.action(), "the others leave it to the completer");
        assertEquals(List.of(3L), other.seats().stream().map(Seat::seq).toList(), "and watch its seat");
        assertEquals(Action.DECIDE_READY, BarrierRule.enter(record(Phase.OPEN), 1, full, Cause.TIMEOUT).action(),
                "a waiter whose time is up decides itself: complete wins over the timeout");
        Members withExtra = members(List.of(0L, 1L, 2L, 3L, 4L), List.of(), 0);
        assertEquals(Action.WAIT, BarrierRule.enter(record(Phase.OPEN), 4, withExtra, Cause.NONE).action(),
                "an extra waits for the decision (and is then refused)");
    }

    @Test
    void anyDeletionBeforeTheDecisionBreaksTheGeneration() {
        Step hole = BarrierRule.enter(record(Phase.OPEN), 2, members(List.of(0L, 2L), List.of(), 1), Cause.NONE);
        assertEquals(Action.BREAK, hole.action());
        assertEquals(List.of(1L), hole.failed(), "names the seat that vanished");
        Step unseen = BarrierRule.enter(record(Phase.OPEN), 0, members(List.of(0L), List.of(), 1), Cause.NONE);
        assertEquals(Action.BREAK, unseen.action(), "the count of deletions shows even a seat nobody saw");
        Step completeButOneVanished = BarrierRule.enter(record(Phase.OPEN), 4, members(List.of(0L, 1L, 2L, 4L), List.of(), 1), Cause.NONE);
        assertEquals(Action.BREAK, completeButOneVanished.action(), "four present but #3 vanished: not complete, broken");
        assertEquals(Action.BREAK, BarrierRule.enter(record(Phase.OPEN), 1, members(List.of(0L), List.of(), 0), Cause.NONE).action(),
                "our own seat missing is a vanished seat too");
    }

    @Test
    void whileOpenATimeoutOrInterruptBreaksOtherwiseWaitWatchingThePredecessor() {
        Members two = members(List.of(0L, 1L), List.of(), 0);
        assertEquals(Action.BREAK, BarrierRule.enter(record(Phase.OPEN), 1, two, Cause.TIMEOUT).action());
        assertTrue(BarrierRule.enter(record(Phase.OPEN), 1, two, Cause.TIMEOUT).why().contains("2 of 4 arrived"));
        assertEquals(Action.BREAK, BarrierRule.enter(record(Phase.OPEN), 1, two, Cause.INTERRUPT).action());
        Step second = BarrierRule.enter(record(Phase.OPEN), 1, two, Cause.NONE);
        assertEquals(Action.WAIT, second.action());
        assertEquals(List.of(0L), second.seats().stream().map(Seat::seq).toList(), "seat #1 watches seat #0");
        assertFalse(second.watchChildren());
        Step first = BarrierRule.enter(record(Phase.OPEN), 0, two, Cause.NONE);
        assertTrue(first.watchChildren(), "seat #0 watches the children: it sees the newest seat vanish");
        assertTrue(first.seats().isEmpty());
    }

    /** A withdrawn seat (a cancelled enterAsync) never came: no vanished member, and the next seats take its place. */
    @Test
    void aWithdrawnSeatCountsAsNeverHavingCome() {
        Map<Long, Seat> seats = new TreeMap<>();
        for (long s : List.of(0L, 2L, 3L)) {
            seats.put(s, seat(s));
        }
        // seat #1 withdrew: one deletion, one withdrawn marker (it took number #2 itself)
        seats.remove(2L);
        seats.put(4L, seat(4));
        Members withdrawn = new Members(seats, Set.of(), 1, Set.of(1L, 2L));
        assertEquals(0, withdrawn.vanished());
        assertEquals(List.of(0L, 3L, 4L, 5L), withdrawn.admitted(PARTIES));
        assertEquals(Members.parse(List.of(seat(0).node(), "withdrawn-0000000001-0000000002"), 3, 2).withdrawn(), Set.of(1L, 2L));
        Step waiting = BarrierRule.enter(record(Phase.OPEN), 3, withdrawn, Cause.NONE);
        assertEquals(Action.WAIT, waiting.action(), waiting.toString());
        assertEquals(List.of(seat(0)), waiting.seats(), "#3 watches #0, the seat before it that did not withdraw");
        seats.put(5L, seat(5));
        Members full = new Members(seats, Set.of(), 1, Set.of(1L, 2L));
        assertEquals(Action.DECIDE_READY, BarrierRule.enter(record(Phase.OPEN), 5, full, Cause.NONE).action(),
                "#5 completes the count of " + PARTIES + " without #1");
        assertEquals(Action.WAIT, BarrierRule.enter(record(Phase.OPEN), 0, full, Cause.NONE).action());
        Members vanished = new Members(Map.of(0L, seat(0), 4L, seat(4)), Set.of(), 1, Set.of(1L, 2L));
        assertEquals(Action.BREAK, BarrierRule.enter(record(Phase.OPEN), 4, vanished, Cause.NONE).action(),
                "#3 vanished beside the withdrawn #1: that breaks");
        Members allLeft = new Members(Map.of(0L, seat(0), 3L, seat(3), 4L, seat(4), 5L, seat(5)), Set.of(0L, 3L, 4L, 5L), 1,
                Set.of(1L, 2L));
        assertEquals(Action.DECIDE_DONE, BarrierRule.leave(record(Phase.READY), 5, allLeft, true, false, Cause.NONE).action());
    }

    @Test
    void leaveIsDecidedByTheRecordThenByWhoLeft() {
        assertEquals(Action.RELEASED, BarrierRule.leave(record(Phase.DONE), 1, null, true, false, Cause.NONE).action());
        assertEquals(Action.BROKEN, BarrierRule.leave(record(Phase.BROKEN), 1, null, false, false, Cause.NONE).action());
        assertThrows(IllegalStateException.class, () -> BarrierRule.leave(record(Phase.OPEN), 1, null, false, false, Cause.NONE));
        assertThrows(IllegalStateException.class, () -> BarrierRule.leave(record(Phase.READY), 4,
                members(List.of(0L, 1L, 2L, 3L, 4L), List.of(), 0), false, false, Cause.NONE),
                "an extra never leaves: it was never admitted");
        assertEquals(Action.LEAVE, BarrierRule.leave(record(Phase.READY), 1, null, false, false, Cause.NONE).action());
        assertEquals(Action.READ_MEMBERS, BarrierRule.leave(record(Phase.READY), 1, null, true, false, Cause.NONE).action());
    }

    @Test
    void aMemberThatCannotLeaveBreaksTheGenerationNamingItself() {
        for (Cause cause : Cause.values()) {
            Step lost = BarrierRule.leave(record(Phase.READY), 2, null, false, true, cause);
            assertEquals(Action.BREAK, lost.action());
            assertEquals(List.of(2L), lost.failed());
        }
        assertEquals(List.of(2L), BarrierRule.leave(record(Phase.READY), 2, null, false, false, Cause.TIMEOUT).failed());
        assertEquals(List.of(2L), BarrierRule.leave(record(Phase.READY), 2, null, false, false, Cause.INTERRUPT).failed());
    }

    @Test
    void afterLeavingDoneWhenAllLeftBrokenWhenASeatVanishedWithoutLeaving() {
        Members allLeft = members(List.of(0L, 1L, 2L), List.of(0L, 1L, 2L, 3L), 0);
        assertEquals(Action.DECIDE_DONE, BarrierRule.leave(record(Phase.READY), 1, allLeft, true, false, Cause.NONE).action(),
                "#3 left and then its seat went: it still left");
        Members vanished = members(List.of(0L, 1L, 2L), List.of(1L), 0);
        Step dead = BarrierRule.leave(record(Phase.READY), 1, vanished, true, false, Cause.NONE);
        assertEquals(Action.BREAK, dead.action());
        assertEquals(List.of(3L), dead.failed());
        Members waiting = members(List.of(0L, 1L, 2L, 3L), List.of(1L), 0);
        Step timeout = BarrierRule.leave(record(Phase.READY), 1, waiting, true, false, Cause.TIMEOUT);
        assertEquals(Action.BREAK, timeout.action());
        assertEquals(List.of(0L, 2L, 3L), timeout.failed(), "names who did not leave");
    }

    @Test
    void leaversTogetherWatchEverySeatStillInExactlyOnce() {
        int parties = 8;
        GenerationRecord ready = GenerationRecord.open(1, parties).ready();
        List<Long> all = new ArrayList<>();
        for (long s = 0; s < parties; s++) {
            all.add(s);
        }
        // every subset of leavers (non-empty, not all): the seats still in are each watched by exactly one leaver
        for (int mask = 1; mask < (1 << parties) - 1; mask++) {
            List<Long> left = new ArrayList<>();
            for (int s = 0; s < parties; s++) {
                if ((mask & (1 << s)) != 0) {
                    left.add((long) s);
                }
            }
            Members m = members(all, left, 0);
            int[] watchers = new int[parties];
            for (long leaver : left) {
                Step step = BarrierRule.leave(ready, leaver, m, true, false, Cause.NONE);
                assertEquals(Action.WAIT, step.action());
                step.seats().forEach(s -> watchers[(int) s.seq()]++);
            }
            for (int s = 0; s < parties; s++) {
                assertEquals(left.contains((long) s) ? 0 : 1, watchers[s], "seat #" + s + " with leavers " + left);
            }
        }
    }

    @Test
    void stepsCarryAReasonExactlyWhenTheyBreak() {
        for (Action a : EnumSet.allOf(Action.class)) {
            if (a == Action.BREAK) {
                assertThrows(IllegalArgumentException.class, () -> Step.of(a));
            } else {
                assertEquals(a, Step.of(a).action());
            }
        }
    }
}
