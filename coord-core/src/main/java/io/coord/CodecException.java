package io.coord;

/** Bytes read from a znode could not be decoded (or a value could not be encoded); the message names the path and the JSON problem. */
public class CodecException extends CoordException {
    private static final long serialVersionUID = 1L;

    public CodecException(String message) {
        super(message);
    }

    public CodecException(String message, Throwable cause) {
        super(message, cause);
    }

}
