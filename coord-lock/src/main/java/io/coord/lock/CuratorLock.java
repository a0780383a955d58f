package io.coord.lock;

import java.util.Collection;
import java.util.Optional;
import org.apache.curator.framework.recipes.locks.InterProcessLock;

/**
 * The Curator view of a Coord lock ({@link DistributedLock#asInterProcessLock()}): Curator's
 * {@link InterProcessLock} contract, plus what code typed against {@code InterProcessMutex} also
 * calls, plus the Coord hold behind it. Holds belong to threads and are reentrant per thread; only
 * the owning thread releases; a waiter whose session ends queues again on the new session.
 */
public interface CuratorLock extends InterProcessLock {
    /**
     * As {@code InterProcessMutex.getParticipantNodes()}: the full paths of every node in the
     * lock's directory, in Curator's order (the sequence after the lock name: the holder first),
     * Coord's and Curator's alike. A half of a {@link CuratorReadWriteLock} lists only its half's
     * nodes ({@code __READ__} or {@code __WRIT__} in the path), as Curator's halves do. A snapshot;
     * read from the server on every call.
     */
    Collection<String> getParticipantNodes() throws Exception;

    /** As {@code InterProcessMutex.isOwnedByCurrentThread()}: whether the calling thread holds it through this view. */
    boolean isOwnedByCurrentThread();

    /**
     * The calling thread's hold as a Coord lease, if it holds one: its fencing token
     * ({@link LockLease#token()}) and its loss signal (UNCERTAIN while SUSPENDED, LOST for good).
     */
    Optional<LockLease> heldByCurrentThread();
}
