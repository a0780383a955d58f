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
 * @param scale   whether to run the scale curves ({@code --scale}): {@code names} are then recipes
 *                ({@code lock}, {@code membership}, ...), and the tables and plots go into docs/
 */
public record BenchOptions(List<String> names, int ops, int rounds, Path results, boolean verbose, boolean scale) {
    public static final int DEFAULT_ROUNDS = 7;
    /** Measured rounds per side of a scale curve: hundreds of clients per round, so one unless asked. */
    public static final int SCALE_ROUNDS = 1;

    public BenchOptions {
        names = names == null ? List.of() : List.copyOf(names);
        if (ops < 0) {
            throw new IllegalArgumentException("ops must be >= 0 (0 = each benchmark's default), got " + ops);
        }
        if (rounds < 1) {
            throw new IllegalArgumentException("rounds must be >= 1, got " + rounds);
        }
    }

    /** Without the scale curves. */
    public BenchOptions(List<String> names, int ops, int rounds, Path results, boolean verbose) {
        this(names, ops, rounds, results, verbose, false);
    }

    /** {@code rounds} null means the default: {@value #DEFAULT_ROUNDS}, or {@value #SCALE_ROUNDS} with {@code scale}. */
    public static BenchOptions of(List<String> names, int ops, Integer rounds, Path results, boolean verbose, boolean scale) {
        return new BenchOptions(names, ops, rounds != null ? rounds : scale ? SCALE_ROUNDS : DEFAULT_ROUNDS, results, verbose, scale);
    }

    /**
     * Checks the names before anything starts: benchmarks or prefixes, or with {@code scale} recipes.
     *
     * @throws IllegalArgumentException naming the unknown name and listing the known ones
     */
    public void validateNames() {
        if (scale) {
            ScaleRecipe.select(names);
        } else {
            Benchmarks.select(names);
        }
    }

    /** Every benchmark, default sizes, default results file. */
    public static BenchOptions defaults() {
        return new BenchOptions(List.of(), 0, DEFAULT_ROUNDS, null, false);
    }
}
