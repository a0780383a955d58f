package io.coord.queue;

/**
 * Where an ending (complete, fail, dead-letter) stands after a send of it got no answer: it may or
 * may not have committed. Pure: decided from one look at the claim node, the claim's session, the
 * task and its dead letter; unit-tested in {@code EndingOutcomeTest}.
 *
 * <p>The rules, from how the queue writes (see {@link Claimer} and {@link ZkTaskClaim}):
 * <ul>
 *   <li>Every ending deletes our claim node in its own transaction, so the node still there means it
 *       did not commit, whatever session the client is on now.
 *   <li>Only our ending (or an operator) deletes that node while its session lives; the session
 *       ending deletes it too. So gone while the client is still on the claim's session: it
 *       committed, unless the task is still at our version (an operator deleted the node).
 *   <li>Gone on a new session: our claim expired, and another consumer may have taken the task
 *       over since. The task still at our version: it did not commit. A completion or a
 *       dead-letter deletes the task for good (names are never reused), so the task still there at
 *       another version means neither committed; a dead letter of another claim (another delivery
 *       count) means ours did not. A failure sets the task at our version + 1 with no claim, which
 *       only our failure can write (any other first write after ours at our version is a claim,
 *       which names its claim node). Anything else leaves no trace that tells: unknown, for good.
 * </ul>
 */
final class EndingOutcome {
    private EndingOutcome() {
    }

    /** The ending transactions. */
    enum Ending {
        COMPLETE("complete"), FAIL("fail"), DEAD_LETTER("dead-letter");

        final String label;

        Ending(String label) {
            this.label = label;
        }
    }

    /** The verdict. */
    enum Verdict {
        /** It committed: report success. */
        COMMITTED,
        /** It did not commit and the claim is still ours: the caller may send the ending again. */
        NOT_COMMITTED_HELD,
        /** It did not commit and the claim is gone: {@link ClaimLostException}, nothing changed. */
        NOT_COMMITTED_LOST,
        /** Could not look (no connection, a read failed): unknown for now, the claim may still be ours. */
        UNKNOWN_FOR_NOW,
        /** The claim's session is over and nothing left tells: unknown for good. */
        UNKNOWN
    }

    /**
     * One look, in this order: our claim node, then whether the client was still on the claim's
     * session after that read, then the task and its dead letter.
     *
     * @param claimNodeExists whether our claim node exists
     * @param sameSession     whether the client is still on the claim's (live) session after that read
     * @param task            the task now: absent, or its version and whether its record names a claim
     * @param deadDeliveries  the delivery count in the task's dead letter, or -1 if there is none
     */
    record Look(boolean claimNodeExists, boolean sameSession, TaskNow task, int deadDeliveries) {
    }

    /** The task node at one read. */
    record TaskNow(boolean exists, int version, boolean namesAClaim) {
        static final TaskNow GONE = new TaskNow(false, -1, false);
    }

    /**
     * @param ours        the ending that got no answer
     * @param version     the task's version this claim holds it at
     * @param deliveries  the task's delivery count at this claim
     * @param look        what was found, or null if the look could not be made
     */
    static Verdict decide(Ending ours, int version, int deliveries, Look look) {
        if (look == null) {
            return Verdict.UNKNOWN_FOR_NOW;
        }
        if (look.claimNodeExists()) {
            return Verdict.NOT_COMMITTED_HELD;
        }
        TaskNow task = look.task();
        if (task.exists() && task.version() == version) {
            return Verdict.NOT_COMMITTED_LOST; // every ending moves the task off our version
        }
        if (look.sameSession()) {
            return Verdict.COMMITTED;
        }
        return switch (ours) {
            case COMPLETE -> task.exists() || look.deadDeliveries() >= 0 ? Verdict.NOT_COMMITTED_LOST : Verdict.UNKNOWN;
            case DEAD_LETTER -> {
                if (look.deadDeliveries() >= 0) {
                    yield look.deadDeliveries() == deliveries ? Verdict.COMMITTED : Verdict.NOT_COMMITTED_LOST;
                }
                yield task.exists() ? Verdict.NOT_COMMITTED_LOST : Verdict.UNKNOWN;
            }
            case FAIL -> {
                if (task.exists() && task.version() == version + 1) {
                    yield task.namesAClaim() ? Verdict.NOT_COMMITTED_LOST : Verdict.COMMITTED;
                }
                yield Verdict.UNKNOWN;
            }
        };
    }
}
