package io.coord.internal;

import io.coord.CoordMetrics;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Notices when this JVM itself stalled (a long GC pause, SIGSTOP, a starved VM): a sample every
 * tick measures, on the client's {@link Ticker}, how much longer than a tick
 * passed since the previous sample. An oversleep beyond the threshold means every lease of this
 * client may have expired while we were frozen; the callback makes them UNCERTAIN until one round
 * trip confirms each node.
 *
 * <p>No thread of its own: a client's samples run on the JVM's shared scheduling thread (see
 * {@link ClientTimer#tickOnSharedThread}), stopped when the client's timer shuts down, at a fixed
 * delay, so a stall delays the next sample instead of queueing a burst of them.
 * Deciding is separate from scheduling: {@link #sample()} reads the ticker once and compares,
 * so a test steps the ticker and samples, and nothing real decides the outcome.
 *
 * <p>This is the early warning, not the guarantee: fencing tokens stop what slips past it.
 */
public final class StallMonitor implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(StallMonitor.class);

    private final long tickNanos;
    private final Ticker ticker;
    private final LongSupplier thresholdNanos;
    private final Consumer<Duration> onStall;
    private final CoordMetrics metrics;
    /** The previous sample's reading. Only {@link #sample()} touches it, and samples run one at a time. */
    private long last;
    private volatile ScheduledFuture<?> sampling;

    /**
     * @param tick           the delay between samples
     * @param ticker         the clock a stall shows on
     * @param thresholdNanos the oversleep that counts as a stall (read at each sample: it follows the
     *                       negotiated timeout; 0 or less means off, as before the first connection)
     * @param onStall        told the stall's length, on the sampling thread (must be quick, must not block)
     */
    StallMonitor(Duration tick, Ticker ticker, LongSupplier thresholdNanos, Consumer<Duration> onStall, CoordMetrics metrics) {
        if (tick.isNegative() || tick.isZero()) {
            throw new IllegalArgumentException("tick must be > 0, got " + tick);
        }
        this.tickNanos = tick.toNanos();
        this.ticker = ticker;
        this.thresholdNanos = thresholdNanos;
        this.onStall = onStall;
        this.metrics = metrics;
        this.last = ticker.nanos();
    }

    /** A monitor sampling every {@code tick} on {@code timer} until {@link #close()} (or until the timer shuts down). */
    public static StallMonitor start(ScheduledExecutorService timer, Duration tick, Ticker ticker, LongSupplier thresholdNanos,
            Consumer<Duration> onStall, CoordMetrics metrics) {
        return start(sample -> timer.scheduleWithFixedDelay(sample, tick.toNanos(), tick.toNanos(), TimeUnit.NANOSECONDS),
                tick, ticker, thresholdNanos, onStall, metrics);
    }

    /**
     * A monitor sampling every {@code tick} on the JVM's shared scheduling thread (a sample reads a
     * clock and compares: it never blocks), until {@link #close()} or until {@code timer} shuts down.
     * A client's timer thread would otherwise be woken ten times a second for life; this way an idle
     * client holds no timer thread. {@code onStall} runs there too, so it must only hand work on.
     */
    public static StallMonitor start(ClientTimer timer, Duration tick, Ticker ticker, LongSupplier thresholdNanos,
            Consumer<Duration> onStall, CoordMetrics metrics) {
        return start(sample -> timer.tickOnSharedThread(sample, tick.toNanos(), TimeUnit.NANOSECONDS),
                tick, ticker, thresholdNanos, onStall, metrics);
    }

    private static StallMonitor start(java.util.function.Function<Runnable, ScheduledFuture<?>> schedule, Duration tick, Ticker ticker,
            LongSupplier thresholdNanos, Consumer<Duration> onStall, CoordMetrics metrics) {
        StallMonitor monitor = new StallMonitor(tick, ticker, thresholdNanos, onStall, metrics);
        monitor.sampling = schedule.apply(monitor::sample);
        return monitor;
    }

    /**
     * One sample: the time since the previous one, less a tick, is the oversleep; past the threshold
     * it is reported once. Never throws: a periodic task that threw would never run again.
     */
    void sample() {
        try {
            long now = ticker.nanos();
            long oversleep = now - last - tickNanos;
            last = now;
            long threshold = thresholdNanos.getAsLong();
            if (threshold > 0 && oversleep > threshold) {
                report(Duration.ofNanos(oversleep), threshold);
            }
        } catch (RuntimeException e) {
            LOG.warn("stall sample failed", e);
        }
    }

    private void report(Duration stalled, long threshold) {
        LOG.warn("this process stalled for {} ms (threshold {} ms): leases are uncertain until confirmed",
                stalled.toMillis(), Duration.ofNanos(threshold).toMillis());
        metrics.increment("coord.client.stalls");
        metrics.recordTime("coord.client.stall", stalled);
        try {
            onStall.accept(stalled);
        } catch (RuntimeException e) {
            LOG.warn("stall callback failed", e);
        }
    }

    /** Stops sampling; a sample already running finishes. Idempotent. */
    @Override
    public void close() {
        ScheduledFuture<?> s = sampling;
        if (s != null) {
            s.cancel(false);
        }
    }
}
