package io.coord.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.coord.chaos.BarrierChecker.Fault;
import io.coord.chaos.BarrierChecker.Kind;
import io.coord.chaos.BarrierChecker.Reply;
import io.coord.chaos.BarrierChecker.Round;
import io.coord.chaos.BarrierChecker.Verdict;
import java.util.List;
import org.junit.jupiter.api.Test;

class BarrierCheckerTest {
    private static final long MS = 1_000_000;
    private static final long BOUND = 5_000 * MS;

    private static Reply passed(String m, long invokeMs, long replyMs, long gen, long first, long second) {
        return new Reply(m, invokeMs * MS, replyMs * MS, Kind.PASSED, gen, first, second, "ok " + m);
    }

    private static Reply broken(String m, long invokeMs, long replyMs) {
        return new Reply(m, invokeMs * MS, replyMs * MS, Kind.BROKEN, 0, 0, 0, "BROKEN " + m);
    }

    /** A plain round of generation {@code gen}: seats 10..12 then in-markers 20..22; pre 30..32 then out 40..42. */
    private static Round plain(int index, long gen, long t) {
        List<Reply> enters = List.of(passed("a", t, t + 10, gen, 10, 20), passed("b", t + 1, t + 11, gen, 11, 21),
                passed("c", t + 2, t + 12, gen, 12, 22));
        List<Reply> leaves = List.of(passed("a", t + 20, t + 30, gen, 30, 40), passed("b", t + 21, t + 31, gen, 31, 41),
                passed("c", t + 22, t + 32, gen, 32, 42));
        return new Round(index, Fault.NONE, null, 0, enters, leaves, List.of());
    }

    @Test
    void plainRoundsInIncreasingGenerationsPass() {
        Verdict v = BarrierChecker.check(List.of(plain(0, 1, 0), plain(1, 2, 100)), BOUND);
        assertEquals(0, v.violations(), v.problems().toString());
        assertEquals(2, v.passedRounds());
    }

    @Test
    void returningFromEnterBeforeTheLastMemberWasAskedIsEarly() {
        Round r = plain(0, 1, 0);
        List<Reply> enters = List.of(passed("a", 0, 1, 1, 10, 20), r.enters().get(1), passed("c", 5, 12, 1, 12, 22));
        Verdict v = BarrierChecker.check(List.of(new Round(0, Fault.NONE, null, 0, enters, r.leaves(), List.of())), BOUND);
        assertEquals(1, v.earlyEnters(), v.problems().toString());
    }

    @Test
    void anEnterMarkerOlderThanAnotherMembersSeatIsEarly() {
        Round r = plain(0, 1, 0);
        List<Reply> enters = List.of(passed("a", 0, 10, 1, 10, 11), r.enters().get(1), passed("c", 2, 12, 1, 15, 22));
        Verdict v = BarrierChecker.check(List.of(new Round(0, Fault.NONE, null, 0, enters, r.leaves(), List.of())), BOUND);
        assertEquals(1, v.earlyEnters(), v.problems().toString());
    }

    @Test
    void anOutMarkerOlderThanAnotherMembersPreLeaveMarkerIsAnEarlyLeave() {
        Round r = plain(0, 1, 0);
        List<Reply> leaves = List.of(passed("a", 20, 30, 1, 30, 31), r.leaves().get(1), passed("c", 22, 32, 1, 35, 42));
        Verdict v = BarrierChecker.check(List.of(new Round(0, Fault.NONE, null, 0, r.enters(), leaves, List.of())), BOUND);
        assertEquals(1, v.earlyLeaves(), v.problems().toString());
    }

    @Test
    void membersInDifferentGenerationsOrAGenerationThatDoesNotIncreaseBreakIsolation() {
        Round r = plain(0, 1, 0);
        List<Reply> enters = List.of(r.enters().get(0), r.enters().get(1), passed("c", 2, 12, 2, 12, 22));
        assertEquals(1, BarrierChecker.check(List.of(new Round(0, Fault.NONE, null, 0, enters, r.leaves(), List.of())), BOUND).isolation());
        assertEquals(1, BarrierChecker.check(List.of(plain(0, 3, 0), plain(1, 3, 100)), BOUND).isolation());
    }

    @Test
    void aBrokenGenerationToldToEveryWaiterWithinTheBoundIsTheExpectedOutcome() {
        Round r = new Round(0, Fault.KILL_IN_ENTER, "v", 100 * MS,
                List.of(broken("a", 0, 2_000), broken("b", 1, 2_100), new Reply("v", 2 * MS, 0, Kind.NONE, 0, 0, 0, "killed")),
                List.of(), List.of(broken("c", 2_200, 2_210)));
        Verdict v = BarrierChecker.check(List.of(r, plain(1, 2, 3_000)), BOUND);
        assertEquals(0, v.violations(), v.problems().toString());
        assertEquals(3, v.brokenAsExpected());
        assertEquals(2_000 * MS, v.slowestBreakNanos());
    }

    @Test
    void aWaiterToldLateOrNeverOrLetThroughAfterAMemberFaultIsAViolation() {
        Round late = new Round(0, Fault.PAUSE_IN_ENTER, "v", 0, List.of(broken("a", 0, 6_000), broken("v", 0, 6_500)), List.of(), List.of());
        assertEquals(1, BarrierChecker.check(List.of(late), BOUND).lateBreaks());
        Round hung = new Round(0, Fault.KILL_IN_LEAVE, "v", 100 * MS, plain(0, 1, 0).enters(),
                List.of(new Reply("a", 0, 0, Kind.NONE, 0, 0, 0, "no answer")), List.of());
        assertEquals(1, BarrierChecker.check(List.of(hung), BOUND).hung());
        Round through = new Round(0, Fault.KILL_IN_ENTER, "v", 0, List.of(passed("a", 0, 10, 1, 1, 2)), List.of(),
                List.of(passed("c", 20, 30, 1, 1, 3)));
        assertEquals(2, BarrierChecker.check(List.of(through), BOUND).earlyEnters());
    }

    @Test
    void aBreakInARoundWithoutAMemberFaultIsUnexpected() {
        Round r = plain(0, 1, 0);
        List<Reply> leaves = List.of(r.leaves().get(0), r.leaves().get(1), broken("c", 22, 40));
        Verdict v = BarrierChecker.check(List.of(new Round(0, Fault.NONE, null, 0, r.enters(), leaves, List.of())), BOUND);
        assertEquals(1, v.unexpectedBreaks(), v.problems().toString());
        assertEquals(0, v.passedRounds());
    }

    @Test
    void aBreakOfEveryMemberIsExplainedByASessionThatEndedOnItsOwnButAMixedOutcomeNever() {
        Round r = plain(0, 1, 0);
        List<Reply> allBroken = List.of(broken("a", 20, 2_000), broken("b", 21, 2_000), broken("c", 22, 2_100));
        Verdict explained = BarrierChecker.check(List.of(new Round(0, Fault.NONE, null, 0, r.enters(), allBroken, List.of(), List.of("b"))), BOUND);
        assertEquals(0, explained.violations(), explained.problems().toString());
        assertEquals(3, explained.brokenBySessionLoss());
        List<Reply> mixed = List.of(r.leaves().get(0), broken("b", 21, 2_000), broken("c", 22, 2_100));
        Verdict notExplained = BarrierChecker.check(List.of(new Round(0, Fault.NONE, null, 0, r.enters(), mixed, List.of(), List.of("b"))), BOUND);
        assertEquals(2, notExplained.unexpectedBreaks(), notExplained.problems().toString());
    }

    @Test
    void anEnterThatCountedTheSeatOfALostSessionRefusesOnlyThatMemberAndEveryOtherMemberBreaksInLeave() {
        Round r = plain(0, 1, 0);
        List<Reply> enters = List.of(r.enters().get(0), broken("b", 1, 900), r.enters().get(2));
        List<Reply> leavesBroken = List.of(broken("a", 20, 200), broken("c", 22, 210));
        Verdict explained = BarrierChecker.check(List.of(new Round(0, Fault.NONE, null, 0, enters, leavesBroken, List.of(), List.of("b"))), BOUND);
        assertEquals(0, explained.violations(), explained.problems().toString());
        assertEquals(3, explained.brokenBySessionLoss());
        assertEquals(0, explained.passedRounds());

        Verdict noLoss = BarrierChecker.check(List.of(new Round(0, Fault.NONE, null, 0, enters, leavesBroken, List.of(), List.of())), BOUND);
        assertEquals(1, noLoss.unexpectedBreaks(), "without b's session loss b's refusal is unexpected: " + noLoss.problems());
        List<Reply> oneLeft = List.of(passed("a", 20, 30, 1, 30, 40), broken("c", 22, 210));
        Verdict passedLeave = BarrierChecker.check(List.of(new Round(0, Fault.NONE, null, 0, enters, oneLeft, List.of(), List.of("b"))), BOUND);
        assertEquals(1, passedLeave.earlyLeaves(), passedLeave.problems().toString());
        Verdict notAsked = BarrierChecker.check(List.of(new Round(0, Fault.NONE, null, 0, enters, List.of(), List.of(), List.of("b"))), BOUND);
        assertEquals(1, notAsked.violations(), notAsked.problems().toString());
    }

    @Test
    void aWaiterOfABrokenRoundAnsweringLaterThanItsTimeoutPlusOneSecondAfterItWasAskedIsALateBreak() {
        long answerBound = 11_000 * MS;
        // Told 4 s after the fault (within the 5 s bound) but 12 s after it was asked: a barrier that
        // only gives up by its own timeout would be caught here.
        Round r = new Round(0, Fault.KILL_IN_ENTER, "v", 8_000 * MS,
                List.of(broken("a", 0, 12_000), broken("b", 7_000, 8_500), new Reply("v", 1, 0, Kind.NONE, 0, 0, 0, "killed")),
                List.of(), List.of(broken("c", 13_000, 13_010)));
        Verdict v = BarrierChecker.check(List.of(r), BOUND, answerBound);
        assertEquals(1, v.lateBreaks(), v.problems().toString());
        assertEquals(0, BarrierChecker.check(List.of(r), BOUND).lateBreaks(), "without the answer bound only the fault bound applies");
        Round lateRefusal = new Round(0, Fault.KILL_IN_ENTER, "v", 0, List.of(broken("a", 0, 2_000)), List.of(),
                List.of(broken("c", 3_000, 14_500)));
        assertEquals(1, BarrierChecker.check(List.of(lateRefusal), BOUND, answerBound).lateBreaks());
        Round leave = new Round(0, Fault.KILL_IN_LEAVE, "v", 5_000 * MS, plain(0, 1, 0).enters(), List.of(broken("a", 20, 11_100)), List.of());
        assertEquals(1, BarrierChecker.check(List.of(leave), BOUND, answerBound).lateBreaks());
    }

    @Test
    void aWaiterLetOutByASpuriousWakeUpBeforeTheLastMemberWasAskedIsAnEarlyPass() {
        // Curator's DistributedDoubleBarrier on a spurious event (GH-1290): "a" returns from enter at
        // 300 ms although "c", held back, is only asked at 400 ms.
        Round r = plain(0, 1, 0);
        List<Reply> enters = List.of(passed("a", 0, 300, 1, 0, 20), passed("b", 1, 410, 1, 0, 21), passed("c", 400, 405, 1, 0, 22));
        Verdict v = BarrierChecker.check(List.of(new Round(0, Fault.SPURIOUS_IN_ENTER, "c", 0, enters, r.leaves(), List.of())), BOUND);
        assertEquals(1, v.earlyEnters(), v.problems().toString());
        List<Reply> leaves = List.of(passed("a", 20, 300, 1, 30, 40), passed("b", 21, 410, 1, 31, 41), passed("c", 400, 405, 1, 32, 42));
        Verdict early = BarrierChecker.check(List.of(new Round(0, Fault.SPURIOUS_IN_LEAVE, "c", 0, r.enters(), leaves, List.of())), BOUND);
        assertEquals(1, early.earlyLeaves(), early.problems().toString());
        Verdict fine = BarrierChecker.check(List.of(new Round(0, Fault.SPURIOUS_IN_ENTER, "c", 0, r.enters(), r.leaves(), List.of())), BOUND);
        assertEquals(0, fine.violations(), fine.problems().toString());
        assertEquals(1, fine.passedRounds());
    }

    @Test
    void aMemberThatBreaksAloneInAFlappedRoundIsUnexpected() {
        Round r = plain(0, 1, 0);
        List<Reply> enters = List.of(r.enters().get(0), r.enters().get(1), broken("c", 2, 40));
        Verdict v = BarrierChecker.check(List.of(new Round(0, Fault.FLAP, "c", 0, enters, List.of(), List.of())), BOUND);
        assertEquals(1, v.unexpectedBreaks(), v.problems().toString());
    }
}
