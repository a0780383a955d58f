package io.coord.metrics;

import io.coord.CoordMetrics;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * {@link CoordMetrics} on a Micrometer {@link MeterRegistry}. Micrometer is an optional
 * dependency of coord-core: only this class needs it on the classpath.
 */
public final class MicrometerMetrics implements CoordMetrics {
    private final MeterRegistry registry;

    public MicrometerMetrics(MeterRegistry registry) {
        this.registry = Objects.requireNonNull(registry, "registry");
    }

    @Override
    public void increment(String name, String... tags) {
        registry.counter(name, Tags.of(tags)).increment();
    }

    @Override
    public void recordTime(String name, Duration duration, String... tags) {
        registry.timer(name, Tags.of(tags)).record(duration);
    }

    @Override
    public void gauge(String name, Supplier<? extends Number> value, String... tags) {
        Gauge.builder(name, value, v -> {
            Number n = v.get();
            return n == null ? Double.NaN : n.doubleValue();
        }).tags(tags).strongReference(true).register(registry);
    }
}
