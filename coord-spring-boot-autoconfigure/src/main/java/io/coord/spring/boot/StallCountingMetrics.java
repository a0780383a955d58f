package io.coord.spring.boot;

import io.coord.CoordMetrics;
import java.time.Duration;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * Forwards every figure and counts the client's stalls on the way, so the health indicator can
 * show the stall count whether or not the application has a meter registry. The client exposes
 * no stall count of its own; its stall monitor reports each stall as {@value #STALLS}.
 */
final class StallCountingMetrics implements CoordMetrics {
    static final String STALLS = "coord.client.stalls";

    private final CoordMetrics delegate;
    private final LongAdder stalls = new LongAdder();

    StallCountingMetrics(CoordMetrics delegate) {
        this.delegate = delegate;
    }

    long stalls() {
        return stalls.sum();
    }

    @Override
    public void increment(String name, String... tags) {
        if (STALLS.equals(name)) {
            stalls.increment();
        }
        delegate.increment(name, tags);
    }

    @Override
    public void recordTime(String name, Duration duration, String... tags) {
        delegate.recordTime(name, duration, tags);
    }

    @Override
    public void gauge(String name, Supplier<? extends Number> value, String... tags) {
        delegate.gauge(name, value, tags);
    }
}
