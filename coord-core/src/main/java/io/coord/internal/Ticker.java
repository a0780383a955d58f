package io.coord.internal;

/**
 * A monotonic clock in nanoseconds, with {@link System#nanoTime()}'s meaning: only the difference
 * between two readings means anything, and readings never go backwards. Coord measures its own
 * stalls (and a new lease's grace before its own-node watch) on it rather than on
 * {@code System.nanoTime()} directly, so that a test can make a real client see a stall, a jump of
 * this clock, without stopping a JVM, or decide which lease is past its grace. A client's ticker comes from
 * its settings ({@code CoordSettings.ticker()}, {@code System::nanoTime} unless a test set one).
 */
@FunctionalInterface
public interface Ticker {
    long nanos();
}
