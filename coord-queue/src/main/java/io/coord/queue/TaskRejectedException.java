package io.coord.queue;

import io.coord.CoordException;

/**
 * A task was refused at enqueue before anything was written (bad-input row 30): its payload cannot
 * be serialized, is over the task size limit, or its {@link TaskSpec} is invalid (negative
 * {@code maxRetries}, unknown lane, malformed key), or a batch is over the transaction limit.
 * Nothing else in the queue is affected. Not retryable: the same input fails the same way.
 */
public class TaskRejectedException extends CoordException {
    private static final long serialVersionUID = 1L;

    public TaskRejectedException(String message) {
        super(message);
    }

    public TaskRejectedException(String message, Throwable cause) {
        super(message, cause);
    }
}
