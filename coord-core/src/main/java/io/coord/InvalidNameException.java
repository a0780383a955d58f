package io.coord;

/** A recipe name (lock, group, queue, ...) contains {@code /}, is empty, or is too long. */
public class InvalidNameException extends InvalidPathException {
    private static final long serialVersionUID = 1L;

    public InvalidNameException(String message) {
        super(message);
    }

    public InvalidNameException(String message, Throwable cause) {
        super(message, cause);
    }

}
