package io.coord.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class MicrometerMetricsTest {
    @Test
    void countersTimersAndGaugesReachTheRegistryWithTheirTags() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        MicrometerMetrics metrics = new MicrometerMetrics(registry);
        metrics.increment("coord.lock.acquire.failures", "lock", "/locks/a");
        metrics.increment("coord.lock.acquire.failures", "lock", "/locks/a");
        metrics.recordTime("coord.lock.wait", Duration.ofMillis(15), "lock", "/locks/a");
        AtomicInteger depth = new AtomicInteger(3);
        metrics.gauge("coord.queue.depth", depth::get, "queue", "jobs");
        depth.set(5);
        assertEquals(2.0, registry.get("coord.lock.acquire.failures").tag("lock", "/locks/a").counter().count());
        assertEquals(1, registry.get("coord.lock.wait").timer().count());
        assertEquals(15.0, registry.get("coord.lock.wait").timer().totalTime(java.util.concurrent.TimeUnit.MILLISECONDS));
        assertEquals(5.0, registry.get("coord.queue.depth").tag("queue", "jobs").gauge().value());
    }
}
