package io.coord.internal;

import java.time.Duration;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
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
 * <p>One per client, on the client's own timer ({@link ClientTimer}, shut down with the client: no
 * thread outlives it). Leases join in start order, all with the same grace, so the queue is ordered by due time: a
 * sweep takes the due ones off its head (a lease already ended is simply dropped: closing costs
 * nothing here). A sweep is scheduled only while leases are queued, at most one at a time, so a
 * lease costs a queue insert and no thread wake-up of its own.
 *
 * <p>Due times are on the client's {@link Ticker}, not {@link System#nanoTime()} directly: the timer
 * only says when to look, the ticker decides what is due, so a test that steps the ticker decides
 * which lease is past its grace, whatever the machine's speed.
 */
final class WatchArmer {
    static final Duration GRACE = Duration.ofMillis(50);
    static final Duration TICK = Duration.ofMillis(25);
    private static final Logger LOG = LoggerFactory.getLogger(WatchArmer.class);

    private record Due(NodeLease lease, long dueNanos) {
    }

    private final ScheduledExecutorService timer;
    private final Ticker ticker;
    private final ConcurrentLinkedQueue<Due> queue = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean scheduled = new AtomicBoolean();
    /** Sweeps done so far: a test learns from it that the timer has looked (what was due is the ticker's to say). */
    private final AtomicLong sweeps = new AtomicLong();

    WatchArmer(ScheduledExecutorService timer, Ticker ticker) {
        this.timer = timer;
        this.ticker = ticker;
    }

    /** {@code lease} started now: arm its watch after the grace, unless it has ended (or armed) by then. */
    void armLater(NodeLease lease) {
        queue.offer(new Due(lease, ticker.nanos() + GRACE.toNanos()));
        scheduleIfIdle(GRACE.toNanos());
    }

    private void scheduleIfIdle(long delayNanos) {
        if (!scheduled.get() && scheduled.compareAndSet(false, true)) {
            try {
                timer.schedule(this::sweep, Math.max(delayNanos, TICK.toNanos()), TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException closed) {
                // the client is closing: its leases end with it
            }
        }
    }

    private void sweep() {
        long now = ticker.nanos();
        Due head;
        while ((head = queue.peek()) != null && now - head.dueNanos() >= 0) {
            queue.poll();
            try {
                head.lease().armWatch();
            } catch (RuntimeException e) {
                LOG.debug("could not arm the watch of {}", head.lease(), e);
            }
        }
        sweeps.incrementAndGet();
        scheduled.set(false);
        // A lease queued while this sweep ran either scheduled the next sweep or finds it here.
        Due next = queue.peek();
        if (next != null) {
            scheduleIfIdle(next.dueNanos() - ticker.nanos());
        }
    }

    /** How many sweeps have run (each took off every lease due on the ticker at its start). */
    long sweeps() {
        return sweeps.get();
    }

    /** How many leases wait for a sweep to find them due. */
    int pending() {
        return queue.size();
    }
}
