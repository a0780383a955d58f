package io.coord.queue;

import io.coord.CoordException;
import io.coord.CoordPath;
import java.time.Instant;

/**
 * How one task is enqueued, beyond its payload. Start from {@link #defaults()} and derive:
 * {@code TaskSpec.defaults().lane(2).notBefore(at).idempotencyKey("invoice-17")}.
 *
 * @param lane           priority lane, 0 (default) up to {@link QueueOptions#lanes()} − 1; higher
 *                       lanes are served first, FIFO within a lane
 * @param notBefore      the task is not handed out before this instant (null: at once). Compared
 *                       with the consumers' clocks, so keep them in sync
 * @param idempotencyKey while a task with this key is pending or processing, and for
 *                       {@link QueueOptions#idempotencyWindow()} after it completed, enqueueing
 *                       another with the same key does nothing and returns the existing task's id
 *                       (null: no key). One path segment: no {@code /}, at most 200 characters
 * @param maxRetries     failures after the first before the task is dead-lettered (null: the
 *                       queue's {@link QueueOptions#maxRetries()})
 */
public record TaskSpec(int lane, Instant notBefore, String idempotencyKey, Integer maxRetries) {
    /** Longest key: leaves room for the key node's prefix within a 255-character segment. */
    public static final int MAX_KEY_LENGTH = 200;

    /**
     * Refuses a bad spec with {@link TaskRejectedException} (bad-input row 30) before anything is
     * written.
     */
    public TaskSpec {
        if (lane < 0) {
            throw new TaskRejectedException("lane must be >= 0, got " + lane);
        }
        if (maxRetries != null && maxRetries < 0) {
            throw new TaskRejectedException("maxRetries must be >= 0, got " + maxRetries);
        }
        if (idempotencyKey != null) {
            if (idempotencyKey.length() > MAX_KEY_LENGTH) {
                throw new TaskRejectedException("idempotency key of " + idempotencyKey.length()
                        + " characters is over the limit of " + MAX_KEY_LENGTH);
            }
            try {
                CoordPath.validateName(idempotencyKey);
            } catch (CoordException e) {
                throw new TaskRejectedException("idempotency key is not usable as a node name: " + e.getMessage(), e);
            }
        }
    }

    /** Lane 0, at once, no key, the queue's maxRetries. */
    public static TaskSpec defaults() {
        return new TaskSpec(0, null, null, null);
    }

    public TaskSpec lane(int value) {
        return new TaskSpec(value, notBefore, idempotencyKey, maxRetries);
    }

    public TaskSpec notBefore(Instant value) {
        return new TaskSpec(lane, value, idempotencyKey, maxRetries);
    }

    public TaskSpec idempotencyKey(String value) {
        return new TaskSpec(lane, notBefore, value, maxRetries);
    }

    public TaskSpec maxRetries(int value) {
        return new TaskSpec(lane, notBefore, idempotencyKey, value);
    }
}
