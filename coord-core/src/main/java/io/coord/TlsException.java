package io.coord;

/** A TLS connection could not be set up (wrong port, truststore, hostname or certificate); the cause carries the handshake error. */
public class TlsException extends CoordException {
    private static final long serialVersionUID = 1L;

    public TlsException(String message) {
        super(message);
    }

    public TlsException(String message, Throwable cause) {
        super(message, cause);
    }

}
