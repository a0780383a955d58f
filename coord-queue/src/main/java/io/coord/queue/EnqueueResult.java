package io.coord.queue;

import java.util.Objects;

/**
 * What an enqueue did: the task's id and whether this call added it. Returned by
 * {@link TaskQueue#submit}; {@link TaskQueue#enqueue} returns just the id.
 *
 * @param id      the task this call added, or the one its idempotency key already named
 * @param outcome whether it was added now, was already there, or was already completed
 */
public record EnqueueResult(TaskId id, Outcome outcome) {
    public EnqueueResult {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(outcome, "outcome");
    }

    /** Where the task stands after the call. */
    public enum Outcome {
        /**
         * This call added the task, which is queued. After a lost reply a keyed call cannot tell
         * its own task from one an earlier call with the same key added: it says ADDED for either.
         */
        ADDED,
        /** A task with the same key is pending or processing: this call wrote nothing, this is its id. */
        ALREADY_QUEUED,
        /**
         * A task with the same key completed within the queue's idempotency window
         * ({@link QueueOptions#idempotencyWindow()}): this call wrote nothing (or, after a lost
         * reply, its own task has already run), and this is its id.
         */
        ALREADY_COMPLETED
    }
}
