package io.coord;

/** A compare-and-set lost: the node's version is not the one expected. The message names the path and both versions. */
public class ConflictException extends CoordException {
    private static final long serialVersionUID = 1L;

    public ConflictException(String message) {
        super(message);
    }

    public ConflictException(String message, Throwable cause) {
        super(message, cause);
    }

}
