package io.coord;

/** A bounded wait ran out before the condition held. */
public class CoordTimeoutException extends CoordException {
    private static final long serialVersionUID = 1L;

    public CoordTimeoutException(String message) {
        super(message);
    }

    public CoordTimeoutException(String message, Throwable cause) {
        super(message, cause);
    }

}
