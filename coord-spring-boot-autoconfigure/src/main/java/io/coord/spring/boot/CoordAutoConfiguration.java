package io.coord.spring.boot;

import io.coord.CoordClient;
import io.coord.CoordMetrics;
import io.coord.CoordSettings;
import io.coord.CoordTimeoutException;
import io.coord.metrics.MicrometerMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A {@link CoordClient} from {@code coord.*} properties ({@link CoordProperties}), unless the
 * application defines its own; Coord's metrics in the application's Micrometer registry when it
 * has one; and the {@code coord} health indicator when Actuator's health is on the classpath.
 *
 * <p>The client is a singleton closed by Spring on shutdown ({@link CoordClient#close()}); Spring
 * destroys every bean that depends on it first, so a bean can still release its locks and leave
 * its groups while closing.
 */
@AutoConfiguration
@EnableConfigurationProperties(CoordProperties.class)
public class CoordAutoConfiguration {

    /**
     * Connects before the context finishes starting: a wrong ensemble, credentials or TLS fail
     * startup (Coord's own exception names the cause; an unreachable ensemble is analysed naming
     * {@code coord.connect-string} and {@code coord.config.snapshot-dir}) rather than the first
     * request. A session timeout the server clamps fails startup too, naming
     * {@code coord.session-timeout}: every lease budget derives from it, and a silently different
     * value is a misconfiguration.
     *
     * <p>With {@code coord.config.snapshot-dir} set the client is {@linkplain CoordClient#start
     * started} instead: it does not wait for a session, so config beans can start from their
     * snapshots during a ZooKeeper outage. The {@code coord} health is DOWN until the session
     * comes; an authentication or TLS failure is then logged and shown in health (no startup
     * failure), and a clamped session timeout is only logged.
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public CoordClient coordClient(CoordProperties properties, ObjectProvider<CoordMetrics> metrics,
                                   @Value("${" + CoordConfigProperties.SNAPSHOT_DIR + ":}") String snapshotDir)
            throws InterruptedException {
        CoordSettings settings = properties.toSettings(new StallCountingMetrics(metrics.getIfAvailable(CoordMetrics::noop)));
        if (!snapshotDir.isBlank()) {
            return CoordClient.start(settings);
        }
        CoordClient client;
        try {
            client = CoordClient.connect(settings);
        } catch (CoordTimeoutException e) {
            throw new CoordUnreachableException(settings.connectString(), settings.connectionTimeout(), e);
        }
        if (!client.negotiatedSessionTimeout().equals(client.requestedSessionTimeout())) {
            client.close();
            throw new InvalidCoordPropertyException("coord.session-timeout", settings.sessionTimeout(),
                    "the server granted " + client.negotiatedSessionTimeout() + " instead (ZooKeeper clamps the session"
                            + " timeout to 2-20 x its tickTime); ask for a value within the server's range");
        }
        return client;
    }

    /** Coord's figures (names start with {@code coord.}) go into the application's meter registry. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(MeterRegistry.class)
    static class MicrometerConfiguration {
        @Bean
        @ConditionalOnMissingBean(CoordMetrics.class)
        CoordMetrics coordMetrics(ObjectProvider<MeterRegistry> registry) {
            // Looked up when the client is built, not by a condition: a registry from another
            // auto-configuration counts whatever the order the two are processed in.
            MeterRegistry r = registry.getIfUnique();
            return r == null ? CoordMetrics.noop() : new MicrometerMetrics(r);
        }
    }

    /** The {@code coord} health indicator; {@code management.health.coord.enabled=false} turns it off. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(HealthIndicator.class)
    @ConditionalOnEnabledHealthIndicator("coord")
    static class HealthConfiguration {
        @Bean
        @ConditionalOnMissingBean(name = "coordHealthIndicator")
        HealthIndicator coordHealthIndicator(CoordClient client) {
            return new CoordHealthIndicator(client);
        }
    }
}
