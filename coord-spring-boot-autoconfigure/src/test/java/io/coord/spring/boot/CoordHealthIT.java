package io.coord.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.coord.CoordClient;
import io.coord.test.Awaits;
import io.coord.test.ClientProxy;
import io.coord.test.Faults;
import io.coord.test.ZooKeeperExtension;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The {@code coord} health indicator follows the session: UP, OUT_OF_SERVICE while suspended, DOWN once expired, UP on the new session. */
class CoordHealthIT {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.single();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(CoordAutoConfiguration.class));

    @Test
    void healthIsDownWhileTheSessionIsExpiredAndUpAgainOnANewSession() {
        try (ClientProxy proxy = ClientProxy.to(zk.ensemble())) {
            runner.withPropertyValues("coord.connect-string=" + proxy.connectString(), "coord.namespace=" + zk.namespace(),
                    "coord.session-timeout=4s",
                    "coord.connection-timeout=" + Awaits.scaled(Duration.ofSeconds(10)).toMillis() + "ms").run(context -> {
                HealthIndicator indicator = context.getBean("coordHealthIndicator", HealthIndicator.class);
                CoordClient client = context.getBean(CoordClient.class);
                String first = client.session().idHex();

                Health up = indicator.health();
                assertThat(up.getStatus()).isEqualTo(Status.UP);
                assertThat(up.getDetails()).containsEntry("state", "CONNECTED").containsEntry("sessionId", first)
                        .containsEntry("requestedSessionTimeout", "PT4S").containsEntry("negotiatedSessionTimeout", "PT4S")
                        .containsEntry("stalls", 0L);

                // No traffic: Curator suspends the connection; the session may still come back.
                proxy.freeze();
                awaitStatus(indicator, Status.OUT_OF_SERVICE);
                // The server ends the session; the client, cut off, gives it up after the session timeout.
                Faults.expireSession(client, zk.ensemble());
                Health down = awaitStatus(indicator, Status.DOWN);
                assertThat(down.getDetails()).containsEntry("state", "EXPIRED").containsEntry("sessionId", first);
                // DOWN holds while the client cannot reach the ensemble: nothing flips it back early.
                Awaits.never("health other than DOWN while cut off", Duration.ofSeconds(1),
                        () -> indicator.health().getStatus() != Status.DOWN);

                proxy.unfreeze();
                Health again = awaitStatus(indicator, Status.UP);
                assertThat(again.getDetails()).containsEntry("state", "CONNECTED");
                assertThat(again.getDetails().get("sessionId")).isNotEqualTo(first);
            });
        }
    }

    private static Health awaitStatus(HealthIndicator indicator, Status status) {
        return Awaits.value("coord health " + status, Duration.ofSeconds(30), () -> {
            Health h = indicator.health();
            return h.getStatus().equals(status) ? java.util.Optional.of(h) : java.util.Optional.empty();
        });
    }
}
