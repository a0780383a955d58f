package io.coord.bench;

import java.util.Arrays;

/** Per-operation latencies of one round, in nanoseconds; percentiles by nearest rank. */
final class Latencies {
    private final long[] nanos;
    private int count;

    Latencies(int capacity) {
        this.nanos = new long[capacity];
    }

    void add(long elapsedNanos) {
        nanos[count++] = elapsedNanos;
    }

    int count() {
        return count;
    }

    /** The {@code q}-quantile (0 < q <= 1) in milliseconds, nearest-rank; 0 with no samples. */
    double percentileMs(double q) {
        if (q <= 0 || q > 1) {
            throw new IllegalArgumentException("quantile must be in (0, 1], got " + q);
        }
        if (count == 0) {
            return 0;
        }
        long[] sorted = Arrays.copyOf(nanos, count);
        Arrays.sort(sorted);
        int rank = (int) Math.ceil(q * count);
        return sorted[Math.max(0, rank - 1)] / 1e6;
    }
}
