package io.coord.test;

import java.time.Duration;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Bounded waits for tests. Every wait has a deadline; none is open-ended.
 *
 * <p>Deadlines are multiplied by the system property {@code coord.test.timing} (default 1.0), so a
 * slow CI machine can be given more room ({@code -Dcoord.test.timing=2}) without editing tests.
 * The multiplier only stretches bounds; it never makes a test wait when the condition already
 * holds.
 *
 * <p>Polling is the synchronization here on purpose: the condition is read from the system under
 * test (a session state, a node's existence) and has no callback to hand.
 */
public final class Awaits {
    /** The property holding the timing multiplier. */
    public static final String TIMING_PROPERTY = "coord.test.timing";

    private static final long POLL_MILLIS = 20;

    private Awaits() {
    }

    /** The timing multiplier ({@value #TIMING_PROPERTY}); at least 0.1, default 1.0. */
    public static double timing() {
        String value = System.getProperty(TIMING_PROPERTY);
        if (value == null || value.isBlank()) {
            return 1.0;
        }
        try {
            double factor = Double.parseDouble(value.trim());
            if (!(factor >= 0.1) || Double.isInfinite(factor)) {
                throw new IllegalArgumentException(TIMING_PROPERTY + " must be a number >= 0.1, got '" + value + "'");
            }
            return factor;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(TIMING_PROPERTY + " must be a number >= 0.1, got '" + value + "'", e);
        }
    }

    /** {@code d} stretched by the timing multiplier. */
    public static Duration scaled(Duration d) {
        return Duration.ofNanos((long) (d.toNanos() * timing()));
    }

    /**
     * Waits until {@code condition} holds, at most {@code timeout} (scaled). Fails with an
     * {@link AssertionError} naming {@code what} and the bound when it does not.
     *
     * @return how long the wait took
     */
    public static Duration until(String what, Duration timeout, BooleanSupplier condition) {
        return untilValue(what, timeout, () -> condition.getAsBoolean() ? Optional.of(Boolean.TRUE) : Optional.empty()).elapsed();
    }

    /**
     * Waits until {@code probe} yields a value, at most {@code timeout} (scaled), and returns it.
     * An exception thrown by the probe counts as "not yet"; the last one is attached to the failure.
     */
    public static <T> T value(String what, Duration timeout, Supplier<Optional<T>> probe) {
        return untilValue(what, timeout, probe).value();
    }

    /** A value and how long it took to get it. */
    public record Timed<T>(T value, Duration elapsed) {
    }

    /** Like {@link #value} but also says how long the wait took (for reporting measured figures). */
    public static <T> Timed<T> untilValue(String what, Duration timeout, Supplier<Optional<T>> probe) {
        Duration bound = scaled(timeout);
        long start = System.nanoTime();
        long deadline = start + bound.toNanos();
        RuntimeException last = null;
        while (true) {
            try {
                Optional<T> result = probe.get();
                if (result.isPresent()) {
                    return new Timed<>(result.get(), Duration.ofNanos(System.nanoTime() - start));
                }
            } catch (RuntimeException e) {
                last = e;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                AssertionError failure = new AssertionError("timed out after " + bound.toMillis() + " ms waiting for " + what);
                if (last != null) {
                    failure.initCause(last);
                }
                throw failure;
            }
            sleep(Math.min(POLL_MILLIS, Math.max(1, left / 1_000_000)), what);
        }
    }

    /**
     * Asserts that {@code condition} stays false for the whole of {@code period} (not scaled: a
     * longer period would only make the check weaker, never flakier). Used to show that something
     * does <em>not</em> happen, e.g. a paused process does not answer.
     */
    public static void never(String what, Duration period, BooleanSupplier condition) {
        long deadline = System.nanoTime() + period.toNanos();
        while (true) {
            if (condition.getAsBoolean()) {
                throw new AssertionError("expected never, but it happened: " + what);
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return;
            }
            sleep(Math.min(POLL_MILLIS, Math.max(1, left / 1_000_000)), what);
        }
    }

    /**
     * Lets {@code period} of wall time pass (not scaled). Only for a fault that must <em>last</em>
     * some time (a freeze held past the session timeout), never to wait for another thread.
     */
    public static void hold(Duration period) {
        long deadline = System.nanoTime() + period.toNanos();
        long left;
        while ((left = deadline - System.nanoTime()) > 0) {
            sleep(Math.max(1, Math.min(left / 1_000_000, 100)), "a fault to last " + period.toMillis() + " ms");
        }
    }

    private static void sleep(long millis, String what) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while waiting for " + what, e);
        }
    }
}
