package io.coord.naming;

import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Instances reported failing, with curator-x-discovery's {@code DownInstancePolicy} semantics: an
 * instance with at least {@code threshold} reports is skipped until {@code timeout} after its first
 * report, then forgotten (it comes back on its own). Curator's own {@code DownInstanceManager} is
 * not public and uses the wall clock; this one uses an injected monotonic clock.
 */
final class DownInstances {
    private record Status(long firstNanos, AtomicInteger errors) {
    }

    private final ConcurrentHashMap<String, Status> statuses = new ConcurrentHashMap<>();
    private final int threshold;
    private final long timeoutNanos;
    private final LongSupplier nanoTime;
    private final AtomicLong lastPurge;

    DownInstances(int threshold, Duration timeout, LongSupplier nanoTime) {
        this.threshold = threshold;
        this.timeoutNanos = timeout.toNanos();
        this.nanoTime = nanoTime;
        this.lastPurge = new AtomicLong(nanoTime.getAsLong());
    }

    void noteError(String instanceId) {
        purge(true);
        statuses.computeIfAbsent(instanceId, id -> new Status(nanoTime.getAsLong(), new AtomicInteger())).errors().incrementAndGet();
    }

    /** True if nobody is reported (the resolver's fast path). */
    boolean none() {
        if (statuses.isEmpty()) {
            return true;
        }
        purge(false);
        return statuses.isEmpty();
    }

    boolean isDown(String instanceId) {
        Status s = statuses.get(instanceId);
        return s != null && s.errors().get() >= threshold && nanoTime.getAsLong() - s.firstNanos() < timeoutNanos;
    }

    /** Forgets statuses older than the timeout; unless forced, at most every tenth of the timeout. */
    private void purge(boolean force) {
        long now = nanoTime.getAsLong();
        long last = lastPurge.get();
        if (!force && now - last < timeoutNanos / 10) {
            return;
        }
        if (!lastPurge.compareAndSet(last, now)) {
            return;
        }
        statuses.entrySet().removeIf(e -> now - e.getValue().firstNanos() >= timeoutNanos);
    }
}
