package io.coord.barrier;

import io.coord.ConfigurationException;
import io.coord.CoordPath;
import java.lang.management.ManagementFactory;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * How one member uses a double barrier. Immutable; built by {@link #builder()}, which fails
 * early: each setting may be set once, and a bad value fails when it is set, naming it.
 *
 * @param memberId        how this member is named in the barrier's status and in every
 *                        {@link io.coord.BarrierBrokenException} ("worker-3"); one path segment of at
 *                        most {@value #MAX_MEMBER_ID_LENGTH} characters. Need not be unique, but
 *                        unique names make failures easy to read. Default: {@code pid@host#n}.
 * @param keepGenerations how many finished generations stay readable (for status, and for a
 *                        member that learns its generation's outcome late) before the member that
 *                        opens a new generation removes older ones; at least 2
 */
public record BarrierOptions(String memberId, int keepGenerations) {
    public static final int MAX_MEMBER_ID_LENGTH = 100;
    public static final int DEFAULT_KEEP_GENERATIONS = 8;
    private static final AtomicInteger INSTANCES = new AtomicInteger();

    public BarrierOptions {
        validateMemberId(memberId);
        if (keepGenerations < 2) {
            throw new ConfigurationException("keepGenerations must be >= 2, got " + keepGenerations);
        }
    }

    /** Default options: a generated member id, {@value #DEFAULT_KEEP_GENERATIONS} generations kept. */
    public static BarrierOptions defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding these options, to derive a variant (each setting may be set once more). */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.memberId = memberId;
        b.keepGenerations = keepGenerations;
        return b;
    }

    private static void validateMemberId(String id) {
        if (id == null || id.isBlank()) {
            throw new ConfigurationException("memberId must not be blank, got " + (id == null ? "null" : "\"" + id + "\""));
        }
        if (id.length() > MAX_MEMBER_ID_LENGTH) {
            throw new ConfigurationException("memberId \"" + id.substring(0, 20) + "...\" is " + id.length()
                    + " characters long, over the limit of " + MAX_MEMBER_ID_LENGTH);
        }
        try {
            CoordPath.validateName(id);
        } catch (RuntimeException e) {
            throw new ConfigurationException("memberId is not usable in a node name: " + e.getMessage(), e);
        }
    }

    /** {@code pid@host#n}: tells processes apart, and barrier instances within one process. */
    static String generatedMemberId() {
        String jvm = ManagementFactory.getRuntimeMXBean().getName();
        String id = jvm.replace('/', '_') + "#" + INSTANCES.incrementAndGet();
        return id.length() <= MAX_MEMBER_ID_LENGTH ? id : id.substring(id.length() - MAX_MEMBER_ID_LENGTH);
    }

    /** Builds {@link BarrierOptions}; each setter may be called once. */
    public static final class Builder {
        private String memberId;
        private int keepGenerations = DEFAULT_KEEP_GENERATIONS;
        private final Set<String> set = new HashSet<>();

        private Builder() {
        }

        public Builder memberId(String id) {
            once("memberId");
            validateMemberId(id);
            this.memberId = id;
            return this;
        }

        public Builder keepGenerations(int count) {
            once("keepGenerations");
            if (count < 2) {
                throw new ConfigurationException("keepGenerations must be >= 2, got " + count);
            }
            this.keepGenerations = count;
            return this;
        }

        public BarrierOptions build() {
            return new BarrierOptions(memberId == null ? generatedMemberId() : memberId, keepGenerations);
        }

        private void once(String name) {
            if (!set.add(name)) {
                throw new ConfigurationException(name + " was already set on this builder; set each option once");
            }
        }
    }
}
