package io.coord.lock;

import io.coord.ConfigurationException;
import java.time.Clock;
import java.util.Objects;

/**
 * How a lock, read-write lock or semaphore behaves. Immutable; built by {@link #builder()}, which
 * fails early: each setting may be set once, and a bad value fails when it is set, naming it.
 *
 * @param ownerName      written into each lock node as the holder's name (shown by inspection and
 *                       {@code coord lock show}); null means the acquiring thread's name
 * @param clock          the wall clock for {@link LockLease#heldSince()} and the held-since stamp;
 *                       waiting and timeouts never use it (they run on {@link System#nanoTime()})
 * @param maxQueueLength the most nodes (holders and waiters) one lock may have; an acquire that
 *                       finds more removes its node and fails with
 *                       {@link io.coord.TooManyChildrenException}, because a listing over
 *                       ZooKeeper's 1 MB packet limit would fail every waiter with ConnectionLoss
 */
public record LockOptions(String ownerName, Clock clock, int maxQueueLength) {
    /** Enough for any sane queue; 10 000 protected names are about 600 KB, under the packet limit. */
    public static final int DEFAULT_MAX_QUEUE_LENGTH = 10_000;

    public LockOptions {
        if (ownerName != null && (ownerName.isBlank() || ownerName.length() > 256)) {
            throw new ConfigurationException("ownerName must be 1..256 non-blank characters, got \"" + ownerName + "\"");
        }
        Objects.requireNonNull(clock, "clock");
        if (maxQueueLength < 1) {
            throw new ConfigurationException("maxQueueLength must be >= 1, got " + maxQueueLength);
        }
    }

    /** The defaults: thread name as owner, the system clock, a queue of at most {@value #DEFAULT_MAX_QUEUE_LENGTH}. */
    public static LockOptions defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding these options, to derive a variant (each setting may be set once more). */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.ownerName = ownerName;
        b.clock = clock;
        b.maxQueueLength = maxQueueLength;
        return b;
    }

    /** Builds {@link LockOptions}; each setter may be called once. */
    public static final class Builder {
        private String ownerName;
        private Clock clock = Clock.systemUTC();
        private int maxQueueLength = DEFAULT_MAX_QUEUE_LENGTH;
        private final java.util.Set<String> set = new java.util.HashSet<>();

        private Builder() {
        }

        public Builder ownerName(String name) {
            once("ownerName");
            if (name == null || name.isBlank()) {
                throw new ConfigurationException("ownerName must not be blank, got " + (name == null ? "null" : "\"" + name + "\""));
            }
            this.ownerName = name;
            return this;
        }

        public Builder clock(Clock clock) {
            once("clock");
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        public Builder maxQueueLength(int max) {
            once("maxQueueLength");
            if (max < 1) {
                throw new ConfigurationException("maxQueueLength must be >= 1, got " + max);
            }
            this.maxQueueLength = max;
            return this;
        }

        public LockOptions build() {
            return new LockOptions(ownerName, clock, maxQueueLength);
        }

        private void once(String name) {
            if (!set.add(name)) {
                throw new ConfigurationException(name + " was already set on this builder; set each option once");
            }
        }
    }
}
