package io.coord;

/** A setting is malformed or two settings contradict each other; raised when settings are built, before any connection. */
public class ConfigurationException extends CoordException {
    private static final long serialVersionUID = 1L;

    public ConfigurationException(String message) {
        super(message);
    }

    public ConfigurationException(String message, Throwable cause) {
        super(message, cause);
    }

}
