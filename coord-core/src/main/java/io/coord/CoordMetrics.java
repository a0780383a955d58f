package io.coord;

import java.time.Duration;
import java.util.function.Supplier;

/**
 * Where Coord reports its figures. Deliberately tiny so any metrics library fits behind it;
 * {@link io.coord.metrics.MicrometerMetrics} is the ready one. Names are dotted and start with
 * {@code coord.}; tags come as key, value pairs. Implementations must be thread-safe and must not
 * throw.
 */
public interface CoordMetrics {
    /** Adds one to a counter. */
    void increment(String name, String... tags);

    /** Records one duration (a wait time, a hold time). */
    void recordTime(String name, Duration duration, String... tags);

    /** Registers a value read on demand (a queue depth, a group size). */
    void gauge(String name, Supplier<? extends Number> value, String... tags);

    /** Reports nothing. */
    static CoordMetrics noop() {
        return NoopMetrics.INSTANCE;
    }
}

enum NoopMetrics implements CoordMetrics {
    INSTANCE;

    @Override
    public void increment(String name, String... tags) {
    }

    @Override
    public void recordTime(String name, Duration duration, String... tags) {
    }

    @Override
    public void gauge(String name, Supplier<? extends Number> value, String... tags) {
    }
}
