package io.coord;

/**
 * The root of every error Coord raises. Unchecked, so recipe APIs never declare
 * {@code throws Exception}; each subclass names one failure a caller can act on.
 *
 * <p>{@link #retryable()} says whether trying the same call again can succeed: bad input,
 * authorization and lost leases are final, a dropped connection is not. A retryable error may
 * also be <em>indeterminate</em> (the write may or may not have been applied): see
 * {@link ConnectionLostException}.
 *
 * <p>Where errors live: every error that more than one recipe raises, or that a caller handles
 * the same way whichever recipe raised it (lost lease, stale token, broken barrier, timeout,
 * connection, authorization, bad path, name or value), is a type of this package. A recipe keeps
 * a type of its own only for a refusal that names that recipe's own values and that callers act on
 * differently; it extends the core type a caller would otherwise catch, and its package says why
 * it has one: {@code io.coord.membership.MemberIdTakenException} (a {@link ConflictException}),
 * {@code io.coord.naming.NameTakenException} and {@code InvalidInstanceException},
 * {@code io.coord.config.ConfigValidationException}, and in {@code io.coord.queue}
 * {@code ClaimLostException} (a {@link LockLostException}), {@code QueueFullException} (a
 * {@link TooManyChildrenException}), {@code TaskRejectedException} and {@code OutcomeUnknownException}.
 */
public class CoordException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public CoordException(String message) {
        super(message);
    }

    public CoordException(String message, Throwable cause) {
        super(message, cause);
    }

    /** Whether the same call may succeed if tried again. Final errors return false. */
    public boolean retryable() {
        return false;
    }
}
