package io.coord.chaos;

/**
 * The payload of one chaos queue task: its idempotency key, and whether it is poison (its handler
 * always fails, so it must end in the dead letters after {@code maxRetries + 1} attempts).
 */
public record QueueJob(String key, boolean poison) {
}
