package io.coord;

/**
 * A TLS connection could not be set up (wrong port, truststore, hostname, an expired or refused
 * certificate); the message names the server and the cause, the cause carries the handshake error.
 */
public class TlsException extends CoordException {
    private static final long serialVersionUID = 1L;

    public TlsException(String message) {
        super(message);
    }

    public TlsException(String message, Throwable cause) {
        super(message, cause);
    }

}
