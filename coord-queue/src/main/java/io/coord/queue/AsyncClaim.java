package io.coord.queue;

import io.coord.CoordTimeoutException;
import io.coord.internal.Zk;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One {@link TaskQueue#claimAsync} waiting: an entry in the queue's watched index (no thread), woken
 * by every change the watch sees and by the client's timer (delays, backoffs and claim timeouts come
 * due without an event). Each wake-up runs one look on the client's callback thread, never on
 * ZooKeeper's or Coord's event thread: where the index has the head task cached, one claim
 * transaction sent with the async API ({@link ClaimSource#claimNextAsync}: the callback thread does
 * not wait for it, and the tries of many calls are in flight together; a lost race looks again
 * when its answer lands); otherwise the sync claim with no wait ({@link ClaimSource#claimNext}
 * with a zero timeout: one claim transaction per ready task tried). Looks of one call never
 * overlap (a wake-up during a look or a try in flight runs one more look after it).
 *
 * <p>States: WAITING → CLAIMED (the claim is handed to the caller's executor) or ENDED (timed out,
 * cancelled, failed, queue closed). Leaving WAITING withdraws the index entry and the timer. A
 * caller's future that is done when the claim is delivered (cancelled in a race with the claim)
 * releases the claim at once, so the task is claimable again without waiting for any timeout.
 */
final class AsyncClaim<T> {
    private static final Logger LOG = LoggerFactory.getLogger(AsyncClaim.class);
    /** Longest time between looks without an event: as the sync claim's slices. */
    private static final long MAX_SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

    private final ClaimSource<T> source;
    private final Zk zk;
    private final long deadline;
    private final Duration timeout;
    private final Executor executor;
    private final CompletableFuture<TaskClaim<T>> caller = new CompletableFuture<>();
    private final AtomicBoolean lookQueued = new AtomicBoolean();
    private final AtomicBoolean ended = new AtomicBoolean();
    /** An async claim try is in flight; only the callback thread reads and writes it. */
    private boolean attempting;
    private volatile Runnable removeWaiter = () -> { };
    private volatile ScheduledFuture<?> timer;

    private AsyncClaim(ClaimSource<T> source, Duration timeout, Executor executor) {
        this.source = source;
        this.zk = source.zk();
        this.timeout = timeout;
        this.deadline = System.nanoTime() + Math.max(0, timeout.toNanos());
        this.executor = executor;
    }

    static <T> CompletableFuture<TaskClaim<T>> start(ClaimSource<T> source, Duration timeout, Executor executor) {
        Objects.requireNonNull(timeout, "timeout");
        Objects.requireNonNull(executor, "executor");
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("claimAsync timeout must not be negative: " + timeout);
        }
        if (!source.isOpen()) {
            throw new IllegalStateException("queue '" + source.name() + "' is closed");
        }
        AsyncClaim<T> call = new AsyncClaim<>(source, timeout, executor);
        // Withdrawn at once when the caller cancels (or completes) it: no look runs after that.
        call.caller.whenComplete((claim, error) -> call.withdraw());
        call.removeWaiter = source.addWaiter(call::wake); // starts the watched cache: the sync claim's first call does too
        if (call.ended.get()) {
            call.removeWaiter.run(); // ended by a look between the add and the line above
        }
        call.wake();
        return call.caller;
    }

    /** From a change (under the index's monitor) or the timer: queues one look unless one is queued already. */
    private void wake() {
        if (ended.get() || !lookQueued.compareAndSet(false, true)) {
            return;
        }
        try {
            zk.callbacks().execute(this::look);
        } catch (RejectedExecutionException closed) {
            end(new IllegalStateException("the client of queue '" + source.name() + "' is closed"));
        }
    }

    /** On the client's callback thread: one try at every ready task, no wait. */
    private void look() {
        lookQueued.set(false);
        if (ended.get()) {
            return;
        }
        if (!source.isOpen()) {
            end(new IllegalStateException("queue '" + source.name() + "' was closed while a claimAsync waited"));
            return;
        }
        if (attempting) {
            return; // the try in flight looks again when its answer lands
        }
        try {
            attempting = source.claimNextAsync(this::attempted);
        } catch (RuntimeException e) {
            end(e);
            return;
        }
        if (attempting) {
            return;
        }
        Optional<TaskClaim<T>> claimed;
        try {
            claimed = source.claimNext(Duration.ZERO, () -> true);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            end(new io.coord.CoordException("interrupted while claiming from queue '" + source.name() + "'", e));
            return;
        } catch (RuntimeException e) {
            end(e);
            return;
        }
        if (claimed.isPresent()) {
            claimed(claimed.get());
            return;
        }
        waitForNextLook();
    }

    /** On the client's callback thread: the answer to an async try; a lost race looks again at once. */
    private void attempted(Optional<TaskClaim<T>> claimed, Throwable error) {
        attempting = false;
        if (error != null) {
            end(error);
        } else if (claimed.isPresent()) {
            claimed(claimed.get());
        } else {
            look();
        }
    }

    private void claimed(TaskClaim<T> claim) {
        if (!ended.compareAndSet(false, true)) {
            claim.release(); // cancelled during the look: the task goes back at once
            return;
        }
        stopWaiting();
        deliver(claim);
    }

    private void waitForNextLook() {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
            end(new CoordTimeoutException("no task of queue '" + source.name() + "' became ready to claim within " + timeout));
            return;
        }
        try {
            timer = zk.timer().schedule(this::wake, Math.min(left, MAX_SLICE_NANOS), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException closed) {
            end(new IllegalStateException("the client of queue '" + source.name() + "' is closed"));
        }
    }

    /** Hands the claim to the caller's executor; a caller's future already done there releases it. */
    private void deliver(TaskClaim<T> claim) {
        Handoff.toCaller(executor, () -> {
            if (!caller.complete(claim)) {
                zk.offEventThread(() -> releaseQuietly(claim));
            }
        });
    }

    private void releaseQuietly(TaskClaim<T> claim) {
        try {
            claim.release();
        } catch (RuntimeException e) {
            LOG.debug("releasing {} after its claimAsync was cancelled failed; it ends with its session", claim, e);
        }
    }

    private void end(Throwable error) {
        if (!ended.compareAndSet(false, true)) {
            return;
        }
        stopWaiting();
        Handoff.toCaller(executor, () -> caller.completeExceptionally(error));
    }

    /** The caller's future is done: nothing more runs for this call. */
    private void withdraw() {
        if (ended.compareAndSet(false, true)) {
            stopWaiting();
        }
    }

    private void stopWaiting() {
        removeWaiter.run();
        ScheduledFuture<?> t = timer;
        if (t != null) {
            t.cancel(false);
        }
    }
}
