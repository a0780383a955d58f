package io.coord;

/** The lease (lock, leadership, claim, barrier seat) is no longer held, or not certainly held: protected work must stop. */
public class LockLostException extends CoordException {
    private static final long serialVersionUID = 1L;

    public LockLostException(String message) {
        super(message);
    }

    public LockLostException(String message, Throwable cause) {
        super(message, cause);
    }

}
