package io.coord.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.coord.CoordClient;
import io.coord.config.ConfigKey;
import io.coord.config.ConfigOptions;
import io.coord.config.ConfigStore;
import io.coord.test.Awaits;
import io.coord.test.ZooKeeperExtension;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import jakarta.validation.constraints.Min;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.validation.autoconfigure.ValidationAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;

/** {@code @CoordConfig} beans in a real application context against a real ZooKeeper. */
class CoordConfigBeanIT {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.single();

    /** The key as a writer without the application's Bean Validation sees it: it publishes what the bean must refuse. */
    private static final ConfigKey<Limits> LIMITS = ConfigKey.of("orders", "limits", Limits.class);

    /** A method, not a field: the extension gives each test its namespace just before it runs. */
    private static ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(CoordAutoConfiguration.class, CoordConfigAutoConfiguration.class,
                    ValidationAutoConfiguration.class))
            .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
            .withPropertyValues("coord.connect-string=" + zk.connectString(), "coord.namespace=" + zk.namespace(),
                    "coord.session-timeout=4s",
                    "coord.connection-timeout=" + Awaits.scaled(Duration.ofSeconds(10)).toMillis() + "ms",
                    "coord.config.instance-id=app-1");
    }

    @CoordConfig("orders/limits")
    record Limits(@Min(1) int maxConnections, String mode) {
    }

    @Configuration(proxyBeanMethods = false)
    @EnableCoordConfig(Limits.class)
    static class App {
        final List<CoordConfigChangedEvent<Limits>> changes = new CopyOnWriteArrayList<>();
        final List<Object> otherTypes = new CopyOnWriteArrayList<>();

        @EventListener
        void on(CoordConfigChangedEvent<Limits> change) {
            changes.add(change);
        }

        @EventListener
        void onOther(CoordConfigChangedEvent<String> change) {
            otherTypes.add(change); // must never be called: the event is typed by the bean's type
        }

        @Bean
        Pool pool(CoordConfigValue<Limits> limits) {
            return new Pool(limits);
        }
    }

    /** A bean using the value the way an application would: reading it on each use. */
    record Pool(CoordConfigValue<Limits> limits) {
        int size() {
            return limits.get().maxConnections();
        }
    }

    @Test
    void aConfigBeanUpdatesLiveAndKeepsTheLastGoodValueOnABadPublish() throws Exception {
        CoordClient writer = zk.newClient();
        ConfigStore store = ConfigStore.open(writer, ConfigOptions.defaults());
        store.put(LIMITS, new Limits(10, "strict"));
        runner().withUserConfiguration(App.class).run(context -> {
            assertThat(context).hasNotFailed();
            App app = context.getBean(App.class);
            Pool pool = context.getBean(Pool.class);
            assertThat(pool.size()).isEqualTo(10);
            assertThat(app.changes).isEmpty(); // the start value is not a change

            // A good publish: applied live, one event with old, new and version.
            long v1 = store.put(LIMITS, new Limits(20, "strict"));
            Awaits.until("the bean to show 20", Duration.ofSeconds(10), () -> pool.size() == 20);
            Awaits.until("the change event", Duration.ofSeconds(10), () -> app.changes.size() == 1);
            CoordConfigChangedEvent<Limits> event = app.changes.get(0);
            assertThat(event.oldValue()).isEqualTo(new Limits(10, "strict"));
            assertThat(event.newValue()).isEqualTo(new Limits(20, "strict"));
            assertThat(event.version()).isEqualTo(v1);
            assertThat(event.key()).isEqualTo("/config/orders/limits");

            MeterRegistry registry = context.getBean(MeterRegistry.class);
            HealthIndicator health = context.getBean("coordConfigHealthIndicator", HealthIndicator.class);
            CoordConfigValue<?> value = pool.limits();

            // Bad JSON, written past ConfigStore's checks as any ZooKeeper client could.
            writer.curator().setData().forPath("/config/orders/limits", "{\"maxConnections\": 3,".getBytes(StandardCharsets.UTF_8));
            Awaits.until("the bad JSON refused", Duration.ofSeconds(10),
                    () -> value.lastRejection().filter(r -> r.reason().equals("parse")).isPresent());
            assertThat(pool.size()).isEqualTo(20);
            assertThat(rejected(registry, "parse")).isEqualTo(1);

            // Valid JSON that violates @Min(1): the writer has no Bean Validation, the bean has.
            long bad = store.put(LIMITS, new Limits(0, "strict"));
            Awaits.until("the invalid value refused", Duration.ofSeconds(10),
                    () -> value.lastRejection().filter(r -> r.version() == bad).isPresent());
            assertThat(value.lastRejection().orElseThrow().reason()).isEqualTo("validation");
            assertThat(value.lastRejection().orElseThrow().error()).contains("maxConnections").contains("was 0");
            assertThat(pool.size()).isEqualTo(20);
            assertThat(value.current().version()).isEqualTo(v1);
            assertThat(rejected(registry, "validation")).isEqualTo(1);

            Health h = health.health();
            assertThat(h.getStatus()).isEqualTo(Status.UP);
            @SuppressWarnings("unchecked")
            Map<String, Object> details = (Map<String, Object>) h.getDetails().get("/config/orders/limits");
            assertThat(details).containsEntry("version", v1).containsEntry("origin", "LIVE").containsEntry("stale", false);
            @SuppressWarnings("unchecked")
            Map<String, Object> lastRejected = (Map<String, Object>) details.get("lastRejected");
            assertThat(lastRejected).containsEntry("version", bad).containsEntry("reason", "validation");

            // A good value after the bad ones is applied again; still no event for the refused ones.
            long v4 = store.put(LIMITS, new Limits(30, "lenient"));
            Awaits.until("the bean to show 30", Duration.ofSeconds(10), () -> pool.size() == 30);
            Awaits.until("the second change event", Duration.ofSeconds(10), () -> app.changes.size() == 2);
            assertThat(app.changes.get(1).oldValue()).isEqualTo(new Limits(20, "strict"));
            assertThat(app.changes.get(1).version()).isEqualTo(v4);
            assertThat(app.otherTypes).isEmpty();
        });
    }

    @Test
    void aKeyThatDoesNotExistFailsStartupNamingIt() {
        runner().withUserConfiguration(MissingApp.class).withPropertyValues("coord.config.init-timeout=1s").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("/config/orders/missing");
            Throwable failure = context.getStartupFailure();
            while (failure != null && !(failure instanceof IllegalStateException)) {
                failure = failure.getCause();
            }
            assertThat(failure).isNotNull().hasMessageContaining("/config/orders/missing")
                    .hasMessageContaining(Missing.class.getName()).hasMessageContaining("coord.config.init-timeout");
        });
    }

    @Test
    void aTypeWithoutCoordConfigFailsStartupNamingIt() {
        runner().withUserConfiguration(Unannotated.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).hasStackTraceContaining("String")
                    .hasStackTraceContaining("has no @CoordConfig");
        });
    }

    @CoordConfig("orders/missing")
    record Missing(int x) {
    }

    @Configuration(proxyBeanMethods = false)
    @EnableCoordConfig(Missing.class)
    static class MissingApp {
    }

    @Configuration(proxyBeanMethods = false)
    @EnableCoordConfig(String.class)
    static class Unannotated {
    }

    private static double rejected(MeterRegistry registry, String reason) {
        Counter counter = registry.find("coord.config.rejected").tag("reason", reason).counter();
        return counter == null ? 0 : counter.count();
    }
}
