package io.coord.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.coord.chaos.QueueChecker.Completion;
import io.coord.chaos.QueueChecker.Dead;
import io.coord.chaos.QueueChecker.Evidence;
import io.coord.chaos.QueueChecker.Verdict;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class QueueCheckerTest {
    private static final int MAX_RETRIES = 2;

    /** Two tasks and one poison task, all run once (poison 3 times) and ended as they should. */
    private static Evidence clean(List<Completion> completions, List<Dead> dead, Map<String, Integer> starts, Set<String> interrupted,
                                  Set<String> infoKeys, int staleExpected, int staleRejected, int staleAccepted) {
        return new Evidence(Map.of("a", "task-0000000001", "b", "task-0000000002", "p", "task-0000000003"), infoKeys, Set.of("p"),
                completions, dead, List.of(), starts, interrupted, staleExpected, staleRejected, staleAccepted, MAX_RETRIES);
    }

    private static final List<Completion> BOTH = List.of(new Completion("task-0000000001", "a", 10), new Completion("task-0000000002", "b", 11));
    private static final List<Dead> POISON_DEAD = List.of(new Dead("task-0000000003", "p", MAX_RETRIES + 1));
    private static final Map<String, Integer> ONCE = Map.of("task-0000000001", 1, "task-0000000002", 1, "task-0000000003", 3);

    @Test
    void aCleanRunHasNoViolationAndNothingLost() {
        Verdict v = QueueChecker.check(clean(BOTH, POISON_DEAD, ONCE, Set.of(), Set.of(), 1, 1, 0));
        assertEquals(0, v.violations(), v.problems().toString());
        assertEquals(0, v.lost());
        assertEquals(2, v.completed());
    }

    @Test
    void aSecondCompletionRecordOfOneTaskIsADuplicateCompletion() {
        List<Completion> twice = List.of(BOTH.get(0), BOTH.get(1), new Completion("task-0000000001", "a", 20));
        Verdict v = QueueChecker.check(clean(twice, POISON_DEAD, ONCE, Set.of(), Set.of(), 0, 0, 0));
        assertEquals(1, v.duplicateCompletions());
        assertEquals(1, v.violations());
    }

    @Test
    void anAcknowledgedTaskWithoutACompletionRecordIsLost() {
        Verdict v = QueueChecker.check(clean(BOTH.subList(0, 1), POISON_DEAD, ONCE, Set.of(), Set.of(), 0, 0, 0));
        assertEquals(1, v.lost(), v.problems().toString());
        assertEquals(0, v.violations());
    }

    @Test
    void aPoisonTaskMissingFromTheDeadLettersIsLost() {
        Verdict v = QueueChecker.check(clean(BOTH, List.of(), ONCE, Set.of(), Set.of(), 0, 0, 0));
        assertEquals(1, v.lost());
    }

    @Test
    void aGoodTaskInTheDeadLettersOrAPoisonTaskDeadTooEarlyIsAViolation() {
        List<Dead> wrong = List.of(new Dead("task-0000000003", "p", 1), new Dead("task-0000000002", "b", 3));
        Verdict v = QueueChecker.check(clean(BOTH.subList(0, 1), wrong, ONCE, Set.of(), Set.of(), 0, 0, 0));
        assertEquals(2, v.wronglyDead(), v.problems().toString());
    }

    @Test
    void aRecordForAKeyNobodyEnqueuedIsInvented() {
        List<Completion> extra = List.of(BOTH.get(0), BOTH.get(1), new Completion("task-0000000009", "zzz", 30));
        Verdict v = QueueChecker.check(clean(extra, POISON_DEAD, ONCE, Set.of(), Set.of(), 0, 0, 0));
        assertEquals(1, v.invented());
    }

    @Test
    void aSecondTaskForAKeyIsADuplicateEvenAfterAnIndeterminateEnqueue() {
        // the idempotency window: a retried enqueue of a completed key returns the original id
        List<Completion> two = List.of(BOTH.get(0), BOTH.get(1), new Completion("task-0000000004", "a", 40));
        Map<String, Integer> starts = new HashMap<>(ONCE);
        starts.put("task-0000000004", 1);
        assertEquals(1, QueueChecker.check(clean(two, POISON_DEAD, starts, Set.of(), Set.of(), 0, 0, 0)).duplicateKeys());
        assertEquals(1, QueueChecker.check(clean(two, POISON_DEAD, starts, Set.of(), Set.of("a"), 0, 0, 0)).duplicateKeys());
    }

    @Test
    void anExtraExecutionIsExplainedOnlyByAFaultThatInterruptedThatTask() {
        Map<String, Integer> starts = new HashMap<>(ONCE);
        starts.put("task-0000000001", 2);
        Verdict unexplained = QueueChecker.check(clean(BOTH, POISON_DEAD, starts, Set.of("task-0000000002"), Set.of(), 0, 0, 0));
        assertEquals(1, unexplained.unexplainedExecutions());
        Verdict explained = QueueChecker.check(clean(BOTH, POISON_DEAD, starts, Set.of("task-0000000001"), Set.of(), 0, 0, 0));
        assertEquals(0, explained.violations());
        assertEquals(1, explained.extraExecutions());
    }

    @Test
    void aStaleClaimantWhoseCompletionWasAcceptedOrNeverAnsweredIsAViolation() {
        assertEquals(1, QueueChecker.check(clean(BOTH, POISON_DEAD, ONCE, Set.of(), Set.of(), 1, 0, 1)).staleAccepted());
        assertEquals(1, QueueChecker.check(clean(BOTH, POISON_DEAD, ONCE, Set.of(), Set.of(), 1, 0, 0)).staleMissing());
    }

    @Test
    void firstAttemptsOutOfProducerOrderAreCountedAndPassingOverMoreThanTheSpreadIsAViolation() {
        // k0: 0, 1, 2 claimed in order; k1: 1 claimed (token 15) before 0 (token 17); k0-10 sorts after k0-2 by number
        List<QueueChecker.FirstClaim> claims = List.of(new QueueChecker.FirstClaim("k0-0", 1, 10, 1), new QueueChecker.FirstClaim("k0-1", 2, 12, 1),
                new QueueChecker.FirstClaim("k1-0", 3, 17, 1), new QueueChecker.FirstClaim("k1-1", 4, 15, 1),
                new QueueChecker.FirstClaim("k0-2", 5, 18, 1), new QueueChecker.FirstClaim("k0-10", 6, 20, 1));
        QueueChecker.Fifo f = QueueChecker.fifo(claims);
        assertEquals(1, f.strictInversions());
        assertEquals(1, f.mostPassedOver(), "k1-1 passed over k1-0 only");
        assertEquals(0, f.beyondSpread(), "within the consumers' spread");
        // the last task claimed first, ahead of SPREAD earlier ones that all still waited
        List<QueueChecker.FirstClaim> late = new java.util.ArrayList<>();
        for (int i = 0; i < QueueChecker.SPREAD; i++) {
            late.add(new QueueChecker.FirstClaim("k0-" + i, i, 100 + i, 1));
        }
        late.add(new QueueChecker.FirstClaim("k1-0", QueueChecker.SPREAD, 50, 1));
        QueueChecker.Fifo g = QueueChecker.fifo(late);
        assertEquals(1, g.beyondSpread());
        assertEquals(QueueChecker.SPREAD, g.mostPassedOver());
        assertEquals(0, g.strictInversions(), "across producers there is no strict order to keep");
    }

    @Test
    void aTaskWhoseFirstClaimNobodyReportedIsNotCountedAsWaitingFromItsRedelivery() {
        // SPREAD tasks claimed after a later one; booked as first attempts they make it pass over SPREAD waiting tasks
        List<QueueChecker.FirstClaim> asFirst = new java.util.ArrayList<>();
        List<QueueChecker.FirstClaim> asRedelivered = new java.util.ArrayList<>();
        for (int i = 0; i < QueueChecker.SPREAD; i++) {
            asFirst.add(new QueueChecker.FirstClaim("k0-" + i, i, 100 + i, 1));
            // the same START lines, but each says it was the task's second delivery: its first claim went unreported
            asRedelivered.add(new QueueChecker.FirstClaim("k0-" + i, i, 100 + i, 2));
        }
        QueueChecker.FirstClaim later = new QueueChecker.FirstClaim("k1-0", QueueChecker.SPREAD, 50, 1);
        asFirst.add(later);
        asRedelivered.add(later);

        QueueChecker.Fifo booked = QueueChecker.fifo(asFirst);
        assertEquals(1, booked.beyondSpread());
        assertEquals(1, booked.examples().size(), "the pass is described for the note");
        assertEquals(0, booked.unseenFirstClaims());

        QueueChecker.Fifo known = QueueChecker.fifo(asRedelivered);
        assertEquals(0, known.beyondSpread(), "a redelivery is never booked as a first attempt");
        assertEquals(0, known.mostPassedOver());
        assertEquals(QueueChecker.SPREAD, known.unseenFirstClaims());
    }
}
