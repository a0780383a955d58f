package io.coord.naming;

import io.coord.CoordMetrics;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/** Counts what the code under test reports, by metric name (tags ignored). */
final class RecordingMetrics implements CoordMetrics {
    private final ConcurrentHashMap<String, AtomicLong> counts = new ConcurrentHashMap<>();

    @Override
    public void increment(String name, String... tags) {
        counts.computeIfAbsent(name, n -> new AtomicLong()).incrementAndGet();
    }

    @Override
    public void recordTime(String name, Duration duration, String... tags) {
        counts.computeIfAbsent(name + ".count", n -> new AtomicLong()).incrementAndGet();
    }

    @Override
    public void gauge(String name, Supplier<? extends Number> value, String... tags) {
    }

    long count(String name) {
        AtomicLong c = counts.get(name);
        return c == null ? 0 : c.get();
    }
}
