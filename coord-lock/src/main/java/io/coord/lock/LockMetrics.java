package io.coord.lock;

import io.coord.CoordMetrics;
import java.time.Duration;

/**
 * The lock family's figures, all tagged with the node {@code kind} (lock, read, write, lease).
 * Stalls are counted by coord-core's stall monitor ({@code coord.client.stalls}).
 */
final class LockMetrics {
    static final String WAIT = "coord.lock.wait";
    static final String HOLD = "coord.lock.hold";
    static final String TIMEOUTS = "coord.lock.acquire.timeouts";
    static final String LOSSES = "coord.lock.losses";
    static final String FENCED = "coord.lock.fenced.rejections";

    private final CoordMetrics metrics;

    LockMetrics(CoordMetrics metrics) {
        this.metrics = metrics;
    }

    /** How long an acquire waited, with its outcome: acquired, timeout, interrupted or failed. */
    void waited(WaitRule.Type type, String outcome, long nanos) {
        metrics.recordTime(WAIT, Duration.ofNanos(nanos), "kind", type.label(), "outcome", outcome);
        if (outcome.equals("timeout")) {
            metrics.increment(TIMEOUTS, "kind", type.label());
        }
    }

    void held(WaitRule.Type type, long nanos) {
        metrics.recordTime(HOLD, Duration.ofNanos(nanos), "kind", type.label());
    }

    void lost(WaitRule.Type type) {
        metrics.increment(LOSSES, "kind", type.label());
    }

    /** A write through a lease was refused because the lease was no longer certainly held. */
    void fencedRejection(WaitRule.Type type) {
        metrics.increment(FENCED, "kind", type.label());
    }
}
