package io.coord.queue;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.Objects;

/**
 * What a task node holds (and a dead letter, with {@code deadAt}). JSON, read strictly by
 * {@link io.coord.Codec}: an unknown field is an error, not something silently dropped on the
 * next rewrite.
 *
 * @param payload    the caller's payload, embedded as JSON (readable in zkCli)
 * @param lane       priority lane
 * @param enqueuedAt epoch millis, producer's clock
 * @param notBefore  epoch millis before which the task is not handed out, or null
 * @param attempts   failed attempts so far
 * @param deliveries claims so far
 * @param maxRetries failures after the first before dead-lettering
 * @param key        the task's key node name under {@code keys/} ({@code k-…}, or {@code a-…} for a task of a batch),
 *                   or null: a single unkeyed task has no key node (its node name carries its enqueue's unique id)
 * @param lastError  reason of the last failure, or null
 * @param claim      the claim node of the latest claim, or null; the task is PROCESSING only while that node exists
 * @param claimedBy  owner of that claim
 * @param claimedAt  epoch millis of that claim
 * @param deadAt     epoch millis when it was dead-lettered (dead letters only)
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
record TaskRecord(JsonNode payload, int lane, long enqueuedAt, Long notBefore, int attempts, int deliveries,
                  int maxRetries, String key, String lastError, String claim, String claimedBy, Long claimedAt,
                  Long deadAt) {
    /** Longest last error kept; longer reasons are cut with a marker. */
    static final int MAX_ERROR_LENGTH = 2000;

    TaskRecord {
        Objects.requireNonNull(payload, "payload");
    }

    static TaskRecord fresh(JsonNode payload, int lane, long now, Long notBefore, int maxRetries, String key) {
        return new TaskRecord(payload, lane, now, notBefore, 0, 0, maxRetries, key, null, null, null, null, null);
    }

    long notBeforeMillis() {
        return notBefore == null ? 0 : notBefore;
    }

    TaskRecord claimed(String claimName, String owner, long now) {
        return new TaskRecord(payload, lane, enqueuedAt, notBefore, attempts, deliveries + 1, maxRetries, key, lastError,
                claimName, owner, now, null);
    }

    /** After a failure with retries left: claimable at {@code retryAt}, no claim. */
    TaskRecord retrying(String reason, long retryAt) {
        return new TaskRecord(payload, lane, enqueuedAt, retryAt, attempts + 1, deliveries, maxRetries, key, cut(reason),
                null, null, null, null);
    }

    /** After the last failure: the dead letter's record. */
    TaskRecord dead(String reason, long now) {
        return new TaskRecord(payload, lane, enqueuedAt, null, attempts + 1, deliveries, maxRetries, key, cut(reason),
                null, null, null, now);
    }

    /**
     * A task given up on without a {@code fail()} (no consumer can decode it, or it was delivered
     * {@code maxDeliveries} times without an ending), as a dead letter: not an attempt, so attempts stay.
     */
    TaskRecord deadWithoutAttempt(String reason, long now) {
        return new TaskRecord(payload, lane, enqueuedAt, null, attempts, deliveries, maxRetries, key, cut(reason),
                null, null, null, now);
    }

    /** A dead letter sent back: a fresh start that keeps the last error for the record. */
    TaskRecord requeued(long now, String newKey) {
        return new TaskRecord(payload, lane, now, null, 0, 0, maxRetries, newKey, lastError, null, null, null, null);
    }

    /** Whether one more failure would exceed the retries. */
    boolean lastAttempt() {
        return attempts + 1 > maxRetries;
    }

    static String cut(String reason) {
        String r = reason == null ? "(no reason given)" : reason;
        return r.length() <= MAX_ERROR_LENGTH ? r : r.substring(0, MAX_ERROR_LENGTH - 20) + "… [" + r.length() + " chars]";
    }
}
