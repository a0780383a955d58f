package io.coord.queue;

import io.coord.Lease;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import org.apache.curator.framework.api.transaction.CuratorOp;

/**
 * A task this consumer holds: the handle {@link TaskQueue#claim} returns. It is a {@link Lease}
 * on the task's ephemeral claim node, so it shares every lease rule: the token is the claim
 * node's czxid, the claim dies with the consumer's session (the task goes back to PENDING), or,
 * with a claim timeout, when it is not {@linkplain #extend extended} in time, and
 * {@link #checkValid()} tells protected work to stop.
 *
 * <p>Exactly one of {@link #complete()}, {@link #fail(String)} or {@link #release()} ends the
 * claim; {@link #close()} releases it if none did. Each is one transaction guarded by a check on
 * the claim node, so a consumer whose claim is gone cannot complete or fail the task: it gets
 * {@link ClaimLostException} and nothing changes. Delivery is at-least-once (a consumer that dies
 * mid-task leaves it to another); completion is exactly-once.
 *
 * <p>On SUSPENDED the claim is UNCERTAIN: {@code checkValid()} throws, but {@code complete()}
 * still tries, since the server's check decides. On LOST, {@code complete()} and {@code fail()}
 * throw {@link ClaimLostException}. Endings are sent once; one whose reply was lost looks at the
 * claim node and the task and reports what it finds: done if it committed, {@link ClaimLostException}
 * if it did not and the claim is gone, {@link io.coord.ConnectionLostException} if the claim is
 * still held or no look was possible (call the same method again: an earlier attempt that did
 * commit is recognized), and {@link OutcomeUnknownException} if the claim's session ended and
 * nothing tells whether it committed.
 * Interrupts: these calls are not blocking waits; an interrupt during one surfaces as a
 * {@link io.coord.CoordException} with the interrupt flag kept.
 */
public interface TaskClaim<T> extends Lease {
    TaskId id();

    T payload();

    /** Failed attempts before this one. */
    int attempts();

    /** Times the task has been claimed, this claim included. */
    int deliveries();

    int lane();

    Instant enqueuedAt();

    /**
     * Completes the task: one transaction that checks this claim and deletes the task. Throws
     * {@link ClaimLostException} if the claim is gone (nothing changed).
     */
    void complete();

    /**
     * Completes the task and, in the same transaction, applies {@code ops} (for example writing a
     * result node): they commit exactly when the completion does, so their effect happens exactly
     * once per task. If one of {@code ops} fails, nothing is applied and the claim is still held.
     */
    void completeWith(List<CuratorOp> ops);

    /**
     * {@link #complete()} without blocking the caller: the future completes on
     * {@link java.util.concurrent.ForkJoinPool#commonPool()}. See {@link #completeAsync(Executor)}.
     */
    default CompletableFuture<Void> completeAsync() {
        return completeAsync(ForkJoinPool.commonPool());
    }

    /**
     * {@link #complete()} without blocking the caller, with its outcomes: the future completes
     * (on {@code executor}, never on ZooKeeper's or Coord's event thread) when the completion
     * committed, or fails with what {@code complete()} throws: {@link ClaimLostException} if the
     * claim is gone (nothing changed), {@link io.coord.ConnectionLostException} or
     * {@link OutcomeUnknownException} after a lost reply as described above,
     * {@link IllegalStateException} if the claim already ended. The transaction is sent from the
     * calling thread with ZooKeeper's async API: no thread waits for its reply, and the completions
     * of many claims of one client are in flight together. Only an answer other than "committed"
     * is settled with reads (as {@code complete()} settles it), on the client's callback thread.
     * While it is in flight, another ending, {@code extend} or {@code release} of this claim throws
     * {@link IllegalStateException}, and {@code close()} leaves the claim to the completion's
     * outcome. Cancelling the future does not withdraw a completion already sent.
     */
    CompletableFuture<Void> completeAsync(Executor executor);

    /**
     * {@link #fail(String)} without blocking the caller, with the outcomes of {@link #completeAsync(Executor)}:
     * the future gets where the task went, or what {@code fail} throws. The transaction is sent
     * from the client's callback thread, which waits for its reply; the calling thread does not.
     */
    CompletableFuture<Task.State> failAsync(String reason, Executor executor);

    /**
     * Records a failed attempt with {@code reason} (kept as the task's last error, at most 2 000
     * characters). If the task has retries left it becomes claimable again after the queue's
     * backoff; otherwise it moves to the dead letters in the same transaction. Returns where the
     * task went: {@link Task.State#PENDING} or {@link Task.State#DEAD}. Throws
     * {@link ClaimLostException} if the claim is gone (nothing changed).
     */
    Task.State fail(String reason);

    /**
     * Keeps the claim for {@code by} from now, by ZooKeeper's clock: one versioned write of the
     * claim node, so only the current claim can extend it. With {@link QueueOptions#claimTimeout()}
     * on, a claim not extended within its timeout (the last extend's {@code by}, else the queue's
     * timeout) is taken over by another consumer: the task is redelivered, this claim goes LOST
     * ("claim timed out") and its endings are refused. Without a timeout a claim has no deadline
     * and this only checks, on the server, that it is still held. A {@link TaskWorker} extends its
     * handlers' claims itself (up to {@link QueueOptions#maxProcessing()}).
     *
     * @throws ClaimLostException if the claim is gone (timed out, or its session ended)
     * @throws IllegalArgumentException if {@code by} is not within 1 ms..24 h
     */
    void extend(Duration by);

    /** Gives the task back unprocessed: claimable again at once, attempts unchanged. */
    void release();

    /** Whether complete, fail or release already ended this claim. */
    boolean isFinished();

    /** Releases the claim unless complete, fail or release already ended it. Idempotent. */
    @Override
    void close();
}
