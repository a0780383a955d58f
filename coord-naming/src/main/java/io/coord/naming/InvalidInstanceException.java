package io.coord.naming;

import io.coord.CoordException;

/**
 * A service instance (or a service name) that discovery refuses, before anything is sent: a bad
 * DNS label or a {@code /} in the name, a bad instance id, a port outside 1–65535, a weight out of
 * range, a payload that is not a JSON object, or an id already registered. The message quotes the
 * bad value and names the rule. Final: the same call cannot succeed.
 */
public class InvalidInstanceException extends CoordException {
    private static final long serialVersionUID = 1L;

    public InvalidInstanceException(String message) {
        super(message);
    }

    public InvalidInstanceException(String message, Throwable cause) {
        super(message, cause);
    }
}
