package io.coord;

/** The connection dropped before the reply came: the operation is <em>indeterminate</em> (it may or may not have been applied). Retryable, but a retried write must be idempotent. */
public class ConnectionLostException extends CoordException {
    private static final long serialVersionUID = 1L;

    public ConnectionLostException(String message) {
        super(message);
    }

    public ConnectionLostException(String message, Throwable cause) {
        super(message, cause);
    }

    @Override
    public boolean retryable() {
        return true;
    }
}
