package io.coord.config;

import io.coord.config.NodeTrack.Content;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * What follows an apply, once the reader has settled: the local snapshot is rewritten and the
 * report republished, on the reader's config thread, {@value #QUIET_MS} ms after the last change
 * (at most {@value #MAX_MS} ms after the first one not yet handled). A burst of updates makes one
 * file write and one report write, and the config thread wakes at most every {@value #QUIET_MS} ms
 * meanwhile. Report writes are kept out of bursts on purpose: ZooKeeper orders a session's write
 * before that session's later reads, so a report sent mid-burst would hold up the next update.
 */
final class FollowUps<T> {
    static final long QUIET_MS = 250;
    static final long MAX_MS = 5000;

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
    private final AtomicBoolean snapshotDirty = new AtomicBoolean();
    private final AtomicBoolean reportDirty = new AtomicBoolean();
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private volatile boolean reporting;
    private volatile long lastChange;
    private volatile long firstUnhandled;

    FollowUps(ScheduledExecutorService thread, LocalSnapshot<T> snapshot, AppliedReporter reporter, boolean report, Source<T> source) {
        this.thread = thread;
        this.snapshot = snapshot;
        this.reporter = reporter;
        this.report = report;
        this.source = source;
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
            schedule(TimeUnit.MILLISECONDS.toNanos(QUIET_MS));
        }
    }

    private void run() {
        long now = System.nanoTime();
        long quiet = TimeUnit.MILLISECONDS.toNanos(QUIET_MS) - (now - lastChange);
        long overdue = TimeUnit.MILLISECONDS.toNanos(MAX_MS) - (now - firstUnhandled);
        if (quiet > 0 && overdue > 0) {
            schedule(Math.min(quiet, overdue));
            return;
        }
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
