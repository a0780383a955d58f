package io.coord.barrier;

import io.coord.BarrierBrokenException;
import io.coord.CoordClient;
import io.coord.CoordPath;
import io.coord.internal.Zk;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * A double barrier: members start a phase together ({@link #enter}) and finish it together
 * ({@link #leave}). One {@code DoubleBarrier} object is one member; every member of a job creates
 * its own with the same name and the same number of parties.
 *
 * <pre>{@code
 * DoubleBarrier barrier = DoubleBarrier.create(client, "nightly-etl", 16,
 *         BarrierOptions.builder().memberId("worker-3").build());
 * try (BarrierSeat seat = barrier.enter(Duration.ofMinutes(5))) {   // all 16 are in
 *     runPhase();
 *     seat.leave(Duration.ofMinutes(5));                             // all 16 are done
 * }
 * }</pre>
 *
 * <p>Guarantees (see the package documentation for the node layout and failure semantics):
 * <ul>
 *   <li>{@code enter} returns only after all {@code parties} members entered, {@code leave} only
 *       after all left. Each is decided once, in ZooKeeper: either every waiter is let through, or
 *       every waiter gets {@link BarrierBrokenException}. Never some of each, never a silent hang.
 *   <li>A member whose session ends while others wait (it crashed, it was paused past its session
 *       timeout, its client closed) breaks the generation: everyone waiting gets
 *       {@link BarrierBrokenException} naming it within about its session timeout.
 *   <li>A wait that times out or is interrupted breaks the generation for everyone.
 *   <li>The same name serves round after round: each round is a new generation with its own
 *       nodes, and nobody ever sees another round's state. A broken generation stays broken (late
 *       arrivals fail fast) until {@link #reset()}.
 * </ul>
 */
public interface DoubleBarrier {
    /** The most parties one barrier can have: READY checks every admitted seat in one transaction. */
    int MAX_PARTIES = 2_000;

    /**
     * One member of the barrier {@code name} for {@code parties} members, with default options.
     *
     * @throws IllegalArgumentException if {@code parties} is not in 1..{@value #MAX_PARTIES}
     * @throws io.coord.InvalidNameException if {@code name} is not one valid path segment
     */
    static DoubleBarrier create(CoordClient client, String name, int parties) {
        return create(client, name, parties, BarrierOptions.defaults());
    }

    /** One member of the barrier {@code name} for {@code parties} members. */
    static DoubleBarrier create(CoordClient client, String name, int parties, BarrierOptions options) {
        Objects.requireNonNull(client, "client");
        Objects.requireNonNull(options, "options");
        CoordPath.validateName(name);
        if (parties <= 0 || parties > MAX_PARTIES) {
            throw new IllegalArgumentException("parties must be in 1.." + MAX_PARTIES + ", got " + parties
                    + " (for barrier \"" + name + "\")");
        }
        return new ZkDoubleBarrier(Zk.of(client), name, parties, options);
    }

    /** The status of barrier {@code name}, for operators (no member needed). */
    static BarrierStatus status(CoordClient client, String name) throws InterruptedException {
        Objects.requireNonNull(client, "client");
        CoordPath.validateName(name);
        return StatusReader.read(Zk.of(client), name);
    }

    /**
     * Starts a new generation of barrier {@code name} if its current one is broken, with the same
     * number of parties. Returns whether it did (false: not broken, or someone else reset it first).
     * It reads the barrier after a ZooKeeper {@code sync}, so a break the caller heard of from a
     * member is seen even if the caller's server had not applied it yet.
     */
    static boolean reset(CoordClient client, String name) throws InterruptedException {
        Objects.requireNonNull(client, "client");
        CoordPath.validateName(name);
        return ZkDoubleBarrier.reset(Zk.of(client), name);
    }

    String name();

    int parties();

    /** This member's name in the barrier. */
    String memberId();

    /**
     * Enters the current generation and waits until all parties have entered, at most
     * {@code timeout}. Returns this member's seat; hold it until {@link BarrierSeat#leave}.
     *
     * <ul>
     *   <li>Connection SUSPENDED: keeps waiting; after the reconnect it reads the state again
     *       (nothing is decided on a connection event alone).
     *   <li>This member's session LOST before all entered: the generation breaks.
     *   <li>Timeout or interrupt: the generation breaks for everyone and this call throws
     *       {@link BarrierBrokenException} (timeout) or {@link InterruptedException} — unless all
     *       parties had already entered, in which case it returns (with the interrupt flag set).
     * </ul>
     *
     * @throws BarrierBrokenException      the generation broke (a member failed, timed out or was
     *                                     interrupted), or it was already broken when this member
     *                                     arrived, or it is already full (more members than parties)
     * @throws IllegalStateException       this member is already in a generation it has not left
     * @throws io.coord.ConnectionLostException ZooKeeper stayed unreachable past the timeout and the
     *                                     session timeout: the outcome is unknown to this member
     * @throws io.coord.CoordTimeoutException the timeout passed before this member could even take a
     *                                     seat (no answer from ZooKeeper); no generation was touched
     */
    BarrierSeat enter(Duration timeout) throws InterruptedException;

    /**
     * {@link #enter} without a waiting thread: the future completes with this member's seat when
     * all parties have entered, or fails with the exception {@code enter} would throw (the same
     * rules decide, from the same server facts; see the package documentation's failure
     * semantics). While it is pending no thread is held: a watch, a session change or the
     * deadline ({@link System#nanoTime()}-based, as in {@code enter}) resumes it. It completes on
     * {@code executor}, never on ZooKeeper's or Coord's event thread. There is no interrupt: an
     * interrupt's role is taken by cancelling.
     *
     * <p><b>Cancelling</b> the future withdraws this member: while the generation is still open,
     * its seat is deleted together with a {@code withdrawn} marker in one transaction that checks
     * the generation is still undecided, so the others' count goes on as if it never came (nothing
     * breaks, no seat is left behind). If the generation was decided first (all parties entered,
     * this member among them), it is too late to withdraw: the seat is closed, which abandons the
     * generation as {@link BarrierSeat#close()} before leave does (the others get
     * {@link BarrierBrokenException} in leave, naming this member). Cancelling after the future
     * completed changes nothing (the seat is the caller's).
     *
     * @throws IllegalArgumentException a null or non-positive timeout, or a null executor (at once)
     * @throws IllegalStateException    this member is already in a generation it has not left (at once)
     */
    CompletableFuture<BarrierSeat> enterAsync(Duration timeout, Executor executor);

    /**
     * {@link #enterAsync(Duration, Executor)} with completions on CompletableFuture's default
     * async executor (the common {@link java.util.concurrent.ForkJoinPool}, or a new thread per
     * completion when that pool has no parallelism), as {@code CompletableFuture.supplyAsync} uses.
     */
    default CompletableFuture<BarrierSeat> enterAsync(Duration timeout) {
        return enterAsync(timeout, new CompletableFuture<BarrierSeat>().defaultExecutor());
    }

    /**
     * Leaves the generation this member entered last and waits until all parties have left.
     * Same as {@link BarrierSeat#leave} on that seat.
     *
     * @throws IllegalStateException if this member has not entered
     */
    void leave(Duration timeout) throws InterruptedException;

    /**
     * {@link BarrierSeat#leaveAsync(Duration, Executor)} on the seat this member entered last.
     *
     * @throws IllegalStateException if this member has not entered (at once)
     */
    CompletableFuture<Void> leaveAsync(Duration timeout, Executor executor);

    /** {@link #leaveAsync(Duration, Executor)} with completions on CompletableFuture's default async executor. */
    default CompletableFuture<Void> leaveAsync(Duration timeout) {
        return leaveAsync(timeout, new CompletableFuture<Void>().defaultExecutor());
    }

    /** The barrier's status. */
    BarrierStatus status() throws InterruptedException;

    /** {@link #reset(CoordClient, String)} for this barrier. */
    boolean reset() throws InterruptedException;
}
