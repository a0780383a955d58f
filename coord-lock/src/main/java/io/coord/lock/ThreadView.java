package io.coord.lock;

import io.coord.CoordPath;
import io.coord.LockLostException;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * Curator's {@link InterProcessLock} contract over Coord leases: holds belong to threads and are
 * reentrant per thread (a count per thread, as InterProcessMutex keeps), while each hold is a real
 * {@link LockLease} with token and loss signal. Only the owning thread may release;
 * anyone else gets {@link IllegalMonitorStateException} saying who does own it. A waiter whose
 * session ends starts again on the new session, as InterProcessMutex does.
 */
final class ThreadView implements CuratorLock {
    private static final class Hold {
        final LockLease lease;
        int count = 1; // only the owning thread touches it

        Hold(LockLease lease) {
            this.lease = lease;
        }
    }

    private final CoordPath path;
    private final String what;
    private final AcrossSessions.Acquirer acquirer;
    private final ZkLockQueue queue;
    private final Predicate<String> participant;
    private final Map<Thread, Hold> holds = new ConcurrentHashMap<>();

    /**
     * {@code participant} picks which full paths {@link #getParticipantNodes()} lists: all of them
     * for a mutex (as InterProcessMutex), one half's for a read-write lock (as Curator's halves).
     */
    ThreadView(ZkLockQueue queue, String what, AcrossSessions.Acquirer acquirer, Predicate<String> participant) {
        this.queue = queue;
        this.path = queue.path();
        this.what = what;
        this.acquirer = acquirer;
        this.participant = participant;
    }

    @Override
    public void acquire() throws Exception {
        if (!acquireNanos(-1)) {
            throw new IllegalStateException("unbounded acquire of " + what + " " + path + " returned without the lock");
        }
    }

    @Override
    public boolean acquire(long time, TimeUnit unit) throws Exception {
        return acquireNanos(Math.max(0, unit.toNanos(time)));
    }

    /** Acquires for the calling thread; {@code timeoutNanos} < 0 waits until granted, interrupted or failed. */
    boolean acquireNanos(long timeoutNanos) throws InterruptedException {
        Hold hold = holds.get(Thread.currentThread());
        if (hold != null) {
            // Reentry: only onto a lease that is still certainly ours.
            try {
                hold.lease.checkValid();
            } catch (LockLostException e) {
                throw new LockLostException("thread \"" + Thread.currentThread().getName() + "\" cannot re-enter " + what + " "
                        + path + ": its hold " + e.getMessage() + ". Release that hold (it still counts once), then acquire again", e);
            }
            hold.count++;
            return true;
        }
        Optional<LockLease> lease = acquireAcrossSessions(timeoutNanos);
        lease.ifPresent(l -> holds.put(Thread.currentThread(), new Hold(l)));
        return lease.isPresent();
    }

    /** Starts again on a new session when the waiter's ends, as InterProcessMutex does ({@link AcrossSessions}). */
    private Optional<LockLease> acquireAcrossSessions(long timeoutNanos) throws InterruptedException {
        return AcrossSessions.acquire(queue.zk(), path, acquirer, timeoutNanos);
    }

    @Override
    public void release() {
        Thread me = Thread.currentThread();
        Hold hold = holds.get(me);
        if (hold == null) {
            String owners = holds.keySet().stream().map(t -> "\"" + t.getName() + "\"").collect(Collectors.joining(", "));
            throw new IllegalMonitorStateException("thread \"" + me.getName() + "\" does not hold " + what + " " + path
                    + (owners.isEmpty() ? "; no thread of this process holds it" : "; it is held here by thread " + owners)
                    + ". The Curator and Lock views' holds belong to the thread that acquired them; to release from another"
                    + " thread, use the LockLease API (acquire(Duration) returns a handle any thread may close)");
        }
        if (--hold.count == 0) {
            holds.remove(me);
            hold.lease.close();
        }
    }

    CoordPath path() {
        return path;
    }

    /** What the lock is called in messages: "lock", "read lock", "write lock". */
    String what() {
        return what;
    }

    @Override
    public boolean isAcquiredInThisProcess() {
        return !holds.isEmpty();
    }

    @Override
    public boolean isOwnedByCurrentThread() {
        return holds.containsKey(Thread.currentThread());
    }

    @Override
    public java.util.Collection<String> getParticipantNodes() throws Exception {
        return queue.participantNodes().stream().filter(participant).toList();
    }

    @Override
    public Optional<LockLease> heldByCurrentThread() {
        Hold hold = holds.get(Thread.currentThread());
        return hold == null ? Optional.empty() : Optional.of(hold.lease);
    }

    @Override
    public String toString() {
        return "InterProcessLock[" + what + " " + path + ", held by " + holds.size() + " thread(s) here]";
    }
}
