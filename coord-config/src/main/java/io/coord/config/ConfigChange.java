package io.coord.config;

import java.util.Objects;

/**
 * One change a reader applied.
 *
 * @param path     the node (or, for a whole-app binding, the app node) whose value changed
 * @param previous what the reader held before; null for the first value it ever held
 * @param current  what it holds now
 */
public record ConfigChange<T>(String path, Versioned<T> previous, Versioned<T> current) {
    public ConfigChange {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(current, "current");
    }

    /** The value before the change, or null if this is the first value. */
    public T oldValue() {
        return previous == null ? null : previous.value();
    }

    public T newValue() {
        return current.value();
    }

    /** The version now applied ({@link Versioned#NO_VERSION} for a default). */
    public long version() {
        return current.version();
    }

    @Override
    public String toString() {
        return "ConfigChange[" + path + ": " + (previous == null ? "none" : previous) + " -> " + current + "]";
    }
}
