package io.coord.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordMetrics;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The monitor reports an oversleep past its threshold exactly once, with its length, and nothing
 * at or below it. Deterministic: a stepped ticker that moves only when the test moves it, and
 * samples taken by the test itself (one test lets a real scheduler take them, and still only the
 * step decides). A real stall of a whole JVM, by SIGSTOP, is tested in coord-lock with a child
 * process; a real client seeing a stepped ticker, in {@link NodeLeaseIT} and coord-test's
 * {@code LeaseContract}.
 */
class StallMonitorTest {
    private static final Duration TICK = Duration.ofMillis(100);
    private static final Duration THRESHOLD = Duration.ofSeconds(2);

    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final Ticker stepped = now::get;
    private final List<Duration> reports = new CopyOnWriteArrayList<>();
    private final List<String> counted = new CopyOnWriteArrayList<>();

    private StallMonitor monitor(Supplier<Long> thresholdNanos) {
        return new StallMonitor(TICK, stepped, thresholdNanos::get, reports::add, recording(counted));
    }

    /** Time passes by {@code d} between two samples. */
    private void pass(Duration d) {
        now.addAndGet(d.toNanos());
    }

    @Test
    void anOversleepPastTheThresholdIsReportedOnceWithItsLengthAndCounted() {
        StallMonitor monitor = monitor(THRESHOLD::toNanos);
        Duration stall = THRESHOLD.plusMillis(1500);
        pass(TICK.plus(stall));
        monitor.sample();
        assertEquals(List.of(stall), reports, "one stall, as long as the ticker jumped beyond the tick");
        assertEquals(List.of("coord.client.stalls", "coord.client.stall"), counted);

        pass(TICK);
        monitor.sample();
        pass(TICK.plusMillis(5));
        monitor.sample();
        assertEquals(List.of(stall), reports, "samples after it measure from it: no second report");
    }

    @Test
    void anOversleepAtOrBelowTheThresholdIsNotReported() {
        StallMonitor monitor = monitor(THRESHOLD::toNanos);
        pass(TICK.plus(THRESHOLD));
        monitor.sample();
        pass(TICK.plus(THRESHOLD).minusNanos(1));
        monitor.sample();
        pass(TICK);
        monitor.sample();
        monitor.sample(); // no time passed at all: an undersleep
        assertEquals(List.of(), reports);
        assertEquals(List.of(), counted);

        pass(TICK.plus(THRESHOLD).plusNanos(1));
        monitor.sample();
        assertEquals(List.of(THRESHOLD.plusNanos(1)), reports, "one nanosecond past the threshold is a stall");
    }

    @Test
    void aZeroThresholdMeansOff() {
        StallMonitor monitor = monitor(() -> 0L);
        pass(Duration.ofMinutes(5));
        monitor.sample();
        assertTrue(reports.isEmpty(), "before the first connection the threshold is 0: no reports, got " + reports);
    }

    @Test
    void theThresholdIsReadAtEachSample() {
        AtomicLong threshold = new AtomicLong(0);
        StallMonitor monitor = monitor(threshold::get);
        pass(TICK.plus(THRESHOLD).plusSeconds(1));
        monitor.sample();
        threshold.set(THRESHOLD.toNanos()); // the session was negotiated meanwhile
        pass(TICK.plus(THRESHOLD).plusSeconds(1));
        monitor.sample();
        assertEquals(List.of(THRESHOLD.plusSeconds(1)), reports);
    }

    @Test
    void aFailingCallbackOrThresholdDoesNotEndTheMonitor() {
        AtomicLong calls = new AtomicLong();
        AtomicLong threshold = new AtomicLong(-1);
        StallMonitor monitor = new StallMonitor(TICK, stepped, () -> {
            if (threshold.get() < 0) {
                throw new IllegalStateException("no session yet");
            }
            return threshold.get();
        }, d -> {
            calls.incrementAndGet();
            throw new IllegalStateException("callback failed");
        }, CoordMetrics.noop());
        pass(TICK.plus(THRESHOLD).plusSeconds(1));
        monitor.sample(); // the threshold throws: logged, not thrown
        threshold.set(THRESHOLD.toNanos());
        pass(TICK.plus(THRESHOLD).plusSeconds(1));
        monitor.sample();
        pass(TICK.plus(THRESHOLD).plusSeconds(1));
        monitor.sample();
        assertEquals(2, calls.get(), "each stall after the failures is still reported");
    }

    @Test
    void aBadTickIsRefusedNamingIt() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new StallMonitor(Duration.ZERO, stepped, () -> 1L, reports::add, CoordMetrics.noop()));
        assertTrue(e.getMessage().contains("PT0S"), e.getMessage());
    }

    /**
     * On a real scheduler, samples come every tick, yet with a ticker that moves only when the test
     * steps it, only the step can be a stall: exactly one report, and after close no live sample is
     * left scheduled. The latch only bounds the wait for the next sample; it decides nothing.
     */
    @Test
    void onTheClientsSchedulerOnlyTheStepIsReportedAndCloseStopsTheSampling() throws Exception {
        ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1);
        timer.setRemoveOnCancelPolicy(true);
        try {
            CountDownLatch reported = new CountDownLatch(1);
            Duration tick = Duration.ofMillis(5);
            StallMonitor monitor = StallMonitor.start(timer, tick, stepped, THRESHOLD::toNanos, d -> {
                reports.add(d);
                reported.countDown();
            }, CoordMetrics.noop());
            Duration stall = THRESHOLD.plusSeconds(3);
            pass(tick.plus(stall));
            assertTrue(reported.await(10, TimeUnit.SECONDS), "a sample saw the step");
            monitor.close();
            // A sample running at the close may re-queue itself, cancelled: it never runs again.
            assertTrue(timer.getQueue().stream().allMatch(r -> ((Future<?>) r).isCancelled()),
                    "no live sample left scheduled after close: " + timer.getQueue());
            assertEquals(List.of(stall), reports, "exactly the one step, whatever the real delays between samples");
        } finally {
            timer.shutdownNow();
            assertTrue(timer.awaitTermination(10, TimeUnit.SECONDS), "the test's timer stops");
        }
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
