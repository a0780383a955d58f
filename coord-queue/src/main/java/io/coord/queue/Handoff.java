package io.coord.queue;

import io.coord.internal.CallerExecutor;
import io.coord.internal.Zk;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;

/**
 * Where the queue's async calls run their steps: completions on the caller's executor (one that
 * refuses the task: the common pool, so a completion is never lost), and the steps that block for
 * a round trip (a claim try, an ending, settling a lost reply) on the client's callback thread,
 * never on ZooKeeper's or Coord's event thread.
 */
final class Handoff {
    private Handoff() {
    }

    /** Runs {@code deliver} on {@code executor}, or on the common pool if it refuses. */
    static void toCaller(Executor executor, Runnable deliver) {
        try {
            executor.execute(deliver);
        } catch (RejectedExecutionException refused) {
            CallerExecutor.DEFAULT.execute(deliver);
        }
    }

    /**
     * Runs the blocking {@code step} on the client's callback thread and completes the returned
     * future with its outcome on {@code executor}. A closed client fails it with
     * {@link IllegalStateException}.
     */
    static <V> CompletableFuture<V> offEventThread(Zk zk, String what, Supplier<V> step, Executor executor) {
        CompletableFuture<V> caller = new CompletableFuture<>();
        try {
            zk.callbacks().execute(() -> {
                V value;
                try {
                    value = step.get();
                } catch (RuntimeException | Error e) {
                    toCaller(executor, () -> caller.completeExceptionally(e));
                    return;
                }
                toCaller(executor, () -> caller.complete(value));
            });
        } catch (RejectedExecutionException closed) {
            caller.completeExceptionally(new IllegalStateException("the client is closed: " + what + " was not sent", closed));
        }
        return caller;
    }
}
