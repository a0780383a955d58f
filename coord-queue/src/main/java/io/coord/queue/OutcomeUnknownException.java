package io.coord.queue;

import io.coord.CoordException;

/**
 * An ending (complete, fail, dead-letter) was sent, its answer was lost, and by the time the
 * consumer was back its claim's session had ended and nothing left in ZooKeeper tells whether it
 * committed: it may have, or another consumer may have taken the task over and ended it. The
 * claim is over either way (its session is), and no call can find out more, so it is not
 * retryable. Completion stays exactly-once: at most one ending of the task committed.
 */
public class OutcomeUnknownException extends CoordException {
    private static final long serialVersionUID = 1L;

    public OutcomeUnknownException(String message, Throwable cause) {
        super(message, cause);
    }
}
