package io.coord.bench;

import java.util.List;

/**
 * One benchmark: our code path beside its peer, on the server the {@link BenchContext} gives.
 * Implementations use {@link BenchContext#alternate} so ours and the peer run in alternating
 * rounds of {@link BenchContext#ops} operations, and report medians over those rounds.
 *
 * <p>To add one, implement this and list it in {@link Benchmarks#all()}.
 */
public interface Benchmark {
    /** Dotted name, unique in the registry, e.g. {@code limits.getData} or {@code lock.uncontended}. */
    String name();

    /** One line saying what is measured and against which peer. */
    String description();

    /**
     * Runs the benchmark and returns its figures. Everything it opens it closes, also on failure.
     *
     * @throws InterruptedException if interrupted; the run is abandoned
     */
    List<Figure> run(BenchContext context) throws InterruptedException;
}
