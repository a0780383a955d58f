package io.coord.queue;

import java.time.Duration;

/**
 * The retry delay after a failed attempt: exponential from {@code base}, capped at {@code max},
 * with a downward jitter so that tasks failed together by one outage do not all come back in the
 * same instant. Pure: the random draw is an argument, so the rule is tested without a server or
 * a clock.
 *
 * @param base   delay after the first failure (zero: retry at once)
 * @param max    the delay never exceeds this
 * @param jitter fraction in [0, 1] by which a delay may be shortened: the delay is
 *               {@code raw × (1 − jitter × random)}, so it stays within {@code [raw × (1 − jitter), raw]}
 */
record Backoff(Duration base, Duration max, double jitter) {
    Backoff {
        if (base == null || base.isNegative()) {
            throw new IllegalArgumentException("backoff base must be >= 0, got " + base);
        }
        if (max == null || max.compareTo(base) < 0) {
            throw new IllegalArgumentException("backoff max " + max + " must be >= base " + base);
        }
        if (!(jitter >= 0 && jitter <= 1)) {
            throw new IllegalArgumentException("backoff jitter must be within [0, 1], got " + jitter);
        }
    }

    /**
     * The delay before attempt {@code failures + 1}, after {@code failures} failures (at least 1).
     *
     * @param random a draw in [0, 1)
     */
    Duration delay(int failures, double random) {
        if (failures < 1) {
            throw new IllegalArgumentException("failures must be >= 1, got " + failures);
        }
        if (!(random >= 0 && random < 1)) {
            throw new IllegalArgumentException("random must be within [0, 1), got " + random);
        }
        long baseNanos = base.toNanos();
        long maxNanos = max.toNanos();
        long raw;
        // base × 2^(failures-1) without overflow: stop doubling once past the cap.
        int doublings = failures - 1;
        if (baseNanos == 0) {
            raw = 0;
        } else if (doublings >= 63 || baseNanos > (maxNanos >> Math.min(doublings, 62))) {
            raw = maxNanos;
        } else {
            raw = Math.min(maxNanos, baseNanos << doublings);
        }
        long shortened = (long) (raw * jitter * random);
        return Duration.ofNanos(raw - shortened);
    }
}
