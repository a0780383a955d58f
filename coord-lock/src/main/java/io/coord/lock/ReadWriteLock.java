package io.coord.lock;

import io.coord.CoordPath;

/**
 * Many readers or one writer, fair: requests are served in the order they were made, and a reader
 * that asks after a waiting writer waits behind it (writers do not starve). Each lease has its own
 * token; write tokens strictly increase in grant order, so a store fenced on write tokens rejects
 * a stale writer. Fence writes with write tokens only: a read's token says when the read was
 * asked for, and a downgraded read is asked for after writers that still queue behind it.
 * Create one with {@link Locks#readWrite}.
 *
 * <p><b>Downgrade</b> (write to read) is supported and atomic with respect to other writers:
 * {@link #downgrade} creates a read node that queues at the write's place (ahead of every writer
 * that queued behind it), then closes the write lease. A thread that holds the write lease may
 * also take the read lock directly (reentrant read under write; the Curator view does this too).
 *
 * <p><b>Beside Curator.</b> The nodes are named and ordered as Curator 5.9's
 * {@code InterProcessReadWriteLock} names and orders them ({@code __READ__}/{@code __WRIT__}), and
 * Curator's nodes are read with Curator's meaning, so both libraries on one path exclude each
 * other. The anchored read of a downgrade carries its write's sequence, as Curator's read under its
 * own write does, so Curator writers queued behind the write stay behind the read too.
 *
 * <p><b>Upgrade</b> (read to write) is refused with {@link IllegalStateException}: a reader that
 * waits for the write lock waits for itself, and two such readers deadlock each other. Close the
 * read lease first, then acquire the write lock (and re-check what you read).
 */
public interface ReadWriteLock {
    CoordPath path();

    /** The shared half; a thread holding the write lease gets a read at once (it queues at the write's place). */
    DistributedLock readLock();

    /** The exclusive half; asked for by a thread that holds a read lease of this lock, it throws {@link IllegalStateException}. */
    DistributedLock writeLock();

    /**
     * Turns a held write lease into a read lease without letting a writer in between. The write
     * handle is closed (if it was re-entered, its node stays until the other handles close).
     *
     * @throws io.coord.LockLostException if the write lease is not ACQUIRED — UNCERTAIN (SUSPENDED)
     *                                    or LOST — nothing is changed then
     * @throws IllegalArgumentException   if {@code writeLease} is not a write lease of this lock
     */
    LockLease downgrade(LockLease writeLease) throws InterruptedException;

    /**
     * A view with the shape of Curator's {@code InterProcessReadWriteLock}, so code typed against
     * it switches by changing the line that creates the lock. Its halves are the halves'
     * {@linkplain DistributedLock#asInterProcessLock() Curator views} (the same per-thread holds);
     * a read-to-write upgrade is refused with {@link IllegalStateException}, where Curator's waits
     * forever. The same object every call.
     */
    CuratorReadWriteLock asInterProcessReadWriteLock();
}
