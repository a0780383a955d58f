package io.coord;

/** The server rejected this client's credentials or authentication scheme; terminal for the connection. */
public class AuthenticationException extends CoordException {
    private static final long serialVersionUID = 1L;

    public AuthenticationException(String message) {
        super(message);
    }

    public AuthenticationException(String message, Throwable cause) {
        super(message, cause);
    }

}
