package io.coord.queue;

import io.coord.CoordMetrics;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * The queue's figures, all tagged {@code queue=<name>}: counters {@code coord.queue.enqueued},
 * {@code .duplicates} (keyed enqueues that found their task), {@code .completed}, {@code .failed}
 * (every failed attempt, dead-lettered or not), {@code .deadLettered}, {@code .released},
 * {@code .claimLost}; the timer {@code coord.queue.claimToComplete}; the gauge
 * {@code coord.queue.depth} (pending + processing, as this process's cache sees them; NaN until
 * the first claim starts the cache).
 */
final class QueueMetrics {
    private final CoordMetrics metrics;
    private final String queue;

    QueueMetrics(CoordMetrics metrics, String queue) {
        this.metrics = metrics;
        this.queue = queue;
    }

    void depthGauge(Supplier<? extends Number> depth) {
        metrics.gauge("coord.queue.depth", depth, "queue", queue);
    }

    void enqueued(int n) {
        for (int i = 0; i < n; i++) {
            metrics.increment("coord.queue.enqueued", "queue", queue);
        }
    }

    void duplicate() {
        metrics.increment("coord.queue.duplicates", "queue", queue);
    }

    void completed(Duration claimToComplete) {
        metrics.increment("coord.queue.completed", "queue", queue);
        metrics.recordTime("coord.queue.claimToComplete", claimToComplete, "queue", queue);
    }

    void failed() {
        metrics.increment("coord.queue.failed", "queue", queue);
    }

    void deadLettered() {
        metrics.increment("coord.queue.deadLettered", "queue", queue);
    }

    void released() {
        metrics.increment("coord.queue.released", "queue", queue);
    }

    void claimLost() {
        metrics.increment("coord.queue.claimLost", "queue", queue);
    }
}
