package io.coord.queue;

import java.time.Duration;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * What a {@link ZkTaskWorker} takes its tasks from: one queue directory ({@link ZkTaskQueue}) or
 * all partitions of a partitioned queue ({@link PartitionedTaskQueue}, oldest head first).
 */
interface ClaimSource<T> {
    String name();

    QueueOptions options();

    /** The next ready task, waiting up to {@code timeout} while {@code keepWaiting} holds. */
    Optional<TaskClaim<T>> claimNext(Duration timeout, BooleanSupplier keepWaiting) throws InterruptedException;

    /** Takes over claims past their deadline; a no-op without a claim timeout. */
    void takeOverTimedOut() throws InterruptedException;

    /**
     * One claim try sent with the async API, or false (nothing sent) where only the sync try
     * ({@link #claimNext} with no wait) can make it; {@code done} then never runs. Otherwise
     * {@code done} runs once, on the client's callback thread, with the claim, empty (lost the
     * race: try again), or the failure.
     */
    default boolean claimNextAsync(java.util.function.BiConsumer<Optional<TaskClaim<T>>, Throwable> done) {
        return false;
    }

    /** Wakes every waiting claimer (shutdown). */
    void wakeAll();

    /**
     * Runs {@code waiter} on every change a claim may care about (it must only hand work
     * elsewhere: it runs on the thread that saw the change); returns what removes it. Starts the
     * watched caches if they are not yet.
     */
    Runnable addWaiter(Runnable waiter);

    /** Whether claims may still be made (false once the queue is closed). */
    boolean isOpen();

    /** The client's connection, for its callback thread and timer. */
    io.coord.internal.Zk zk();

    /** The session timeout the client negotiated (zero if not connected). */
    Duration negotiatedSessionTimeout();
}
