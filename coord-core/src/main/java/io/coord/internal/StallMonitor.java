package io.coord.internal;

import io.coord.CoordMetrics;
import java.time.Duration;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Notices when this JVM itself stalled (a long GC pause, SIGSTOP, a starved VM): a daemon thread
 * sleeps a short tick and measures, on the monotonic clock, how much longer than asked it slept.
 * An oversleep beyond the threshold means every lease of this client may have expired while we
 * were frozen; the callback makes them UNCERTAIN until one round trip confirms each node.
 *
 * <p>This is the early warning, not the guarantee: fencing tokens stop what slips past it.
 */
public final class StallMonitor implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(StallMonitor.class);

    private final Duration tick;
    private final LongSupplier thresholdNanos;
    private final Consumer<Duration> onStall;
    private final CoordMetrics metrics;
    private final Thread thread;
    private volatile boolean running = true;

    /**
     * @param tick           how often to sample
     * @param thresholdNanos the oversleep that counts as a stall (read each time: it follows the negotiated timeout)
     * @param onStall        told the stall's length, on the monitor thread (must be quick)
     */
    public StallMonitor(String name, Duration tick, LongSupplier thresholdNanos, Consumer<Duration> onStall, CoordMetrics metrics) {
        this.tick = tick;
        this.thresholdNanos = thresholdNanos;
        this.onStall = onStall;
        this.metrics = metrics;
        this.thread = new Thread(this::run, name);
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        long tickNanos = tick.toNanos();
        long last = System.nanoTime();
        while (running) {
            try {
                Thread.sleep(tick.toMillis());
            } catch (InterruptedException e) {
                return;
            }
            long now = System.nanoTime();
            long oversleep = now - last - tickNanos;
            last = now;
            long threshold = thresholdNanos.getAsLong();
            if (threshold > 0 && oversleep > threshold) {
                Duration stalled = Duration.ofNanos(oversleep);
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
        }
    }

    @Override
    public void close() {
        running = false;
        thread.interrupt();
        try {
            thread.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
