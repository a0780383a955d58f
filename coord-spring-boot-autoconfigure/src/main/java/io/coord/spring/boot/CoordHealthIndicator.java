package io.coord.spring.boot;

import io.coord.CoordClient;
import io.coord.CoordSession;
import io.coord.SessionExpiredException;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * Health of the client's ZooKeeper session, named {@code coord}. Reads state only, never calls
 * ZooKeeper, so a health probe never waits on the ensemble.
 * <ul>
 *   <li>UP: the session is CONNECTED.</li>
 *   <li>OUT_OF_SERVICE: the session is SUSPENDED. It may still come back with every lease intact
 *       (a reconnect within the session timeout), so the instance is not broken, but it cannot
 *       coordinate now: take it out of rotation, do not restart it.</li>
 *   <li>DOWN: the session EXPIRED (or the client has none yet, or was closed). Everything bound to
 *       the session is gone; the client is getting a new session, and UP returns with it.
 *       With {@code coord.config.snapshot-dir} the application starts without waiting for the
 *       first session: DOWN ({@code NO_SESSION}) until it comes, and DOWN with the {@code error}
 *       if the server refused the client (authentication, TLS), which no retry mends.</li>
 * </ul>
 */
final class CoordHealthIndicator implements HealthIndicator {
    private final CoordClient client;

    CoordHealthIndicator(CoordClient client) {
        this.client = client;
    }

    @Override
    public Health health() {
        if (client.isClosed()) {
            return Health.down().withDetail("state", "CLOSED").build();
        }
        CoordSession session;
        try {
            session = client.session();
        } catch (SessionExpiredException none) {
            Health.Builder down = Health.down().withDetail("state", "NO_SESSION");
            client.startFailure().ifPresent(e -> down.withDetail("error", e.getMessage()));
            return details(down);
        }
        Health.Builder health = switch (session.state()) {
            case CONNECTED -> Health.up();
            case SUSPENDED -> Health.outOfService();
            case EXPIRED, CLOSED -> Health.down();
        };
        return details(health.withDetail("state", session.state().name()).withDetail("sessionId", session.idHex()));
    }

    private Health details(Health.Builder health) {
        health.withDetail("requestedSessionTimeout", client.requestedSessionTimeout().toString())
                .withDetail("negotiatedSessionTimeout", client.negotiatedSessionTimeout().toString());
        if (client.metrics() instanceof StallCountingMetrics counting) {
            health.withDetail("stalls", counting.stalls());
        }
        return health.build();
    }
}
