package io.coord.internal;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The rule "nothing blocking on an event thread", made checkable. An event thread is a client's
 * Coord events thread (it drives every lease of the client: replies, LOST, confirmations), the
 * scheduling thread all clients of the JVM share ({@link SharedScheduler}), ZooKeeper's own event
 * thread (watchers and Curator's background callbacks) or Curator's connection-state thread
 * (where {@link SessionTracker} moves sessions). One blocking call
 * there holds up every event behind it: while the connection is dark, a LOST from a deleted node
 * or an expired session would wait for the call's whole retry loop.
 *
 * <p>{@link Zk#call}, {@link Zk#callUninterruptibly} and {@link Zk#multiOnce} ask
 * {@link #checkMayBlock} first. A blocking call from an event thread is a bug: it is logged as an
 * error with its stack and counted ({@link #violations()}, for tests), and with assertions enabled
 * (as in every test run) it fails with an {@link AssertionError}. Not an exception in production:
 * the call would still complete, only late, and turning a slow path into a failure there would lose
 * a tidy-up; a test run, where assertions are on, fails loudly instead.
 */
public final class EventThreads {
    private static final Logger LOG = LoggerFactory.getLogger(EventThreads.class);
    /** Marks the threads of {@link #newEventsExecutor} and the shared scheduler: a name check alone could be fooled by any thread name. */
    private static final ThreadLocal<Boolean> COORD_EVENTS = ThreadLocal.withInitial(() -> Boolean.FALSE);
    /** ZooKeeper's ClientCnxn names its event thread after the creating thread plus this suffix. */
    private static final String ZOOKEEPER_EVENT_THREAD_SUFFIX = "-EventThread";
    /** Curator's thread for connection-state listeners ("Curator-ConnectionStateManager-0"). */
    private static final String CURATOR_CONNECTION_STATE_THREAD = "ConnectionStateManager";
    private static final AtomicLong VIOLATIONS = new AtomicLong();

    private EventThreads() {
    }

    /**
     * How long an idle serial executor's thread lives on. Most clients are idle most of the time
     * (500 group members, 500 config readers): their events, callback and group threads then hold
     * no thread at all; a burst of work starts one again (tens of microseconds, once per burst).
     */
    static final long IDLE_SECONDS = 5;

    /**
     * A serial executor: one task at a time, in submission order, on at most one thread, which ends
     * after {@value #IDLE_SECONDS} s without work and is started again by the next task. The same
     * contract as {@link Executors#newSingleThreadExecutor}, without a parked thread per idle client.
     */
    public static ExecutorService newSerialExecutor(ThreadFactory threads) {
        ThreadPoolExecutor executor = new ThreadPoolExecutor(1, 1, IDLE_SECONDS, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), threads);
        executor.allowCoreThreadTimeOut(true);
        return executor;
    }

    /** A client's single Coord events thread, marked as an event thread (started on demand, see {@link #newSerialExecutor}). */
    public static ExecutorService newEventsExecutor(String name) {
        return newSerialExecutor(r -> {
            Thread t = new Thread(marked(r), name);
            t.setDaemon(true);
            return t;
        });
    }

    /** {@code body}, run on a thread it marks as an event thread (a thread's body, given to its constructor). */
    static Runnable marked(Runnable body) {
        return () -> {
            COORD_EVENTS.set(Boolean.TRUE);
            body.run();
        };
    }

    /**
     * A client's callback thread: where {@code Lease.ended()} dependents and recipes' release steps
     * run when the lease ended on an event thread. Not an event thread: code here may block (it
     * then delays only other callbacks of the client, never a lease event).
     */
    public static ExecutorService newCallbackExecutor(String name) {
        return newWorkerExecutor(name);
    }

    /**
     * A serial executor (see {@link #newSerialExecutor}) on a daemon thread named {@code name}, not
     * an event thread: a client's callback thread, its timer thread ({@link ClientTimer}), the
     * thread its Curator client runs notifications on.
     */
    public static ExecutorService newWorkerExecutor(String name) {
        return newSerialExecutor(r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        });
    }

    /** Whether the current thread is an event thread (Coord's events or shared scheduling thread, ZooKeeper's, or Curator's connection-state thread). */
    public static boolean current() {
        if (COORD_EVENTS.get()) {
            return true;
        }
        String name = Thread.currentThread().getName();
        return name.endsWith(ZOOKEEPER_EVENT_THREAD_SUFFIX) || name.contains(CURATOR_CONNECTION_STATE_THREAD);
    }

    /** Reports a blocking call about to run on an event thread; see the class comment. */
    static void checkMayBlock(Object what) {
        if (!current()) {
            return;
        }
        VIOLATIONS.incrementAndGet();
        String message = "blocking ZooKeeper call on event thread " + Thread.currentThread().getName() + " (" + what
                + "): every event behind it waits; send it in the background or hand it to a worker";
        LOG.error(message, new IllegalStateException(message));
        assert false : message;
    }

    /** How many blocking calls ran on an event thread in this JVM so far (for tests: should stay 0). */
    public static long violations() {
        return VIOLATIONS.get();
    }
}
