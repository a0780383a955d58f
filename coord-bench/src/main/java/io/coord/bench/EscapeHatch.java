package io.coord.bench;

import io.coord.CoordClient;
import io.coord.CoordPath;
import io.coord.ValueTooLargeException;
import org.apache.curator.framework.CuratorFramework;

/**
 * A plain ZooKeeper call made the way a user of Coord's public API makes one: the path validated
 * as a {@link CoordPath}, the value checked against the client's
 * {@link io.coord.CoordSettings#maxValueBytes()}, the call sent through
 * {@link CoordClient#curator()} (the escape hatch). The {@code limits.*} benchmarks measure Coord's
 * floor this way, not through {@code io.coord.internal}: benchmarks measure the API users get
 * (coord-cli's {@code InternalsBoundaryTest} fails the build if a bench reaches for internals).
 */
final class EscapeHatch {
    /** One call through Curator, which declares {@code throws Exception}. */
    @FunctionalInterface
    interface Call<T> {
        T call() throws Exception;
    }

    private final CoordClient client;

    EscapeHatch(CoordClient client) {
        this.client = client;
    }

    CuratorFramework curator() {
        return client.curator();
    }

    /** Throws {@link ValueTooLargeException} if {@code size} is over the client's limit, as a recipe would before sending. */
    void checkSize(CoordPath path, long size) {
        int limit = client.settings().maxValueBytes();
        if (size > limit) {
            throw new ValueTooLargeException(path.value(), size, limit);
        }
    }

    /** Runs {@code call}; a failure ends the benchmark naming the path (interrupts propagate). */
    <T> T call(CoordPath path, Call<T> call) throws InterruptedException {
        try {
            return call.call();
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("benchmark call on " + path + " failed: " + e, e);
        }
    }
}
