package io.coord;

/** A barrier generation broke (a member left, failed or timed out); every waiter of that generation gets this. */
public class BarrierBrokenException extends CoordException {
    private static final long serialVersionUID = 1L;

    public BarrierBrokenException(String message) {
        super(message);
    }

    public BarrierBrokenException(String message, Throwable cause) {
        super(message, cause);
    }

}
