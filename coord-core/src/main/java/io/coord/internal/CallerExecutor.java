package io.coord.internal;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RejectedExecutionException;

/**
 * How an async recipe call hands its outcome to the caller: the work completes a future of its own
 * (often on ZooKeeper's event thread, where nothing may block), and the caller's future is
 * completed from there on the caller's executor, so the caller's dependent stages never run on
 * ZooKeeper's or Coord's event thread.
 */
public final class CallerExecutor {
    /** The executor an async call uses when the caller names none. */
    public static final Executor DEFAULT = ForkJoinPool.commonPool();

    private CallerExecutor() {
    }

    /**
     * The future to give the caller for {@code work}: completed like {@code work}, on
     * {@code executor}. An executor that refuses the task (shut down) gets the outcome delivered on
     * the common pool instead: a completion is never lost. Cancelling the returned future does not
     * touch {@code work}; the call checks {@link CompletableFuture#isDone()} of the returned future
     * to withdraw what it has not sent yet.
     */
    public static <T> CompletableFuture<T> completeOn(CompletableFuture<T> work, CompletableFuture<T> caller, Executor executor) {
        Objects.requireNonNull(executor, "executor");
        work.whenComplete((value, error) -> {
            Runnable deliver = () -> {
                if (error != null) {
                    caller.completeExceptionally(unwrap(error));
                } else {
                    caller.complete(value);
                }
            };
            try {
                executor.execute(deliver);
            } catch (RejectedExecutionException refused) {
                DEFAULT.execute(deliver);
            }
        });
        return caller;
    }

    private static Throwable unwrap(Throwable error) {
        return error instanceof java.util.concurrent.CompletionException && error.getCause() != null ? error.getCause() : error;
    }
}
