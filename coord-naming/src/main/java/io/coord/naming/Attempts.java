package io.coord.naming;

import io.coord.ConnectionLostException;
import io.coord.CoordException;
import io.coord.CoordTimeoutException;
import io.coord.SessionExpiredException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongSupplier;

/**
 * The retry budget of one ID operation: a deadline from {@link IdOptions#timeout()} and jittered
 * exponential backoff between attempts. ID generation is bound to no session, so a lost
 * connection and an expired session are both transient here: the next attempt runs on whatever
 * session the client has then.
 */
final class Attempts {
    private final IdOptions options;
    private final LongSupplier nanoTime;
    private final long deadline;
    private final String what;
    private int attempt;

    Attempts(IdOptions options, LongSupplier nanoTime, String what) {
        this.options = options;
        this.nanoTime = nanoTime;
        this.deadline = nanoTime.getAsLong() + options.timeout().toNanos();
        this.what = what;
    }

    /** Errors after which the same operation may succeed: the write may or may not have been applied. */
    static boolean isTransient(CoordException e) {
        return e instanceof ConnectionLostException || e instanceof SessionExpiredException
                || e instanceof CoordTimeoutException;
    }

    /** Throws {@link CoordTimeoutException} (with {@code cause}) once the deadline has passed. */
    void checkDeadline(Throwable cause) {
        if (nanoTime.getAsLong() - deadline >= 0) {
            throw new CoordTimeoutException(what + " did not complete within " + options.timeout() + " (" + attempt
                    + " attempts)" + (cause == null ? "" : "; last error: " + cause.getMessage()), cause);
        }
    }

    /** Sleeps the next backoff (never past the deadline); throws if the deadline has passed. */
    void backoff(Throwable cause) throws InterruptedException {
        long pause = pauseNanos(cause);
        // A backoff is a pause before retrying, not a way to wait for another thread.
        Thread.sleep(pause / 1_000_000L, (int) (pause % 1_000_000L));
        checkDeadline(cause);
    }

    /**
     * The next backoff in nanoseconds (never past the deadline), counting the attempt; throws if the
     * deadline has passed. An async call schedules its retry after it instead of sleeping.
     */
    long pauseNanos(Throwable cause) {
        checkDeadline(cause);
        long pause = IdRule.backoffNanos(attempt++, options.backoffBase().toNanos(), options.backoffMax().toNanos(),
                ThreadLocalRandom.current().nextDouble());
        return Math.max(0, Math.min(pause, deadline - nanoTime.getAsLong()));
    }

    /** Counts an attempt that needs no pause (a node to create first). */
    void again(Throwable cause) {
        attempt++;
        checkDeadline(cause);
    }
}
