package io.coord.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A client's timer ({@code Zk.timer()}): its tasks run one at a time, in due order, on the
 * client's own timer thread, as on a single-threaded {@link ScheduledThreadPoolExecutor}. What
 * differs is who waits: the JVM's one {@link SharedScheduler} thread keeps every client's due
 * times, and the client's thread ({@code coord-timer-N}) exists only while it has work: it starts
 * for a due task and ends after {@value EventThreads#IDLE_SECONDS} s without one. An idle client
 * (a group member, a config reader) therefore holds no timer thread, where it used to hold one for
 * life. A task that blocks still holds up only its own client: the shared thread hands tasks on
 * and never runs them ({@link #tickOnSharedThread} is the one, documented, exception).
 *
 * <p>Shutting down (either way) cancels every task not yet run, periodic ones included (as an
 * executor with both after-shutdown policies off), refuses new ones with
 * {@link RejectedExecutionException}, and gives the shared thread back: the last client's
 * shutdown stops it.
 */
public final class ClientTimer extends AbstractExecutorService implements ScheduledExecutorService {
    /** Far enough ahead never to overflow {@code System.nanoTime()} arithmetic. */
    private static final long MAX_DELAY_NANOS = Long.MAX_VALUE >> 1;

    private final ScheduledThreadPoolExecutor shared;
    private final ExecutorService thread;
    /** What is scheduled and not finished: cancelled at shutdown, so nothing of this client stays queued on the shared thread. */
    private final Set<Future<?>> scheduled = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean shutdown = new AtomicBoolean();

    private ClientTimer(String threadName) {
        this.thread = EventThreads.newWorkerExecutor(threadName);
        this.shared = SharedScheduler.acquire();
    }

    /** A timer whose tasks run on a thread named {@code threadName}; shut it down with its client. */
    public static ClientTimer open(String threadName) {
        return new ClientTimer(threadName);
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        return add(new Task<Void>(Executors.callable(command, null), dueIn(delay, unit), 0));
    }

    @Override
    public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
        return add(new Task<>(callable, dueIn(delay, unit), 0));
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
        return add(new Task<Void>(Executors.callable(command, null), dueIn(initialDelay, unit), positive(period, unit)));
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
        return add(new Task<Void>(Executors.callable(command, null), dueIn(initialDelay, unit), -positive(delay, unit)));
    }

    /**
     * Runs {@code tick} on the shared thread itself, every {@code delay} after the previous run
     * ended, until the returned future is cancelled or this timer shuts down. Only for a tick that
     * takes microseconds and never blocks (the stall monitor's sample, which reads a clock): a slow
     * one would delay every client's timers. Anything else goes through {@link #schedule}.
     */
    public ScheduledFuture<?> tickOnSharedThread(Runnable tick, long delay, TimeUnit unit) {
        checkOpen();
        ScheduledFuture<?> ticks = shared.scheduleWithFixedDelay(tick, delay, delay, unit);
        scheduled.add(ticks);
        if (shutdown.get()) {
            ticks.cancel(false); // shut down meanwhile, possibly after its sweep of what is scheduled
        }
        return ticks;
    }

    /** Runs {@code command} on the client's timer thread, after the tasks already due. */
    @Override
    public void execute(Runnable command) {
        checkOpen();
        thread.execute(command);
    }

    private <V> Task<V> add(Task<V> task) {
        checkOpen();
        scheduled.add(task);
        try {
            task.arm();
        } catch (RejectedExecutionException closed) {
            scheduled.remove(task);
            throw new RejectedExecutionException("the client's timer is shut down", closed);
        }
        if (shutdown.get()) {
            task.cancel(false); // shut down meanwhile, possibly after its sweep of what is scheduled
        }
        return task;
    }

    private void checkOpen() {
        if (shutdown.get()) {
            throw new RejectedExecutionException("the client's timer is shut down");
        }
    }

    private static long dueIn(long delay, TimeUnit unit) {
        return System.nanoTime() + Math.min(unit.toNanos(Math.max(delay, 0)), MAX_DELAY_NANOS);
    }

    private static long positive(long period, TimeUnit unit) {
        if (period <= 0) {
            throw new IllegalArgumentException("period must be > 0, got " + period + " " + unit);
        }
        return Math.min(unit.toNanos(period), MAX_DELAY_NANOS);
    }

    @Override
    public void shutdown() {
        cancelAll();
        thread.shutdown();
    }

    /** Cancels what is scheduled and interrupts a task running on the client's timer thread. */
    @Override
    public List<Runnable> shutdownNow() {
        List<Runnable> neverRan = cancelAll();
        neverRan.addAll(thread.shutdownNow());
        return neverRan;
    }

    private List<Runnable> cancelAll() {
        List<Runnable> neverRan = new ArrayList<>();
        if (shutdown.compareAndSet(false, true)) {
            for (Future<?> f : scheduled) {
                if (f.cancel(false) && f instanceof Task<?> task) {
                    neverRan.add(task);
                }
            }
            scheduled.clear();
            SharedScheduler.release(shared);
        }
        return neverRan;
    }

    @Override
    public boolean isShutdown() {
        return shutdown.get();
    }

    @Override
    public boolean isTerminated() {
        return shutdown.get() && thread.isTerminated();
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        return thread.awaitTermination(timeout, unit);
    }

    /**
     * One scheduled task: the shared thread's trigger hands it to the client's thread when due; a
     * periodic one arms its next trigger after each run there.
     */
    private final class Task<V> extends FutureTask<V> implements ScheduledFuture<V> {
        /** 0: runs once; > 0: at this fixed rate; < 0: with a fixed delay of its negation after each run. */
        private final long period;
        private volatile long due;
        /** The current trigger on the shared thread; cancelled with the task. */
        private volatile ScheduledFuture<?> trigger;

        Task(Callable<V> callable, long due, long period) {
            super(callable);
            this.due = due;
            this.period = period;
        }

        void arm() {
            trigger = shared.schedule(this::dispatch, due - System.nanoTime(), TimeUnit.NANOSECONDS);
            if (isDone()) {
                trigger.cancel(false); // cancelled while arming: done() may have seen the previous trigger
            }
        }

        /** On the shared thread: hands the task to its client's thread, never runs it here. */
        private void dispatch() {
            if (isDone()) {
                return;
            }
            try {
                thread.execute(this);
            } catch (RejectedExecutionException closed) {
                cancel(false);
            }
        }

        /** On the client's timer thread. */
        @Override
        public void run() {
            if (period == 0) {
                super.run();
                return;
            }
            if (super.runAndReset() && !shutdown.get()) {
                due = period > 0 ? due + period : System.nanoTime() - period;
                try {
                    arm();
                } catch (RejectedExecutionException closed) {
                    cancel(false);
                }
            }
        }

        @Override
        protected void done() {
            scheduled.remove(this);
            ScheduledFuture<?> t = trigger;
            if (t != null) {
                t.cancel(false);
            }
        }

        @Override
        public long getDelay(TimeUnit unit) {
            return unit.convert(due - System.nanoTime(), TimeUnit.NANOSECONDS);
        }

        @Override
        public int compareTo(Delayed other) {
            return other == this ? 0 : Long.compare(getDelay(TimeUnit.NANOSECONDS), other.getDelay(TimeUnit.NANOSECONDS));
        }
    }
}
