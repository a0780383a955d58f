package io.coord.lock;

import io.coord.CoordMetrics;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/** Counts what Coord reports, keyed by name and tags ({@code coord.lock.losses[kind, lock]}). */
final class RecordingMetrics implements CoordMetrics {
    final Map<String, AtomicLong> counts = new ConcurrentHashMap<>();

    @Override
    public void increment(String name, String... tags) {
        counts.computeIfAbsent(name + List.of(tags), k -> new AtomicLong()).incrementAndGet();
    }

    @Override
    public void recordTime(String name, Duration duration, String... tags) {
        counts.computeIfAbsent(name + List.of(tags), k -> new AtomicLong()).incrementAndGet();
    }

    @Override
    public void gauge(String name, Supplier<? extends Number> value, String... tags) {
    }

    long count(String name, String... tags) {
        AtomicLong n = counts.get(name + List.of(tags));
        return n == null ? 0 : n.get();
    }
}
