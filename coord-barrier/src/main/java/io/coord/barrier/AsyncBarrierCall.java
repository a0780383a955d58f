package io.coord.barrier;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One async barrier call ({@code enterAsync}, {@code leaveAsync}) in flight. It runs the same
 * steps as the sync call ({@link Entering#step()}, {@link Leaving#step()}: the same reads, the
 * same {@link BarrierRule}, the same server facts), on the client's callback thread, for as long as a step has
 * something to send or decide. Where the sync call parks its thread, the step unwinds with
 * {@link Waiting.Suspend} and the call holds no thread at all: the call's {@code WakeSignal}
 * (a watch, a session change, the seat's lease) or the client's timer (the deadline, a retry
 * pause) starts the next step. So a pending call costs a watch, not a thread.
 *
 * <p>States: RUNNING (a step is on the callback thread) → WAITING (no thread) → RUNNING ... → ENDED.
 * The moves happen under {@link #lock}, where nothing blocks. The caller's future completes on
 * the caller's executor, never on ZooKeeper's or Coord's event thread (nor on the callback
 * thread, unless the executor refuses the task). Cancelling the future ends the call at the next step
 * boundary with {@link Steps#cancel()}, which withdraws what the call queued.
 */
final class AsyncBarrierCall<T> {
    private static final Logger LOG = LoggerFactory.getLogger(AsyncBarrierCall.class);

    /** What the call does: its step (may unwind with {@link Waiting.Suspend}) and its withdrawal. */
    interface Steps<T> {
        T step() throws InterruptedException;

        /** The caller cancelled: withdraw what the call queued (between steps; may take a round trip). */
        void cancel() throws InterruptedException;
    }

    private enum State { RUNNING, WAITING, ENDED }

    private final Waiting call;
    private final Steps<T> steps;
    private final Executor executor;
    /** A value the caller will never see (it cancelled while the last step succeeded): released here. */
    private final Consumer<T> unwanted;
    private final CompletableFuture<T> result = new CompletableFuture<>();
    private final Object lock = new Object();
    private State state = State.RUNNING; // guarded by lock
    private boolean cancelled; // guarded by lock
    private long waitId; // guarded by lock
    private ScheduledFuture<?> timer; // guarded by lock

    private AsyncBarrierCall(Waiting call, Steps<T> steps, Executor executor, Consumer<T> unwanted) {
        this.call = call;
        this.steps = steps;
        this.executor = executor;
        this.unwanted = unwanted;
    }

    /** Starts {@code steps} of {@code call} (its signal already open); the future is the caller's. */
    static <T> CompletableFuture<T> start(Waiting call, Steps<T> steps, Executor executor, Consumer<T> unwanted) {
        AsyncBarrierCall<T> a = new AsyncBarrierCall<>(call, steps, executor, unwanted);
        call.runAsync();
        a.result.whenComplete((value, error) -> {
            if (a.result.isCancelled()) {
                a.cancel();
            }
        });
        a.step(a::run);
        return a.result;
    }

    /**
     * Runs {@code task} (steps until the call waits or ends) on the client's callback thread
     * ({@code coord-callbacks-N}, started on demand, stopped when the client closes): a step may
     * wait for a reply (one round trip), which must never happen on an event thread, nor on the
     * caller's executor (an event loop, perhaps). The client's other async calls step there too,
     * one at a time; a call that waits holds no thread. A closed client refuses it: the call ends
     * with that.
     */
    private void step(Runnable task) {
        try {
            call.store.zk().callbacks().execute(task);
        } catch (RejectedExecutionException closed) {
            end();
            deliver(() -> result.completeExceptionally(new IllegalStateException("the client of barrier "
                    + call.barrier.name() + " is closed: an async call on it cannot go on", closed)), () -> { });
        }
    }

    /** Runs steps until the call waits (no thread held then) or ends. On the client's callback thread. */
    private void run() {
        while (true) {
            boolean withdraw;
            synchronized (lock) {
                if (state == State.ENDED) {
                    return;
                }
                withdraw = cancelled;
                if (withdraw) {
                    state = State.ENDED;
                }
            }
            if (withdraw) {
                try {
                    steps.cancel();
                } catch (InterruptedException | RuntimeException e) {
                    LOG.warn("{}: withdrawing a cancelled call failed", call.barrier, e);
                } finally {
                    call.ended();
                }
                return;
            }
            T value;
            try {
                value = steps.step();
            } catch (Waiting.Suspend s) {
                if (waitFor(s)) {
                    return;
                }
                continue; // cancelled meanwhile: withdraw
            } catch (Throwable e) {
                end();
                deliver(() -> result.completeExceptionally(e), () -> { });
                return;
            }
            end();
            deliver(() -> {
                if (!result.complete(value)) {
                    unwanted.accept(value);
                }
            }, () -> unwanted.accept(value));
            return;
        }
    }

    private void end() {
        synchronized (lock) {
            state = State.ENDED;
        }
        call.ended();
    }

    /** Arms the wake-up and the timer for {@code s}; false if the call was cancelled (withdraw now instead). */
    private boolean waitFor(Waiting.Suspend s) {
        long id;
        boolean closing = false;
        synchronized (lock) {
            if (cancelled) {
                return false;
            }
            state = State.WAITING;
            id = ++waitId;
            try {
                timer = call.store.zk().timer().schedule(() -> resume(id, s.deadline),
                        Math.max(0, s.until - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException refused) {
                timer = null; // the client is closing: the next step finds out
                closing = true;
            }
        }
        if (closing) {
            resume(id, false);
            return true;
        }
        call.signal.onWake(s.epoch, () -> resume(id, false));
        return true;
    }

    /** A wake-up or the timer: run the next step (on any thread; never blocks). */
    private void resume(long id, boolean deadline) {
        synchronized (lock) {
            if (state != State.WAITING || id != waitId) {
                return; // the other of the two came first, or the call ended
            }
            state = State.RUNNING;
            if (timer != null) {
                timer.cancel(false);
                timer = null;
            }
        }
        step(() -> {
            call.resumed();
            if (deadline) {
                call.timedOut();
            }
            run();
        });
    }

    /** The caller cancelled: withdraw now if the call waits, else when the running step ends. */
    private void cancel() {
        boolean now;
        synchronized (lock) {
            if (state == State.ENDED || cancelled) {
                return;
            }
            cancelled = true;
            now = state == State.WAITING;
            if (now) {
                state = State.RUNNING;
                waitId++;
                if (timer != null) {
                    timer.cancel(false);
                    timer = null;
                }
            }
        }
        if (now) {
            step(this::run);
        }
    }

    /** Runs a completion on the caller's executor; one that refuses it gets a failure here (never on an event thread). */
    private void deliver(Runnable completion, Runnable onRefused) {
        try {
            executor.execute(completion);
        } catch (RejectedExecutionException e) {
            onRefused.run();
            result.completeExceptionally(new RejectedExecutionException("the executor of an async call on barrier "
                    + call.barrier.name() + " refused its completion", e));
        }
    }
}
