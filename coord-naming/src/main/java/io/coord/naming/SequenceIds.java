package io.coord.naming;

import io.coord.CoordClient;
import io.coord.internal.Zk;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

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

    /**
     * {@link #next()} without blocking: the write is sent now (in the background) and the future
     * completes with the ID, on {@link java.util.concurrent.ForkJoinPool#commonPool()}. See
     * {@link #nextAsync(Executor)}.
     */
    CompletableFuture<Long> nextAsync();

    /**
     * {@link #next()} without blocking, with the same guarantees: IDs unique, and in real-time
     * order (a call made after another call's future completed gets a larger ID); calls made one
     * after another from one thread are sent in that order on one session and get increasing IDs.
     * No thread waits per pending call, so many may be in flight: that is where the speed is.
     *
     * <ul>
     *   <li>The future completes on {@code executor}, never on ZooKeeper's or Coord's event thread
     *       (an executor that refuses the task: on the common pool).
     *   <li>Connection loss and session expiry are retried (backoff on the client's timer) until
     *       {@link IdOptions#timeout()} on {@link System#nanoTime()}, then the future fails with
     *       {@link io.coord.CoordTimeoutException}; other errors fail it at once, as in {@code next()}.
     *   <li>Cancelling the future sends nothing more; a write already sent cannot be withdrawn, so
     *       the ID it took is skipped (a gap, never a repeat). No node is left behind: the counter
     *       node is the generator's own.
     * </ul>
     * The first call of a generator reads the counter's nodes once ({@code next()} does too) on
     * {@code executor}; calls made meanwhile wait for it without a thread.
     */
    CompletableFuture<Long> nextAsync(Executor executor);
}
