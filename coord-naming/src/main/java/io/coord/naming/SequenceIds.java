package io.coord.naming;

import io.coord.CoordClient;
import io.coord.internal.Zk;

/**
 * Globally unique IDs, strictly increasing across all clients in real-time order, one ZooKeeper
 * write per ID. If {@code next()} returned {@code a} before another {@code next()} (in any client)
 * was called, that call returns more than {@code a}. IDs are consecutive while nobody else writes
 * the counter node; an ID is skipped (never repeated) when a write's reply is lost.
 *
 * <pre>{@code
 * SequenceIds orders = SequenceIds.open(client, "orders");
 * long id = orders.next();
 * }</pre>
 *
 * <p>IDs are 64-bit and start just above the zxid at which the counter node was created (on a
 * fresh ensemble about 4.3 billion), because that is what makes them survive the node being
 * deleted and re-created: see {@code package-info}. They never overflow silently: the counter
 * node is rolled over long before ZooKeeper's 32-bit version could wrap.
 *
 * <p>Thread-safe. Holds no resources, so there is nothing to close.
 */
public interface SequenceIds {
    /** Opens the generator {@code name} (one path segment) with default options. No I/O happens here. */
    static SequenceIds open(CoordClient client, String name) {
        return open(client, name, IdOptions.defaults());
    }

    /** Opens the generator {@code name} with {@code options} (only the timeout and backoff apply). */
    static SequenceIds open(CoordClient client, String name, IdOptions options) {
        return new ZkSequenceIds(Zk.of(client), name, options, System::nanoTime, IdRule.ROLLOVER_VERSION);
    }

    String name();

    /**
     * The next ID. Blocks through connection loss, leader elections and session expiry (the
     * generator is bound to no session) until {@link IdOptions#timeout()}, then throws
     * {@link io.coord.CoordTimeoutException}. Other errors (authorization) are thrown at once.
     *
     * @throws InterruptedException if interrupted while waiting; an ID may have been consumed (a gap)
     */
    long next() throws InterruptedException;
}
