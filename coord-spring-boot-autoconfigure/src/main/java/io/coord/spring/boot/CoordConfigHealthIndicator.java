package io.coord.spring.boot;

import io.coord.config.ConfigRejection;
import io.coord.config.Versioned;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * Health {@code coordConfig}: what each config bean applied, and the last update it refused. Always
 * UP: a bean that refused an update still serves its last good value (the session's health is the
 * {@code coord} indicator's). Reads state only, never ZooKeeper.
 */
final class CoordConfigHealthIndicator implements HealthIndicator {
    private final CoordConfigs configs;

    CoordConfigHealthIndicator(CoordConfigs configs) {
        this.configs = configs;
    }

    @Override
    public Health health() {
        Health.Builder health = Health.up();
        for (CoordConfigValue<?> value : configs.values()) {
            Versioned<?> current = value.current();
            Map<String, Object> details = new LinkedHashMap<>();
            details.put("version", current.version());
            details.put("origin", current.origin().name());
            details.put("stale", value.isStale());
            value.lastRejection().ifPresent(r -> details.put("lastRejected", rejection(r)));
            health.withDetail(value.key().path().value(), details);
        }
        return health.build();
    }

    private static Map<String, Object> rejection(ConfigRejection r) {
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("version", r.version());
        details.put("reason", r.reason());
        details.put("error", r.error());
        return details;
    }
}
