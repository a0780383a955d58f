package io.coord;

import java.time.Duration;

/**
 * Exponential backoff for operations that failed with a retryable error (connection loss):
 * {@code baseSleep × 2^n} with jitter, capped at {@code maxSleep}, at most {@code maxRetries} times.
 * Final errors (bad input, authorization, session expiry of a lease) are never retried.
 */
public record RetrySettings(Duration baseSleep, int maxRetries, Duration maxSleep) {
    public static final RetrySettings DEFAULT = new RetrySettings(Duration.ofSeconds(1), 3, Duration.ofSeconds(10));

    public RetrySettings {
        if (baseSleep == null || baseSleep.isNegative() || baseSleep.isZero()) {
            throw new ConfigurationException("retry baseSleep must be > 0, got " + baseSleep);
        }
        if (maxRetries < 0 || maxRetries > 29) {
            throw new ConfigurationException("retry maxRetries must be within 0..29, got " + maxRetries);
        }
        if (maxSleep == null || maxSleep.compareTo(baseSleep) < 0) {
            throw new ConfigurationException("retry maxSleep " + maxSleep + " must be >= baseSleep " + baseSleep);
        }
    }
}
