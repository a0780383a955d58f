package io.coord.lock;

import io.coord.CoordPath;
import io.coord.SessionExpiredException;
import io.coord.internal.Zk;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.curator.RetryPolicy;
import org.apache.curator.RetrySleeper;

/**
 * Curator's contract for a waiter whose session ends while it waits (its queued node is gone with
 * it): InterProcessMutex and InterProcessSemaphoreV2 start again on the new session, as often as
 * the client's retry policy allows (LockInternals.attemptLock and the semaphore's missing-node
 * case ask it). The Curator views do the same: they ask the same policy, the client's own (built
 * from {@link io.coord.RetrySettings} for a client Coord made, the caller's for a wrapped one), and
 * the policy's sleep is cut at the caller's deadline. Only waiting is retried; a hold is never
 * re-taken behind the caller's back (a held lease that is lost stays LOST). A closed client is
 * not waited on again (as Curator's closed client refuses at once), and the exception that ends
 * the wait names the lock, whichever attempt failed last.
 */
final class AcrossSessions {
    /** How a view gets a fresh lease: {@code timeoutNanos} < 0 waits until granted or interrupted. */
    @FunctionalInterface
    interface Acquirer {
        Optional<LockLease> acquire(long timeoutNanos) throws InterruptedException;
    }

    private AcrossSessions() {
    }

    static Optional<LockLease> acquire(Zk zk, CoordPath path, Acquirer acquirer, long timeoutNanos)
            throws InterruptedException {
        RetryPolicy retry = zk.curator().getZookeeperClient().getRetryPolicy();
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
                if (zk.client().isClosed()) {
                    throw new SessionExpiredException("the client was closed while waiting for " + path + " (" + e.getMessage() + ")", e);
                }
                long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                boolean again = retry.allowRetry(retries, elapsedMs, untilDeadline);
                if (Thread.interrupted()) { // the policy swallows an interrupt of its sleep and sets the flag again
                    throw new InterruptedException("interrupted while waiting to queue again for " + path + " after " + e.getMessage());
                }
                if (!again || (timeoutNanos >= 0 && System.nanoTime() - start >= timeoutNanos)) {
                    throw e.getMessage().contains(path.value()) ? e : new SessionExpiredException("gave up waiting for " + path
                            + " after " + (retries + 1) + " attempt(s), as the client's retry policy allows: " + e.getMessage(), e);
                }
            }
        }
    }
}
