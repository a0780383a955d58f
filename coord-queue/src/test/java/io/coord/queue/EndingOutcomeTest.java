package io.coord.queue;

import static io.coord.queue.EndingOutcome.Ending.COMPLETE;
import static io.coord.queue.EndingOutcome.Ending.DEAD_LETTER;
import static io.coord.queue.EndingOutcome.Ending.FAIL;
import static io.coord.queue.EndingOutcome.Verdict.COMMITTED;
import static io.coord.queue.EndingOutcome.Verdict.NOT_COMMITTED_HELD;
import static io.coord.queue.EndingOutcome.Verdict.NOT_COMMITTED_LOST;
import static io.coord.queue.EndingOutcome.Verdict.UNKNOWN;
import static io.coord.queue.EndingOutcome.Verdict.UNKNOWN_FOR_NOW;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.coord.queue.EndingOutcome.Look;
import io.coord.queue.EndingOutcome.TaskNow;
import org.junit.jupiter.api.Test;

/** Where an ending that got no answer stands, as a table: the claim held the task at version 4, delivery 2. */
class EndingOutcomeTest {
    private static final int V = 4;
    private static final int D = 2;
    private static final TaskNow AT_OURS = new TaskNow(true, V, true);
    private static final TaskNow CLAIMED_BY_ANOTHER = new TaskNow(true, V + 1, true);
    private static final TaskNow FAILED_BY_US = new TaskNow(true, V + 1, false);
    private static final TaskNow FURTHER_ON = new TaskNow(true, V + 3, false);

    private static EndingOutcome.Verdict decide(EndingOutcome.Ending e, boolean claimNode, boolean same, TaskNow task, int dead) {
        return EndingOutcome.decide(e, V, D, new Look(claimNode, same, task, dead));
    }

    @Test
    void noLookIsUnknownForNow() {
        assertEquals(UNKNOWN_FOR_NOW, EndingOutcome.decide(COMPLETE, V, D, null));
    }

    @Test
    void ourClaimNodeStillThereMeansNothingCommittedOnAnySession() {
        for (EndingOutcome.Ending e : EndingOutcome.Ending.values()) {
            assertEquals(NOT_COMMITTED_HELD, decide(e, true, true, AT_OURS, -1), e.label);
            assertEquals(NOT_COMMITTED_HELD, decide(e, true, false, AT_OURS, -1), e.label);
        }
    }

    @Test
    void theTaskStillAtOurVersionMeansNothingCommitted() {
        for (EndingOutcome.Ending e : EndingOutcome.Ending.values()) {
            assertEquals(NOT_COMMITTED_LOST, decide(e, false, true, AT_OURS, -1), "an operator deleted the claim: " + e.label);
            assertEquals(NOT_COMMITTED_LOST, decide(e, false, false, AT_OURS, -1), e.label);
        }
    }

    @Test
    void onTheClaimsOwnSessionTheClaimNodeGoneAndTheTaskMovedOnMeansItCommitted() {
        assertEquals(COMMITTED, decide(COMPLETE, false, true, TaskNow.GONE, -1));
        assertEquals(COMMITTED, decide(FAIL, false, true, FAILED_BY_US, -1));
        assertEquals(COMMITTED, decide(DEAD_LETTER, false, true, TaskNow.GONE, D));
    }

    @Test
    void aCompletionOnANewSessionIsRefusedWhereTheTaskShowsAnotherEndingAndUnknownWhereNothingTells() {
        assertEquals(NOT_COMMITTED_LOST, decide(COMPLETE, false, false, CLAIMED_BY_ANOTHER, -1), "a completed task never comes back");
        assertEquals(NOT_COMMITTED_LOST, decide(COMPLETE, false, false, TaskNow.GONE, D + 1), "dead-lettered by another claim");
        assertEquals(UNKNOWN, decide(COMPLETE, false, false, TaskNow.GONE, -1), "ours, or another consumer's after a takeover");
    }

    @Test
    void aFailureOnANewSessionCommittedExactlyWhenTheTaskIsOneVersionOnWithNoClaim() {
        assertEquals(COMMITTED, decide(FAIL, false, false, FAILED_BY_US, -1));
        assertEquals(NOT_COMMITTED_LOST, decide(FAIL, false, false, CLAIMED_BY_ANOTHER, -1), "another consumer claimed it at our version");
        assertEquals(UNKNOWN, decide(FAIL, false, false, FURTHER_ON, -1));
        assertEquals(UNKNOWN, decide(FAIL, false, false, TaskNow.GONE, -1));
    }

    @Test
    void aDeadLetterOnANewSessionIsOursExactlyWhenItKeepsOurDeliveryCount() {
        assertEquals(COMMITTED, decide(DEAD_LETTER, false, false, TaskNow.GONE, D));
        assertEquals(NOT_COMMITTED_LOST, decide(DEAD_LETTER, false, false, TaskNow.GONE, D + 1));
        assertEquals(NOT_COMMITTED_LOST, decide(DEAD_LETTER, false, false, CLAIMED_BY_ANOTHER, -1));
        assertEquals(UNKNOWN, decide(DEAD_LETTER, false, false, TaskNow.GONE, -1), "purged or requeued since");
    }
}
