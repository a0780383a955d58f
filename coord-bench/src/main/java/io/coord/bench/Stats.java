package io.coord.bench;

import java.util.List;
import java.util.function.ToDoubleFunction;

/** Medians over rounds. */
final class Stats {
    private Stats() {
    }

    /** The median of {@code f} over {@code rounds} (the mean of the middle two for an even count). */
    static <T> double median(List<T> rounds, ToDoubleFunction<T> f) {
        if (rounds.isEmpty()) {
            throw new IllegalArgumentException("median of no rounds");
        }
        double[] values = rounds.stream().mapToDouble(f).sorted().toArray();
        int mid = values.length / 2;
        return values.length % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
    }
}
