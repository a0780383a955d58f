package io.coord;

/** The server refused an operation for lack of permission (ZooKeeper {@code NoAuth}); the message names the path and the identities this client presented. */
public class NotAuthorizedException extends CoordException {
    private static final long serialVersionUID = 1L;

    public NotAuthorizedException(String message) {
        super(message);
    }

    public NotAuthorizedException(String message, Throwable cause) {
        super(message, cause);
    }

}
