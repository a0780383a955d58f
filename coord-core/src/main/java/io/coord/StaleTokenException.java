package io.coord;

/** A fencing token lower than one already accepted for the same resource was presented: a lost lease was caught. */
public class StaleTokenException extends CoordException {
    private static final long serialVersionUID = 1L;

    public StaleTokenException(String message) {
        super(message);
    }

    public StaleTokenException(String message, Throwable cause) {
        super(message, cause);
    }

}
