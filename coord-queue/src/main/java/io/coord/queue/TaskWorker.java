package io.coord.queue;

import java.time.Duration;

/**
 * Consumer threads started by {@link TaskQueue#work}: each claims a task, runs the handler and
 * completes the task when the handler returns, or fails it with the handler's exception as the
 * reason. A handler may also end the claim itself (complete, fail or release).
 *
 * <p>Shutdown is graceful: no new task is claimed, in-flight handlers get the grace period to
 * finish, and those still running then are interrupted and their claims released (the tasks go
 * back to PENDING with no attempt counted). A handler whose claim was lost meanwhile finds out at
 * completion ({@link ClaimLostException}, logged); the task is someone else's by then.
 *
 * <p>With {@link QueueOptions#claimTimeout()} on, the worker extends each running handler's claim
 * every third of the timeout (on a thread of its own), until the handler has run past
 * {@link QueueOptions#maxProcessing()}: a handler still running then is taken for hung, its claim
 * times out, another consumer gets the task, and the hung handler's ending is refused.
 */
public interface TaskWorker extends AutoCloseable {
    /** The work for one task. Any exception it throws becomes {@link TaskClaim#fail(String)}. */
    @FunctionalInterface
    interface Handler<T> {
        /**
         * Processes one claimed task. Declares {@code Exception} on purpose: the worker catches
         * everything the handler throws and turns it into a failed attempt, so handlers need not
         * wrap their checked exceptions.
         */
        void handle(TaskClaim<T> claim) throws Exception;
    }

    /**
     * Stops claiming, waits up to {@code grace} for in-flight handlers, then interrupts the rest
     * and releases their claims. Returns true if every in-flight task finished within the grace.
     * Idempotent.
     *
     * @throws InterruptedException if interrupted while waiting; the workers are still stopped
     */
    boolean shutdown(Duration grace) throws InterruptedException;

    /** Tasks handled so far (completed, failed or released by the handler). */
    long handled();

    boolean isRunning();

    /** {@link #shutdown} with the queue's {@link QueueOptions#shutdownGrace()}; an interrupt is kept as the flag. */
    @Override
    void close();
}
