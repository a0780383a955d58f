package io.coord.test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * A client's monotonic clock that a test can make jump: this JVM's {@link System#nanoTime()} plus
 * every stall injected so far. Given to a client with {@code CoordSettings.Builder.ticker}, a
 * {@link #stall(Duration)} looks to that client like a GC pause or SIGSTOP of that length (its
 * clock moved on while it did not run), while nothing actually stops: its connection, its pings
 * and the server go on, so what follows the stall is decided by the test, not by the machine's speed.
 *
 * <p>Time between stalls passes as real time does: the ticker stays a valid monotonic clock.
 */
public final class SteppedTicker implements LongSupplier {
    private final AtomicLong stalledNanos = new AtomicLong();

    @Override
    public long getAsLong() {
        return System.nanoTime() + stalledNanos.get();
    }

    /** Moves the clock forward by {@code length} at once. */
    public void stall(Duration length) {
        if (length == null || length.isNegative() || length.isZero()) {
            throw new IllegalArgumentException("a stall must be > 0, got " + length);
        }
        stalledNanos.addAndGet(length.toNanos());
    }

    /** All stalls so far, together. */
    public Duration stalled() {
        return Duration.ofNanos(stalledNanos.get());
    }

    @Override
    public String toString() {
        return "SteppedTicker[stalled " + stalled() + "]";
    }
}
