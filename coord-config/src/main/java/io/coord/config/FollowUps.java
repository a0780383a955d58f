package io.coord.config;

import com.google.common.hash.Hashing;
import io.coord.config.NodeTrack.Content;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * What follows an apply, once the reader has settled: the local snapshot is rewritten and the
 * report republished, on the reader's config thread, {@value #QUIET_MS} ms plus this reader's
 * offset after the last change (at most {@value #MAX_MS} ms plus the offset after the first one
 * not yet handled), and at most once per {@value #WINDOW_MS} ms window. A burst of updates makes
 * one file write and one report write, and the config thread wakes at most every
 * {@value #QUIET_MS} ms meanwhile. Report writes are kept out of bursts on purpose: ZooKeeper
 * orders a session's write before that session's later reads, so a report sent mid-burst would
 * hold up the next update.
 *
 * <p>The offset, in [0, {@value #WINDOW_MS}) ms, is a stable hash of the instance id and the key
 * ({@link #offsetMs}): N readers of one change would otherwise all write their reports at the
 * same moment ({@value #QUIET_MS} ms after it, or {@value #MAX_MS} ms into a steady stream of
 * updates), and the next change's propagation would queue behind N writes on the server. Spread
 * over the window, a change meets about N x its propagation time / {@value #WINDOW_MS} ms of them.
 */
final class FollowUps<T> {
    static final long QUIET_MS = 250;
    static final long MAX_MS = 5000;
    /** The window report writes are spread over, and the shortest time between two follow-ups of one reader. */
    static final long WINDOW_MS = 1000;

    /** What the reader holds right now, as the follow-ups need it. */
    interface Source<T> {
        /** The value in effect, or null. */
        Versioned<T> current();

        boolean stale();

        /** The content in effect for each key (taken under the state lock). */
        Map<String, Content> contents();

        boolean closed();
    }

    private final ScheduledExecutorService thread;
    private final LocalSnapshot<T> snapshot;
    private final AppliedReporter reporter;
    private final boolean report;
    private final Source<T> source;
    private final long offsetNanos;
    private final AtomicBoolean snapshotDirty = new AtomicBoolean();
    private final AtomicBoolean reportDirty = new AtomicBoolean();
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private volatile boolean reporting;
    private volatile long lastChange;
    private volatile long firstUnhandled;
    /** When the follow-ups last ran (System.nanoTime), or a window before the reader started. */
    private volatile long lastRun = System.nanoTime() - TimeUnit.MILLISECONDS.toNanos(WINDOW_MS);

    FollowUps(ScheduledExecutorService thread, LocalSnapshot<T> snapshot, AppliedReporter reporter, boolean report, long offsetMs,
            Source<T> source) {
        if (offsetMs < 0 || offsetMs >= WINDOW_MS) {
            throw new IllegalArgumentException("follow-up offset must be within [0, " + WINDOW_MS + ") ms, got " + offsetMs);
        }
        this.offsetNanos = TimeUnit.MILLISECONDS.toNanos(offsetMs);
        this.thread = thread;
        this.snapshot = snapshot;
        this.reporter = reporter;
        this.report = report;
        this.source = source;
    }

    /**
     * This reader's offset in the window, in [0, {@value #WINDOW_MS}) ms: murmur3 (32-bit, seed 1,
     * so not the canary bucket's) of {@code instanceId/keyPath}. Stable across restarts and JVMs;
     * readers of one key have distinct instance ids (each has its own report node), so their
     * offsets spread over the window.
     */
    static long offsetMs(String instanceId, String keyPath) {
        int hash = Hashing.murmur3_32_fixed(1).hashString(instanceId + "/" + keyPath, StandardCharsets.UTF_8).asInt();
        return Integer.toUnsignedLong(hash) % WINDOW_MS;
    }

    /** The reader is connected: reports can be written from now on. */
    void startReporting() {
        reporting = true;
    }

    /** A new value is in effect: snapshot and report it. */
    void valueChanged() {
        snapshotDirty.set(true);
        reportDirty.set(true);
        soon();
    }

    /** The report is out of date (stale flag changed, new session): write it again. */
    void reportAgain() {
        reportDirty.set(true);
        soon();
    }

    private void soon() {
        long now = System.nanoTime();
        lastChange = now;
        if (scheduled.compareAndSet(false, true)) {
            firstUnhandled = now;
            schedule(Math.max(0, due() - now));
        }
    }

    /**
     * When the follow-ups are due (System.nanoTime): the quiet time plus the offset after the last
     * change, and a window after the last run, but no later than the longest wait plus the offset
     * after the first change not yet handled.
     */
    private long due() {
        long settled = Math.max(lastChange + TimeUnit.MILLISECONDS.toNanos(QUIET_MS) + offsetNanos,
                lastRun + TimeUnit.MILLISECONDS.toNanos(WINDOW_MS));
        return Math.min(settled, firstUnhandled + TimeUnit.MILLISECONDS.toNanos(MAX_MS) + offsetNanos);
    }

    private void run() {
        long now = System.nanoTime();
        long wait = due() - now;
        if (wait > 0) {
            schedule(wait);
            return;
        }
        lastRun = now;
        scheduled.set(false);
        Versioned<T> current = source.current();
        if (source.closed() || current == null || current.origin() == Versioned.Origin.SNAPSHOT) {
            return;
        }
        if (snapshot != null && current.origin() != Versioned.Origin.DEFAULT && snapshotDirty.getAndSet(false)) {
            snapshot.save(current);
        }
        if (report && reporting && reportDirty.getAndSet(false)) {
            reporter.publish(source.contents(), source.stale());
        }
    }

    private void schedule(long delayNanos) {
        try {
            thread.schedule(this::run, delayNanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            scheduled.set(false); // closed
        }
    }
}
