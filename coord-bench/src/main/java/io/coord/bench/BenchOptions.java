package io.coord.bench;

import java.nio.file.Path;
import java.util.List;

/**
 * How to run the benchmarks.
 *
 * @param names   benchmarks or prefixes to run ({@link Benchmarks#select}); empty runs all
 * @param ops     operations per round for every benchmark; 0 keeps each benchmark's default
 * @param rounds  measured rounds per side, after one warm-up round each
 * @param results the JSON-lines file to append to; null for {@code coord-bench/target/bench/results.jsonl}
 * @param verbose whether to show every round's results as progress
 */
public record BenchOptions(List<String> names, int ops, int rounds, Path results, boolean verbose) {
    public static final int DEFAULT_ROUNDS = 7;

    public BenchOptions {
        names = names == null ? List.of() : List.copyOf(names);
        if (ops < 0) {
            throw new IllegalArgumentException("ops must be >= 0 (0 = each benchmark's default), got " + ops);
        }
        if (rounds < 1) {
            throw new IllegalArgumentException("rounds must be >= 1, got " + rounds);
        }
    }

    /** Every benchmark, default sizes, default results file. */
    public static BenchOptions defaults() {
        return new BenchOptions(List.of(), 0, DEFAULT_ROUNDS, null, false);
    }
}
