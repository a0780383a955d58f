package io.coord.lock;

import io.coord.CoordPath;
import java.util.Optional;
import java.util.concurrent.locks.Lock;

/**
 * A Coord lock as a {@link java.util.concurrent.locks.Lock} ({@link DistributedLock#asLock()}), for
 * code written against j.u.c's interface (a {@code LockRegistry}, a library that takes a
 * {@code Lock}). Holds belong to threads and are reentrant per thread, as {@code ReentrantLock}'s
 * are; they are the same holds as the lock's {@linkplain DistributedLock#asInterProcessLock()
 * Curator view} (one count per thread, whichever view took it). Each hold is a real
 * {@link LockLease}: {@link #heldByCurrentThread()} gives its fencing token and loss signal.
 *
 * <pre>{@code
 * JucLock lock = Locks.mutex(client, path).asLock();
 * lock.lock();
 * try {
 *     FencingToken token = lock.heldByCurrentThread().orElseThrow().token();
 *     store.write(key, value, token);
 * } finally {
 *     lock.unlock();
 * }
 * }</pre>
 *
 * <ul>
 *   <li>{@link #lock()} waits without bound and does not stop on an interrupt, as
 *       {@code ReentrantLock.lock()}: an interrupt while it waits removes its node and it queues
 *       again at the end of the line (the place in line is lost, nothing else), and once it holds
 *       the lock the thread's interrupt flag is set again.
 *   <li>{@link #lockInterruptibly()} and {@link #tryLock(long, java.util.concurrent.TimeUnit)}
 *       end on an interrupt with {@link InterruptedException}, their node removed. A timed
 *       {@code tryLock} not granted in time returns {@code false}, its node removed.
 *   <li>{@link #tryLock()} takes the lock only if it is free now (one create and one read; never
 *       waits) and is not stopped by an interrupt (the flag stays set).
 *   <li>Failure is never a silent hang: a waiter whose session ends queues again on the new
 *       session as often as the client's retry policy allows (as the Curator view does); when the
 *       policy gives up, or the client is closed, the call throws an unchecked
 *       {@link io.coord.CoordException} naming the lock (a {@link io.coord.SessionExpiredException}
 *       when the session ended). Re-locking onto a hold that is no longer ACQUIRED throws
 *       {@link io.coord.LockLostException}; the hold still counts, and needs its {@code unlock()}.
 *   <li>{@link #unlock()} by a thread that holds nothing throws
 *       {@link IllegalMonitorStateException} naming the thread, the lock and who holds it here;
 *       nothing is changed. Unlocking a hold that went LOST does not throw: it balances the
 *       {@code lock()} and deletes nothing (the node is gone already), so a {@code finally} block
 *       never hides the first failure. Code that must know whether the lock held throughout
 *       checks the lease before its last write ({@link LockLease#checkValid()}) or fences with the
 *       token: a Lock's {@code unlock()} has no way to report it.
 *   <li>{@link #newCondition()} throws {@link UnsupportedOperationException}: a condition across
 *       processes needs a protocol of its own.
 * </ul>
 */
public interface JucLock extends Lock {
    /** The lock node (the parent of the queue). */
    CoordPath path();

    /**
     * The calling thread's hold as a Coord lease, if it holds one: its fencing token
     * ({@link LockLease#token()}) and its loss signal (UNCERTAIN while SUSPENDED, LOST for good).
     */
    Optional<LockLease> heldByCurrentThread();
}
