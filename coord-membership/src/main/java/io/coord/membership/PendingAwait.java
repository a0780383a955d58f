package io.coord.membership;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * One pending {@link Group#awaitMembersAsync} call: no thread waits for it. The group offers it
 * each view it installs; the client's timer ends it at its timeout (a {@code ScheduledExecutorService}
 * delay, on {@link System#nanoTime()}). Exactly one ending wins ({@link #ended}); the winner hands
 * the result to the caller's executor. Any completion of the future, the caller's cancel included,
 * withdraws it: out of the group's set, its timer cancelled.
 */
final class PendingAwait<M> {
    private final Predicate<GroupView<M>> done;
    private final Executor executor;
    private final Consumer<PendingAwait<M>> withdraw;
    private final Supplier<RuntimeException> timeoutError;
    private final CompletableFuture<GroupView<M>> future = new CompletableFuture<>();
    private final AtomicBoolean ended = new AtomicBoolean();
    private volatile ScheduledFuture<?> timer;

    PendingAwait(Predicate<GroupView<M>> done, Executor executor, Consumer<PendingAwait<M>> withdraw,
            Supplier<RuntimeException> timeoutError) {
        this.done = done;
        this.executor = executor;
        this.withdraw = withdraw;
        this.timeoutError = timeoutError;
        future.whenComplete((v, e) -> withdraw());
    }

    CompletableFuture<GroupView<M>> future() {
        return future;
    }

    void startTimer(ScheduledExecutorService scheduler, Duration timeout) {
        try {
            timer = scheduler.schedule(() -> fail(timeoutError.get()), timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException closed) {
            fail(new IllegalStateException("the client is closed", closed));
        }
        if (future.isDone()) {
            withdraw(); // ended before the timer was set: cancel it now
        }
    }

    /** A view was installed: completes the call if it satisfies it. */
    void offer(GroupView<M> view) {
        if (done.test(view) && ended.compareAndSet(false, true)) {
            deliver(() -> future.complete(view));
        }
    }

    void fail(RuntimeException e) {
        if (ended.compareAndSet(false, true)) {
            deliver(() -> future.completeExceptionally(e));
        }
    }

    private void deliver(Runnable completion) {
        withdraw();
        try {
            executor.execute(completion);
        } catch (RejectedExecutionException e) {
            future.completeExceptionally(e);
        }
    }

    private void withdraw() {
        withdraw.accept(this);
        ScheduledFuture<?> t = timer;
        if (t != null) {
            t.cancel(false);
        }
    }
}
