package io.coord.lock;

import io.coord.CoordPath;
import io.coord.SessionExpiredException;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.curator.RetryPolicy;
import org.apache.curator.RetrySleeper;

/**
 * Curator's contract for a waiter whose session ends while it waits (its queued node is gone with
 * it): InterProcessMutex and InterProcessSemaphoreV2 start again on the new session, as often as
 * the client's retry policy allows (LockInternals.attemptLock and the semaphore's missing-node
 * case ask it). The Curator views do the same: they ask the same policy, the client's own, and
 * the policy's sleep is cut at the caller's deadline. Only waiting is retried; a hold is never
 * re-taken behind the caller's back (a held lease that is lost stays LOST).
 */
final class AcrossSessions {
    /** How a view gets a fresh lease: {@code timeoutNanos} < 0 waits until granted or interrupted. */
    @FunctionalInterface
    interface Acquirer {
        Optional<LockLease> acquire(long timeoutNanos) throws InterruptedException;
    }

    private AcrossSessions() {
    }

    static Optional<LockLease> acquire(RetryPolicy retry, CoordPath path, Acquirer acquirer, long timeoutNanos)
            throws InterruptedException {
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
}
