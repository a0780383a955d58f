package io.coord;

/** A create was refused because its parent node does not exist. */
public class NoParentException extends CoordException {
    private static final long serialVersionUID = 1L;

    public NoParentException(String message) {
        super(message);
    }

    public NoParentException(String message, Throwable cause) {
        super(message, cause);
    }

}
