package io.coord;

/** The path is {@code /zookeeper} or lies under it: ZooKeeper reserves that tree. */
public class ReservedPathException extends InvalidPathException {
    private static final long serialVersionUID = 1L;

    public ReservedPathException(String message) {
        super(message);
    }

    public ReservedPathException(String message, Throwable cause) {
        super(message, cause);
    }

}
