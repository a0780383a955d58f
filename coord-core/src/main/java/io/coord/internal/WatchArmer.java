package io.coord.internal;

import java.time.Duration;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Arms the own-node watch of leases that live past a short grace, so that short leases — an
 * uncontended lock taken and given back, a queue task claimed and completed — never send it.
 * Measured here: the watch is one more request in the session's pipeline, and ZooKeeper serves a
 * session's requests in order, so even sent in the background it lengthened an uncontended
 * acquire+release by about a third on a busy machine. What the grace costs: a node deleted by
 * someone else within it is noticed when the watch is armed (its read finds the node gone → LOST),
 * at most {@link #GRACE} plus one {@link #TICK} after the lease started; guarded writes are checked
 * by the server all along, and a session's end is never delayed.
 *
 * <p>Leases join in start order, all with the same grace, so the queue is ordered by due time:
 * one daemon thread for the process takes the due ones off its head every tick (a lease already
 * ended is simply dropped: closing costs nothing here). The thread exists only while leases are
 * queued (it ends after ten idle seconds and starts again with the next lease).
 */
final class WatchArmer {
    static final Duration GRACE = Duration.ofMillis(50);
    static final Duration TICK = Duration.ofMillis(25);
    private static final Logger LOG = LoggerFactory.getLogger(WatchArmer.class);
    private static final long IDLE_MS = 10_000;

    private record Due(NodeLease lease, long dueNanos) {
    }

    private static final ConcurrentLinkedQueue<Due> QUEUE = new ConcurrentLinkedQueue<>();
    private static final AtomicBoolean RUNNING = new AtomicBoolean();

    private WatchArmer() {
    }

    /** {@code lease} started now: arm its watch after the grace, unless it has ended (or armed) by then. */
    static void armLater(NodeLease lease) {
        QUEUE.offer(new Due(lease, System.nanoTime() + GRACE.toNanos()));
        if (!RUNNING.get() && RUNNING.compareAndSet(false, true)) {
            Thread t = new Thread(WatchArmer::sweep, "coord-lease-watch");
            t.setDaemon(true);
            t.start();
        }
    }

    private static void sweep() {
        long idle = 0;
        while (true) {
            try {
                Thread.sleep(TICK.toMillis());
            } catch (InterruptedException e) {
                RUNNING.set(false);
                return;
            }
            if (QUEUE.isEmpty()) {
                idle += TICK.toMillis();
                if (idle >= IDLE_MS) {
                    RUNNING.set(false);
                    // A lease queued just now either started a new sweeper or finds this one again.
                    if (QUEUE.isEmpty() || !RUNNING.compareAndSet(false, true)) {
                        return;
                    }
                    idle = 0;
                }
                continue;
            }
            idle = 0;
            long now = System.nanoTime();
            Due head;
            while ((head = QUEUE.peek()) != null && now - head.dueNanos() >= 0) {
                QUEUE.poll();
                try {
                    head.lease().armWatch();
                } catch (RuntimeException e) {
                    LOG.debug("could not arm the watch of {}", head.lease(), e);
                }
            }
        }
    }
}
