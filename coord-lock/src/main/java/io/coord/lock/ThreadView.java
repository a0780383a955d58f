package io.coord.lock;

import io.coord.CoordPath;
import io.coord.SessionExpiredException;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.curator.RetryPolicy;
import org.apache.curator.RetrySleeper;
import org.apache.curator.framework.recipes.locks.InterProcessLock;

/**
 * Curator's {@link InterProcessLock} contract over Coord leases: holds belong to threads and are
 * reentrant per thread (a count per thread, as InterProcessMutex keeps), while each hold is a real
 * {@link LockLease} with token and loss signal. Only the owning thread may release;
 * anyone else gets {@link IllegalMonitorStateException} saying who does own it. A waiter whose
 * session ends starts again on the new session, as InterProcessMutex does.
 */
final class ThreadView implements InterProcessLock {
    /** How the view gets a fresh lease: {@code timeoutNanos} < 0 waits until granted or interrupted. */
    @FunctionalInterface
    interface Acquirer {
        Optional<LockLease> acquire(long timeoutNanos) throws InterruptedException;
    }

    private static final class Hold {
        final LockLease lease;
        int count = 1; // only the owning thread touches it

        Hold(LockLease lease) {
            this.lease = lease;
        }
    }

    private final CoordPath path;
    private final String what;
    private final Acquirer acquirer;
    private final RetryPolicy retry;
    private final Map<Thread, Hold> holds = new ConcurrentHashMap<>();

    ThreadView(CoordPath path, String what, Acquirer acquirer, RetryPolicy retry) {
        this.path = path;
        this.what = what;
        this.acquirer = acquirer;
        this.retry = retry;
    }

    @Override
    public void acquire() throws Exception {
        if (!acquire(-1)) {
            throw new IllegalStateException("unbounded acquire of " + what + " " + path + " returned without the lock");
        }
    }

    @Override
    public boolean acquire(long time, TimeUnit unit) throws Exception {
        return acquire(Math.max(0, unit.toNanos(time)));
    }

    private boolean acquire(long timeoutNanos) throws InterruptedException {
        Hold hold = holds.get(Thread.currentThread());
        if (hold != null) {
            // Reentry: only onto a lease that is still certainly ours.
            hold.lease.checkValid();
            hold.count++;
            return true;
        }
        Optional<LockLease> lease = acquireAcrossSessions(timeoutNanos);
        lease.ifPresent(l -> holds.put(Thread.currentThread(), new Hold(l)));
        return lease.isPresent();
    }

    /**
     * Curator's contract: when the waiter's session ends while it waits (its queued node is gone
     * with it), InterProcessMutex's acquire starts again on the new session, as often as the
     * client's retry policy allows (LockInternals.attemptLock asks it). So does the view: it asks
     * the same policy, the client's own, and the policy's sleep is cut at the caller's deadline.
     * Only waiting is retried; a hold is never re-taken behind the caller's back (a held lease
     * that is lost stays LOST).
     */
    private Optional<LockLease> acquireAcrossSessions(long timeoutNanos) throws InterruptedException {
        long start = System.nanoTime();
        RetrySleeper untilDeadline = (time, unit) -> {
            long nanos = timeoutNanos < 0 ? unit.toNanos(time) : Math.min(unit.toNanos(time), start + timeoutNanos - System.nanoTime());
            if (nanos > 0) {
                TimeUnit.NANOSECONDS.sleep(nanos);
            }
        };
        for (int retries = 0; ; retries++) {
            long left = timeoutNanos < 0 ? -1 : Math.max(0, timeoutNanos - (System.nanoTime() - start));
            try {
                return acquirer.acquire(left);
            } catch (SessionExpiredException e) {
                long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                boolean again = retry.allowRetry(retries, elapsedMs, untilDeadline);
                if (Thread.interrupted()) { // the policy swallows an interrupt of its sleep and sets the flag again
                    throw new InterruptedException("interrupted while waiting to queue again for " + path + " after " + e.getMessage());
                }
                if (!again || (timeoutNanos >= 0 && System.nanoTime() - start >= timeoutNanos)) {
                    throw e;
                }
            }
        }
    }

    @Override
    public void release() {
        Thread me = Thread.currentThread();
        Hold hold = holds.get(me);
        if (hold == null) {
            String owners = holds.keySet().stream().map(t -> "\"" + t.getName() + "\"").collect(Collectors.joining(", "));
            throw new IllegalMonitorStateException("thread \"" + me.getName() + "\" does not hold " + what + " " + path
                    + (owners.isEmpty() ? "; no thread of this process holds it" : "; it is held here by thread " + owners)
                    + ". The Curator view's holds belong to the thread that acquired them; to release from another"
                    + " thread, use the LockLease API (acquire(Duration) returns a handle any thread may close)");
        }
        if (--hold.count == 0) {
            holds.remove(me);
            hold.lease.close();
        }
    }

    @Override
    public boolean isAcquiredInThisProcess() {
        return !holds.isEmpty();
    }

    /** The lease the calling thread holds through this view. */
    Optional<LockLease> leaseOfCurrentThread() {
        Hold hold = holds.get(Thread.currentThread());
        return hold == null ? Optional.empty() : Optional.of(hold.lease);
    }

    @Override
    public String toString() {
        return "InterProcessLock[" + what + " " + path + ", held by " + holds.size() + " thread(s) here]";
    }
}
