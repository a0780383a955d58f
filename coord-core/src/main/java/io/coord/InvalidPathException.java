package io.coord;

/** A path or path segment breaks ZooKeeper's or Coord's path rules; the message quotes the input and names the rule. */
public class InvalidPathException extends CoordException {
    private static final long serialVersionUID = 1L;

    public InvalidPathException(String message) {
        super(message);
    }

    public InvalidPathException(String message, Throwable cause) {
        super(message, cause);
    }

}
