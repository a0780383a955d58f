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

    /** Wakes every waiting claimer (shutdown). */
    void wakeAll();

    /** The session timeout the client negotiated (zero if not connected). */
    Duration negotiatedSessionTimeout();
}
