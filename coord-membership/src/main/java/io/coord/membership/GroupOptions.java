package io.coord.membership;

import com.fasterxml.jackson.core.type.TypeReference;
import io.coord.Codec;
import io.coord.ConfigurationException;
import io.coord.CoordSettings;
import java.time.Duration;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;

/**
 * How a {@link Group} reads and writes member metadata and watches its members. Built by
 * {@link #builder(Class)} (or from a {@link Codec}), which fails early; {@link #toBuilder()}
 * derives variants.
 *
 * @param codec       JSON codec for member metadata; its limit is the largest metadata accepted
 *                    (checked before anything is sent)
 * @param flapWindow  a member that leaves and joins again within this window counts as a flap
 * @param maxMembers  joins are refused ({@link io.coord.TooManyChildrenException}) once the group
 *                    holds this many members: listing a parent past about 1 MB of names fails
 * @param rejoin      whether a membership that lost its node creates a new one by itself
 */
public record GroupOptions<M>(Codec<M> codec, Duration flapWindow, int maxMembers, boolean rejoin) {
    public static final int DEFAULT_MAX_METADATA_BYTES = 64 * 1024;
    public static final Duration DEFAULT_FLAP_WINDOW = Duration.ofMinutes(1);
    public static final int DEFAULT_MAX_MEMBERS = 1000;

    public GroupOptions {
        Objects.requireNonNull(codec, "codec");
        if (codec.limit() > CoordSettings.DEFAULT_MAX_VALUE_BYTES) {
            throw new ConfigurationException("metadata limit " + codec.limit() + " bytes is over the znode limit of "
                    + CoordSettings.DEFAULT_MAX_VALUE_BYTES);
        }
        if (flapWindow == null || flapWindow.isNegative() || flapWindow.isZero()) {
            throw new ConfigurationException("flapWindow must be > 0, got " + flapWindow);
        }
        if (maxMembers <= 0) {
            throw new ConfigurationException("maxMembers must be > 0, got " + maxMembers);
        }
    }

    /** Options for metadata of {@code type}, with every default. */
    public static <M> GroupOptions<M> of(Class<M> type) {
        return builder(type).build();
    }

    public static <M> Builder<M> builder(Class<M> type) {
        return new Builder<>(Codec.json(type), false, DEFAULT_MAX_METADATA_BYTES);
    }

    public static <M> Builder<M> builder(TypeReference<M> type) {
        return new Builder<>(Codec.json(type), false, DEFAULT_MAX_METADATA_BYTES);
    }

    /** Starts from {@code codec}, whose limit is the metadata limit (so {@code maxMetadataBytes} may not be set too). */
    public static <M> Builder<M> builder(Codec<M> codec) {
        return new Builder<>(Objects.requireNonNull(codec, "codec"), true, codec.limit());
    }

    public Builder<M> toBuilder() {
        // a derived builder may change the limit once more
        Builder<M> b = new Builder<>(codec, false, codec.limit());
        b.flapWindow = flapWindow;
        b.maxMembers = maxMembers;
        b.rejoin = rejoin;
        return b;
    }

    /** The largest metadata accepted, in bytes (of JSON). */
    public int maxMetadataBytes() {
        return codec.limit();
    }

    /** Builds {@link GroupOptions}; each setting may be set once. */
    public static final class Builder<M> {
        private final Codec<M> codec;
        private final boolean codecLimitGiven;
        private final int baseLimit;
        private final Set<String> set = new HashSet<>();
        private Integer maxMetadataBytes;
        private Duration flapWindow = DEFAULT_FLAP_WINDOW;
        private int maxMembers = DEFAULT_MAX_MEMBERS;
        private boolean rejoin = true;

        private Builder(Codec<M> codec, boolean codecLimitGiven, int baseLimit) {
            this.codec = codec;
            this.codecLimitGiven = codecLimitGiven;
            this.baseLimit = baseLimit;
        }

        private void once(String name) {
            if (!set.add(name)) {
                throw new ConfigurationException("setting '" + name + "' was set twice");
            }
        }

        /** Largest metadata (encoded JSON) accepted; default {@value #DEFAULT_MAX_METADATA_BYTES}. */
        public Builder<M> maxMetadataBytes(int bytes) {
            once("maxMetadataBytes");
            if (bytes <= 0 || bytes > CoordSettings.DEFAULT_MAX_VALUE_BYTES) {
                throw new ConfigurationException("maxMetadataBytes must be within 1.." + CoordSettings.DEFAULT_MAX_VALUE_BYTES
                        + ", got " + bytes);
            }
            maxMetadataBytes = bytes;
            return this;
        }

        public Builder<M> flapWindow(Duration window) {
            once("flapWindow");
            if (window == null || window.isNegative() || window.isZero()) {
                throw new ConfigurationException("flapWindow must be > 0, got " + window);
            }
            flapWindow = window;
            return this;
        }

        public Builder<M> maxMembers(int max) {
            once("maxMembers");
            if (max <= 0) {
                throw new ConfigurationException("maxMembers must be > 0, got " + max);
            }
            maxMembers = max;
            return this;
        }

        /** Whether a membership that lost its node rejoins by itself (default true). */
        public Builder<M> rejoin(boolean value) {
            once("rejoin");
            rejoin = value;
            return this;
        }

        public GroupOptions<M> build() {
            if (codecLimitGiven && maxMetadataBytes != null && maxMetadataBytes != codec.limit()) {
                throw new ConfigurationException("the metadata limit was set twice: the codec's limit is " + codec.limit()
                        + " bytes and maxMetadataBytes is " + maxMetadataBytes + "; set one of them");
            }
            int limit = maxMetadataBytes != null ? maxMetadataBytes : baseLimit;
            return new GroupOptions<>(codec.limit() == limit ? codec : codec.withLimit(limit), flapWindow, maxMembers, rejoin);
        }
    }
}
