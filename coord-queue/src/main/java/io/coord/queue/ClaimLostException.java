package io.coord.queue;

import io.coord.LockLostException;

/**
 * The claim on a task is gone (its consumer's session ended, the claim was released, or it timed
 * out: {@link QueueOptions#claimTimeout()}), so this
 * consumer may no longer complete or fail the task: the transaction that would have done so was
 * refused by its check on the claim node, and nothing was changed. The task is (or will be)
 * handed to another consumer. Not retryable with this claim: claim the task again.
 */
public class ClaimLostException extends LockLostException {
    private static final long serialVersionUID = 1L;

    public ClaimLostException(String message) {
        super(message);
    }

    public ClaimLostException(String message, Throwable cause) {
        super(message, cause);
    }
}
