package io.coord.lock;

/**
 * The Curator view of a Coord read-write lock ({@link ReadWriteLock#asInterProcessReadWriteLock()}),
 * shaped like Curator 5.9's {@code InterProcessReadWriteLock}: two {@link CuratorLock} halves
 * (each an {@code InterProcessLock}) whose holds belong to threads and are reentrant per thread, as
 * Curator's halves are. A thread holding the write lock may take the read lock at once, and keeps
 * it after releasing the write (Curator's downgrade); a release by a thread that holds nothing
 * throws {@link IllegalMonitorStateException}; a timed acquire not granted in time returns
 * {@code false}; each half's {@code getParticipantNodes()} lists that half's nodes as Curator's
 * half does; a waiter whose session ends queues again on the new session. Each hold is a Coord
 * {@link LockLease}: {@link CuratorLock#heldByCurrentThread()} gives its fencing token (fence with
 * write tokens) and its loss signal.
 *
 * <p>One difference: a thread that holds the read lock and asks for the write lock (an upgrade)
 * waits forever in Curator (it waits behind its own read); here it gets
 * {@link IllegalStateException} at once, and no node is created.
 */
public interface CuratorReadWriteLock {
    /** The shared half, as {@code InterProcessReadWriteLock.readLock()}; the same object every call. */
    CuratorLock readLock();

    /** The exclusive half, as {@code InterProcessReadWriteLock.writeLock()}; the same object every call. */
    CuratorLock writeLock();
}
