package io.coord;

/** A parent already holds as many children as its configured cap allows (queue depth, member count). */
public class TooManyChildrenException extends CoordException {
    private static final long serialVersionUID = 1L;

    public TooManyChildrenException(String message) {
        super(message);
    }

    public TooManyChildrenException(String message, Throwable cause) {
        super(message, cause);
    }

}
