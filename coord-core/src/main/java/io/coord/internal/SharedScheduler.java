package io.coord.internal;

import java.util.concurrent.ScheduledThreadPoolExecutor;

/**
 * The one thread per JVM that waits for the timed work of every {@link ClientTimer}: it keeps the
 * due times of all clients and, when one is due, hands the task to its client's own timer thread
 * (or runs a tick registered as quick and non-blocking, the stall monitor's sample). It never runs
 * a recipe's task itself, so a task that blocks holds up only its own client.
 *
 * <p>Counted: it starts with the first client timer and stops when the last one shuts down, so no
 * thread of Coord's outlives the last client. A client opened after that starts a new one.
 */
final class SharedScheduler {
    static final String THREAD_NAME = "coord-scheduler";
    private static final Object LOCK = new Object();
    /** Guarded by {@link #LOCK}; null while no client timer is open. */
    private static ScheduledThreadPoolExecutor executor;
    /** Guarded by {@link #LOCK}: how many client timers hold {@link #executor}. */
    private static int users;

    private SharedScheduler() {
    }

    /** The scheduler, started if no client timer holds it yet; each call must be paired with one {@link #release}. */
    static ScheduledThreadPoolExecutor acquire() {
        synchronized (LOCK) {
            if (executor == null) {
                executor = newExecutor();
            }
            users++;
            return executor;
        }
    }

    /** Gives back what {@link #acquire} returned; the last user's release stops the thread. */
    static void release(ScheduledThreadPoolExecutor held) {
        synchronized (LOCK) {
            if (held != executor || users == 0) {
                throw new IllegalStateException("released a scheduler not held: " + held);
            }
            if (--users == 0) {
                executor.shutdownNow();
                executor = null;
            }
        }
    }

    private static ScheduledThreadPoolExecutor newExecutor() {
        ScheduledThreadPoolExecutor e = new ScheduledThreadPoolExecutor(1, r -> {
            // Shared by every client: it inherits no thread locals and no class loader of whichever
            // caller happened to open the first client (an application's, in a container).
            // Marked as an event thread: a blocking call here would hold up every client's timers.
            Thread t = new Thread(null, EventThreads.marked(r), THREAD_NAME, 0, false);
            t.setContextClassLoader(SharedScheduler.class.getClassLoader());
            t.setDaemon(true);
            return t;
        });
        // A cancelled timeout (most of them: the call finished first) leaves the queue at once,
        // and with it the task's hold on its client.
        e.setRemoveOnCancelPolicy(true);
        e.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        e.setContinueExistingPeriodicTasksAfterShutdownPolicy(false);
        return e;
    }
}
