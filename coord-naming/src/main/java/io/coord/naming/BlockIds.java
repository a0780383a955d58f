package io.coord.naming;

import io.coord.CoordClient;
import io.coord.internal.Zk;

/**
 * IDs handed out from blocks reserved in ZooKeeper (segment mode, as in Meituan Leaf): one
 * compare-and-set on a counter node reserves {@link IdOptions#blockSize()} IDs, which this client
 * then hands out from memory. When {@link IdOptions#prefetchAt()} of the current block is used,
 * the next block is reserved in the background, so {@link #next()} almost never waits on the
 * network.
 *
 * <pre>{@code
 * try (BlockIds ids = BlockIds.open(client, "invoices", IdOptions.builder().blockSize(50_000).build())) {
 *     long id = ids.next();
 * }
 * }</pre>
 *
 * <ul>
 *   <li>Unique across all clients, also after the counter node (or its parent) is deleted and
 *       re-created, after a leader change, and after a client dies: a dead client's unused IDs are
 *       a gap, never handed out again.</li>
 *   <li>Increasing per client: if one {@code next()} on this object returned before another began,
 *       the later one returns more. Across clients there is no order (blocks interleave).</li>
 *   <li>Not dense: each client skips the rest of its blocks when it closes or dies.</li>
 * </ul>
 *
 * <p>Thread-safe. {@link #close()} stops the background reservation; the unused rest of the
 * current and the prefetched block are given up.
 */
public interface BlockIds extends AutoCloseable {
    /** Opens the generator {@code name} (one path segment) with default options. No I/O happens here. */
    static BlockIds open(CoordClient client, String name) {
        return open(client, name, IdOptions.defaults());
    }

    static BlockIds open(CoordClient client, String name, IdOptions options) {
        return new ZkBlockIds(Zk.of(client), name, options, System::nanoTime, IdRule.ROLLOVER_VERSION);
    }

    String name();

    /**
     * The next ID: from memory, or, when the current block is spent and the next is not there yet,
     * after waiting for its reservation (at most {@link IdOptions#timeout()}, through connection
     * loss, leader elections, session expiry and compare-and-set conflicts, then
     * {@link io.coord.CoordTimeoutException}).
     *
     * @throws InterruptedException if interrupted while waiting for a block
     * @throws IllegalStateException after {@link #close()}
     */
    long next() throws InterruptedException;

    /** Stops the background reservation. Idempotent. Unused IDs are given up (a gap). */
    @Override
    void close();
}
