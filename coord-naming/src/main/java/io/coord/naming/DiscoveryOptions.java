package io.coord.naming;

import io.coord.ConfigurationException;
import io.coord.CoordPath;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Settings of a {@link Discovery}, immutable and validated; built by {@link #builder()}.
 *
 * @param root                root node of the service tree (default {@code /services})
 * @param localZone           this process's zone, for {@link Strategy#ZONE_PREFERRING}; null if none
 * @param strategy            the strategy of {@link Discovery#resolve(String)} (default round robin)
 * @param downErrorThreshold  reports of failure after which an instance is skipped (as
 *                            curator-x-discovery's {@code DownInstancePolicy}: default 2)
 * @param downTimeout         how long after its first reported failure an instance is skipped
 *                            before it comes back on its own (default 30 s, as Curator's)
 * @param healthCheckInterval how often a registered instance's own health check runs (default 5 s)
 */
public record DiscoveryOptions(CoordPath root, String localZone, Strategy strategy, int downErrorThreshold,
                               Duration downTimeout, Duration healthCheckInterval) {
    public DiscoveryOptions {
        Objects.requireNonNull(root, "root");
        if (root.isRoot()) {
            throw new ConfigurationException("discovery root must not be \"/\"");
        }
        if (localZone != null && ServiceNames.labelProblem(localZone) != null) {
            throw new ConfigurationException("localZone is invalid: " + ServiceNames.labelProblem(localZone));
        }
        Objects.requireNonNull(strategy, "strategy");
        if (strategy == Strategy.ZONE_PREFERRING && localZone == null) {
            throw new ConfigurationException("strategy ZONE_PREFERRING needs localZone to be set");
        }
        if (downErrorThreshold < 1) {
            throw new ConfigurationException("downErrorThreshold must be >= 1, got " + downErrorThreshold);
        }
        positive("downTimeout", downTimeout);
        positive("healthCheckInterval", healthCheckInterval);
    }

    public static DiscoveryOptions defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        Builder b = new Builder();
        b.root = root;
        b.localZone = localZone;
        b.strategy = strategy;
        b.downErrorThreshold = downErrorThreshold;
        b.downTimeout = downTimeout;
        b.healthCheckInterval = healthCheckInterval;
        return b;
    }

    private static void positive(String name, Duration value) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw new ConfigurationException(name + " must be > 0, got " + value);
        }
    }

    /** Builds {@link DiscoveryOptions}; each setting may be set once. */
    public static final class Builder {
        private CoordPath root;
        private String localZone;
        private Strategy strategy;
        private Integer downErrorThreshold;
        private Duration downTimeout;
        private Duration healthCheckInterval;
        private final List<String> set = new ArrayList<>();

        private Builder() {
        }

        public Builder root(CoordPath root) {
            once("root");
            this.root = root;
            return this;
        }

        public Builder localZone(String zone) {
            once("localZone");
            this.localZone = zone;
            return this;
        }

        public Builder strategy(Strategy strategy) {
            once("strategy");
            this.strategy = strategy;
            return this;
        }

        /** Curator's {@code DownInstancePolicy(timeout, errorThreshold)}: skip after {@code errors} reports, for {@code timeout}. */
        public Builder downInstancePolicy(Duration timeout, int errors) {
            once("downInstancePolicy");
            this.downTimeout = timeout;
            this.downErrorThreshold = errors;
            return this;
        }

        public Builder healthCheckInterval(Duration interval) {
            once("healthCheckInterval");
            this.healthCheckInterval = interval;
            return this;
        }

        public DiscoveryOptions build() {
            return new DiscoveryOptions(root == null ? Layout.SERVICES : root, localZone,
                    strategy == null ? Strategy.ROUND_ROBIN : strategy,
                    downErrorThreshold == null ? 2 : downErrorThreshold,
                    downTimeout == null ? Duration.ofSeconds(30) : downTimeout,
                    healthCheckInterval == null ? Duration.ofSeconds(5) : healthCheckInterval);
        }

        private void once(String name) {
            if (set.contains(name)) {
                throw new ConfigurationException(name + " is already set on this builder");
            }
            set.add(name);
        }
    }
}
