package io.coord;

/**
 * The root of every error Coord raises. Unchecked, so recipe APIs never declare
 * {@code throws Exception}; each subclass names one failure a caller can act on.
 *
 * <p>{@link #retryable()} says whether trying the same call again can succeed: bad input,
 * authorization and lost leases are final, a dropped connection is not. A retryable error may
 * also be <em>indeterminate</em> (the write may or may not have been applied): see
 * {@link ConnectionLostException}.
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
