package io.coord.spring.boot;

import io.coord.ConfigurationException;

/**
 * A {@code coord.*} property has a value Coord refuses. Startup fails with it, and Spring Boot's
 * failure analysis names the property, the value and what is wrong with it.
 */
public final class InvalidCoordPropertyException extends ConfigurationException {
    private static final long serialVersionUID = 1L;

    private final String property;
    private final String value;

    InvalidCoordPropertyException(String property, Object value, String reason) {
        this(property, value, reason, null);
    }

    InvalidCoordPropertyException(String property, Object value, String reason, Throwable cause) {
        super("Coord property " + property + (value == null ? "" : " = '" + value + "'") + " is invalid: " + reason, cause);
        this.property = property;
        this.value = value == null ? null : value.toString();
    }

    /** The property's name as written in application properties, {@code coord.session-timeout} say. */
    public String property() {
        return property;
    }

    /** The refused value as bound, or null when it is missing. */
    public String value() {
        return value;
    }
}
