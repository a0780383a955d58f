package io.coord.internal;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordMetrics;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The monitor reports an oversleep past its threshold, and nothing below it. (A real stall of a
 * whole JVM, by SIGSTOP, is tested in coord-lock with a child process.)
 */
class StallMonitorTest {
    @Test
    void anOversleepPastTheThresholdIsReportedAndCounted() throws Exception {
        CountDownLatch stalled = new CountDownLatch(1);
        List<String> counted = new CopyOnWriteArrayList<>();
        // A threshold of 1 ns: every sample oversleeps by at least that, so the report path runs.
        try (StallMonitor monitor = new StallMonitor("test-stall", Duration.ofMillis(20), () -> 1L,
                d -> stalled.countDown(), recording(counted))) {
            assertTrue(stalled.await(5, TimeUnit.SECONDS), "stall reported");
        }
        assertTrue(counted.contains("coord.client.stalls"), counted.toString());
    }

    @Test
    void noReportBelowTheThreshold() throws Exception {
        List<Duration> reports = new CopyOnWriteArrayList<>();
        try (StallMonitor monitor = new StallMonitor("test-stall", Duration.ofMillis(20),
                () -> Duration.ofSeconds(30).toNanos(), reports::add, CoordMetrics.noop())) {
            Thread.sleep(200);
        }
        assertTrue(reports.isEmpty(), reports.toString());
    }

    @Test
    void aZeroThresholdMeansOff() throws Exception {
        List<Duration> reports = new CopyOnWriteArrayList<>();
        try (StallMonitor monitor = new StallMonitor("test-stall", Duration.ofMillis(20), () -> 0L, reports::add, CoordMetrics.noop())) {
            Thread.sleep(200);
        }
        assertTrue(reports.isEmpty(), "before the first connection the threshold is 0: no reports");
    }

    private static CoordMetrics recording(List<String> names) {
        return new CoordMetrics() {
            @Override
            public void increment(String name, String... tags) {
                names.add(name);
            }

            @Override
            public void recordTime(String name, Duration duration, String... tags) {
                names.add(name);
            }

            @Override
            public void gauge(String name, Supplier<? extends Number> value, String... tags) {
            }
        };
    }
}
