package io.coord.queue;

import java.time.Instant;
import java.util.Objects;

/**
 * A snapshot of one task as an operator lists it ({@link TaskQueue#tasks()},
 * {@link TaskQueue#deadLetters()}).
 *
 * @param id         the task's id
 * @param state      where it is now
 * @param payload    the payload
 * @param lane       its priority lane
 * @param enqueuedAt when it was enqueued (the producer's clock)
 * @param notBefore  not handed out before this (a delay or a retry backoff); null if not set
 * @param attempts   failed attempts so far
 * @param deliveries times it was claimed (more than {@code attempts} when consumers died or released it)
 * @param maxRetries failures after the first before it is dead-lettered
 * @param lastError  the reason given to the last {@code fail()}, or null
 * @param claimedBy  the consumer holding it while {@link State#PROCESSING}, else null
 * @param claimedAt  when that consumer claimed it, else null
 */
public record Task<T>(TaskId id, State state, T payload, int lane, Instant enqueuedAt, Instant notBefore,
                      int attempts, int deliveries, int maxRetries, String lastError, String claimedBy,
                      Instant claimedAt) {
    /**
     * A task's states.
     *
     * <pre>
     * PENDING ──claim()──▶ PROCESSING ──complete()──▶ (gone: done)
     * PROCESSING ──fail(), attempts ≤ maxRetries──▶ PENDING (after a backoff)
     * PROCESSING ──fail(), attempts &gt; maxRetries──▶ DEAD
     * PROCESSING ──release(), or the consumer's session ends──▶ PENDING
     * PENDING ──claim() after maxDeliveries deliveries that ended without complete() or fail()──▶ DEAD
     * DEAD ──requeue()──▶ PENDING (a new task id, at the back)     DEAD ──purge──▶ (gone)
     * </pre>
     */
    public enum State {
        PENDING,
        PROCESSING,
        DEAD
    }

    public Task {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(state, "state");
        if ((state == State.PROCESSING) != (claimedBy != null)) {
            throw new IllegalArgumentException("task " + id + " is " + state + " but claimedBy is " + claimedBy
                    + ": a claimer is named exactly when the task is PROCESSING");
        }
    }
}
