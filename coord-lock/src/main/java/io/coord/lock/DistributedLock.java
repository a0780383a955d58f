package io.coord.lock;

import io.coord.CoordPath;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.apache.curator.framework.recipes.locks.InterProcessLock;

/**
 * A fair lock across processes: waiters are granted in the order they asked (FIFO by sequence),
 * one at a time; a release wakes only the next waiter. Create one with {@link Locks#mutex}; the
 * write and read halves of a {@link ReadWriteLock} have the same shape.
 *
 * <p>Share one object per lock path in a process (as with Curator's InterProcessMutex); it keeps
 * no state between acquisitions besides its {@linkplain #asInterProcessLock() Curator view}'s
 * per-thread holds.
 *
 * <p>Waiting: every wait has a bound or ends on interrupt (but {@link #asLock()}'s {@code lock()},
 * which j.u.c's contract makes wait until granted or failed), and a waiter that gives up (timeout,
 * interrupt, session end) deletes its node before it returns — no orphan waits in the queue.
 * While the connection is SUSPENDED a waiter keeps waiting (its watch survives a reconnect on the
 * same session); if the session ends, the wait fails with {@link io.coord.SessionExpiredException}.
 */
public interface DistributedLock {
    /** The lock node (the parent of the queue). */
    CoordPath path();

    /**
     * Waits at most {@code timeout} for the lock. While the connection is SUSPENDED the wait goes
     * on (the watch survives a reconnect of the same session); the lease returned is ACQUIRED.
     *
     * @throws io.coord.CoordTimeoutException if it was not granted in time (our node is removed)
     * @throws InterruptedException           if interrupted while waiting (our node is removed)
     * @throws io.coord.SessionExpiredException if the session ended while waiting
     * @throws IllegalStateException          on a read-to-write upgrade (see {@link ReadWriteLock})
     */
    LockLease acquire(Duration timeout) throws InterruptedException;

    /**
     * {@link #acquire} without a waiting thread: queues now and returns at once; the future completes
     * with the ACQUIRED lease when it is granted. Completions run on {@code executor}, never on a
     * ZooKeeper or Coord event thread. No thread is parked while it waits: the wait is a watch on the
     * node ahead, and each step is sent from the reply or event before it.
     * <ul>
     *   <li>not granted within {@code timeout} (measured with {@code System.nanoTime()} from this
     *       call): completes exceptionally with {@link io.coord.CoordTimeoutException}, our node removed;
     *   <li>the session ends (or the client is closed) while waiting: {@link io.coord.SessionExpiredException}
     *       (our node went with the session, or was deleted by the close); while SUSPENDED the wait
     *       goes on, as for {@link #acquire};
     *   <li>{@code cancel()} on the future (or completing it yourself) withdraws: our node is deleted,
     *       or, if its create is still in flight, deleted when its reply comes; none is left behind.
     *       A grant that races the cancel is released at once;
     *   <li>other failures as {@link #acquire} throws them (foreign nodes, an overlong queue, our node
     *       deleted by someone else), our node removed.
     * </ul>
     * The lease belongs to no thread: it does not count as a hold of the calling thread for the
     * {@linkplain #asInterProcessLock() Curator view}, the {@linkplain #asLock() Lock view} or a
     * {@link ReadWriteLock}'s read-under-write and upgrade rules; close it from any thread. Bad
     * arguments (a null or negative timeout, a null executor) throw {@link IllegalArgumentException} at once.
     */
    CompletableFuture<LockLease> acquireAsync(Duration timeout, Executor executor);

    /**
     * {@link #acquireAsync(Duration, Executor)} with completions on CompletableFuture's default
     * async executor (the common {@link java.util.concurrent.ForkJoinPool}, or a new thread per
     * completion when that pool has no parallelism), as {@code CompletableFuture.supplyAsync} uses.
     */
    default CompletableFuture<LockLease> acquireAsync(Duration timeout) {
        return acquireAsync(timeout, new CompletableFuture<LockLease>().defaultExecutor());
    }

    /** Like {@link #acquire} (same SUSPENDED, session-end and interrupt rules) but an ungranted lock is an empty result. */
    Optional<LockLease> tryAcquire(Duration timeout) throws InterruptedException;

    /**
     * Takes the lock only if it is free right now (one create and one read; never waits). Fails
     * like {@link #acquire} if the session has ended or the thread is interrupted.
     */
    Optional<LockLease> tryAcquire() throws InterruptedException;

    /**
     * A view with Curator's {@link InterProcessLock} contract, so code written for
     * {@code InterProcessMutex} switches by changing the line that creates the lock. Holds are
     * owned by threads and reentrant per thread; {@code release()} from a thread that holds
     * nothing throws {@link IllegalMonitorStateException}. A waiter whose session ends while it
     * waits starts again on the new session (as often as the Curator client's retry policy allows,
     * {@link io.coord.RetrySettings} for a client Coord built, within the timeout), as
     * {@code InterProcessMutex.acquire} does; the native
     * {@link #acquire} fails with {@link io.coord.SessionExpiredException} instead. Each hold is a
     * {@link LockLease} with token and loss signal: see {@link #heldByCurrentThread()}. The same
     * object every call.
     */
    CuratorLock asInterProcessLock();

    /**
     * A view with {@link java.util.concurrent.locks.Lock}'s contract, for code written against
     * j.u.c (see {@link JucLock} for interrupts, session ends, a LOST hold's {@code unlock()} and
     * the refused {@code newCondition()}). Holds belong to threads and are reentrant per thread;
     * they are the {@linkplain #asInterProcessLock() Curator view}'s holds, so a thread holds
     * through either view, and {@link #heldByCurrentThread()} gives the lease of both. A half of a
     * {@link ReadWriteLock} has its own, with that half's rules (a read under the thread's write
     * at once, an upgrade refused). The same object every call.
     */
    JucLock asLock();

    /**
     * The lease the {@linkplain #asInterProcessLock() Curator view} or the {@linkplain #asLock()
     * Lock view} holds for the calling thread,
     * if any: its token to fence with, and its state (UNCERTAIN while SUSPENDED, LOST for good).
     */
    Optional<LockLease> heldByCurrentThread();
}
