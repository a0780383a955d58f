package io.coord.naming;

import io.coord.ConfigurationException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Settings of {@link SequenceIds} and {@link BlockIds}, immutable and validated; built by
 * {@link #builder()}, which fails early.
 *
 * @param blockSize   IDs a {@link BlockIds} reserves with one compare-and-set (1..65 535). Bigger
 *                    blocks mean fewer writes and a bigger gap when a client dies holding one.
 * @param prefetchAt  fraction of the current block used (0 exclusive .. 1 inclusive) at which the
 *                    next block is reserved in the background; 1 waits until the block is spent
 * @param timeout     how long one {@code next()} may wait for ZooKeeper (connection loss, leader
 *                    election, compare-and-set conflicts) before {@link io.coord.CoordTimeoutException}
 * @param backoffBase first backoff after a compare-and-set conflict or a transient error; doubles
 *                    per attempt, with full jitter
 * @param backoffMax  the cap of that backoff
 */
public record IdOptions(int blockSize, double prefetchAt, Duration timeout, Duration backoffBase, Duration backoffMax) {
    public static final int DEFAULT_BLOCK_SIZE = 10_000;
    public static final double DEFAULT_PREFETCH_AT = 0.25;

    public IdOptions {
        if (blockSize < 1 || blockSize > IdRule.MAX_BLOCK) {
            throw new ConfigurationException("blockSize must be within 1.." + IdRule.MAX_BLOCK + ", got " + blockSize);
        }
        if (!(prefetchAt > 0 && prefetchAt <= 1)) {
            throw new ConfigurationException("prefetchAt must be a fraction within (0, 1], got " + prefetchAt);
        }
        positive("timeout", timeout);
        positive("backoffBase", backoffBase);
        positive("backoffMax", backoffMax);
        if (backoffBase.compareTo(backoffMax) > 0) {
            throw new ConfigurationException("backoffBase " + backoffBase + " is above backoffMax " + backoffMax);
        }
    }

    /** The defaults: blocks of 10 000, prefetch at 25 % used, 30 s timeout, backoff 1 ms .. 100 ms. */
    public static IdOptions defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        return new Builder(this);
    }

    private static void positive(String name, Duration value) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw new ConfigurationException(name + " must be > 0, got " + value);
        }
    }

    /** Builds {@link IdOptions}; each setting may be set once. */
    public static final class Builder {
        private Integer blockSize;
        private Double prefetchAt;
        private Duration timeout;
        private Duration backoffBase;
        private Duration backoffMax;
        private final List<String> set = new ArrayList<>();

        private Builder() {
        }

        private Builder(IdOptions o) {
            blockSize = o.blockSize;
            prefetchAt = o.prefetchAt;
            timeout = o.timeout;
            backoffBase = o.backoffBase;
            backoffMax = o.backoffMax;
        }

        public Builder blockSize(int size) {
            once("blockSize");
            this.blockSize = size;
            return this;
        }

        public Builder prefetchAt(double fractionUsed) {
            once("prefetchAt");
            this.prefetchAt = fractionUsed;
            return this;
        }

        public Builder timeout(Duration timeout) {
            once("timeout");
            this.timeout = timeout;
            return this;
        }

        public Builder backoff(Duration base, Duration max) {
            once("backoff");
            this.backoffBase = base;
            this.backoffMax = max;
            return this;
        }

        public IdOptions build() {
            return new IdOptions(blockSize == null ? DEFAULT_BLOCK_SIZE : blockSize,
                    prefetchAt == null ? DEFAULT_PREFETCH_AT : prefetchAt,
                    timeout == null ? Duration.ofSeconds(30) : timeout,
                    backoffBase == null ? Duration.ofMillis(1) : backoffBase,
                    backoffMax == null ? Duration.ofMillis(100) : backoffMax);
        }

        private void once(String name) {
            if (set.contains(name)) {
                throw new ConfigurationException(name + " is already set on this builder");
            }
            set.add(name);
        }
    }
}
