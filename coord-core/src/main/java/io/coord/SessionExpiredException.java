package io.coord;

/** The ZooKeeper session ended; everything bound to it (ephemeral nodes, leases) is gone. Never retried on the same lease. */
public class SessionExpiredException extends CoordException {
    private static final long serialVersionUID = 1L;

    public SessionExpiredException(String message) {
        super(message);
    }

    public SessionExpiredException(String message, Throwable cause) {
        super(message, cause);
    }

}
