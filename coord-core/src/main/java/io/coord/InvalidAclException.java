package io.coord;

/** An ACL entry is malformed (plaintext digest id, unknown scheme, {@code auth} ACL without an authenticated identity); raised before anything is sent. */
public class InvalidAclException extends CoordException {
    private static final long serialVersionUID = 1L;

    public InvalidAclException(String message) {
        super(message);
    }

    public InvalidAclException(String message, Throwable cause) {
        super(message, cause);
    }

}
