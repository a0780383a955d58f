package io.coord.barrier;

import io.coord.Lease;
import io.coord.LeaseState;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * One member's place in one generation of a double barrier, from {@link DoubleBarrier#enter} until
 * {@link #leave} (or {@link #close()}). A {@link Lease} on the member's ephemeral seat node: its
 * token is the seat's czxid, and it goes LOST when the member's session ends, which is also how
 * the other members notice a crash.
 *
 * <p>{@link #close()} without {@link #leave} abandons the generation: the seat disappears without
 * a left marker, and the members waiting in {@code leave} get
 * {@link io.coord.BarrierBrokenException} naming this member. After {@link #leave} returns, the
 * seat is already released and {@code close()} does nothing.
 */
public interface BarrierSeat extends Lease {
    /** The barrier's name. */
    String barrier();

    /** The generation (round) this seat belongs to: 1, 2, ... */
    long generation();

    /** This member's arrival order in its generation (0 = first). */
    long sequence();

    /** This member's name in the barrier. */
    String memberId();

    /**
     * Leaves the generation and waits until all parties have left, at most {@code timeout}.
     * <ul>
     *   <li>Connection SUSPENDED: waits for the reconnect, then reads the state again.
     *   <li>Seat LOST before leaving (the session ended): the generation breaks, naming this member.
     *   <li>Timeout or interrupt: the generation breaks for everyone still waiting, unless all had
     *       left already, in which case it returns (interrupt flag set).
     * </ul>
     *
     * @throws io.coord.BarrierBrokenException the generation broke (a member failed, timed out or
     *                                         was interrupted)
     * @throws IllegalStateException           {@code leave} was already called on this seat
     */
    void leave(Duration timeout) throws InterruptedException;

    /**
     * {@link #leave} without a waiting thread: the future completes when all parties have left,
     * or fails with the exception {@code leave} would throw (same rules, same server facts). No
     * thread is held while it is pending; it completes on {@code executor}, never on ZooKeeper's
     * or Coord's event thread; the timeout is {@link System#nanoTime()}-based.
     *
     * <p><b>Cancelling</b> the future stops this member waiting; a leave cannot be taken back.
     * If this member's {@code left} marker is already in place, it stands: the others still
     * finish together without waiting for anything more from this member. If it is not in place
     * yet, the seat is closed without it, which breaks the generation for the others as
     * {@link #close()} before leave does ({@link io.coord.BarrierBrokenException} naming this
     * member). Either way the seat is released and no node of it is left behind.
     *
     * @throws IllegalArgumentException a null executor, or a non-positive timeout (at once)
     * @throws IllegalStateException    {@code leave} or {@code leaveAsync} was already called on this seat (at once)
     */
    CompletableFuture<Void> leaveAsync(Duration timeout, Executor executor);

    /** {@link #leaveAsync(Duration, Executor)} with completions on CompletableFuture's default async executor. */
    default CompletableFuture<Void> leaveAsync(Duration timeout) {
        return leaveAsync(timeout, new CompletableFuture<Void>().defaultExecutor());
    }

    /**
     * As for every {@link Lease}, and {@link LeaseState#RELEASED} once {@link #leave} has returned
     * (the node itself is deleted in the background right after).
     */
    @Override
    LeaseState state();

    /**
     * Releases the seat (deletes its node). Idempotent. Before {@link #leave}, this abandons the
     * generation. After {@link #leave} returned, it does nothing: the seat is already released, and
     * its node is deleted in the background a moment later (not at once, so that the delete does
     * not hold up the other members' reads of the outcome).
     */
    @Override
    void close();
}
