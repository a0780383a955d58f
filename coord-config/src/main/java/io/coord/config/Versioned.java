package io.coord.config;

import java.time.Instant;
import java.util.Objects;

/**
 * A configuration value with where it came from.
 *
 * @param value    the value; never null
 * @param version  the znode version ({@code Stat.version}) of the node it was read from: what
 *                 {@link ConfigStore#compareAndSet} expects and what history is numbered by;
 *                 {@value #NO_VERSION} for a {@linkplain Origin#DEFAULT default}
 * @param revision the node's {@code mzxid}: ZooKeeper's global, never-decreasing transaction id
 *                 of the write that produced the value. Unlike {@code version} it keeps growing
 *                 across a delete and re-create, which is why readers order updates by it. 0 for
 *                 a default
 * @param modified when the server applied that write (the node's {@code mtime}, the server's
 *                 clock); {@link Instant#EPOCH} for a default
 * @param origin   where the value came from
 */
public record Versioned<T>(T value, long version, long revision, Instant modified, Origin origin) {
    /** The version of a value that was never written: a default. */
    public static final long NO_VERSION = -1;

    /** Where a value a reader holds came from. */
    public enum Origin {
        /** The documented default of the {@link ConfigKey}: the key does not exist. */
        DEFAULT,
        /** The local snapshot file, used because the ensemble could not be reached: stale until the first live read. */
        SNAPSHOT,
        /** The key's released value, read from ZooKeeper. */
        LIVE,
        /** A canary value, read from ZooKeeper; only instances inside the canary percentage apply it. */
        CANARY
    }

    public Versioned {
        Objects.requireNonNull(value, "value");
        Objects.requireNonNull(modified, "modified");
        Objects.requireNonNull(origin, "origin");
        if (version < NO_VERSION) {
            throw new IllegalArgumentException("version must be >= -1, got " + version);
        }
        if (revision < 0) {
            throw new IllegalArgumentException("revision must be >= 0, got " + revision);
        }
        if ((origin == Origin.DEFAULT) != (version == NO_VERSION)) {
            throw new IllegalArgumentException("a value has version -1 exactly when it is a default; got version "
                    + version + " with origin " + origin);
        }
    }

    /** The default value of a key that does not exist. */
    static <T> Versioned<T> ofDefault(T value) {
        return new Versioned<>(value, NO_VERSION, 0, Instant.EPOCH, Origin.DEFAULT);
    }

    /** The same metadata with another value. */
    <U> Versioned<U> withValue(U other) {
        return new Versioned<>(other, version, revision, modified, origin);
    }

    /** True if both name the same write (same origin, version and revision), whatever the value objects. */
    boolean sameWrite(Versioned<?> other) {
        return other != null && other.origin == origin && other.version == version && other.revision == revision;
    }

    @Override
    public String toString() {
        return origin == Origin.DEFAULT ? "default " + value
                : "v" + version + " (rev 0x" + Long.toHexString(revision) + ", " + origin + ") " + value;
    }
}
