package io.coord.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.coord.CoordClient;
import io.coord.config.ConfigKey;
import io.coord.config.ConfigOptions;
import io.coord.config.ConfigStore;
import io.coord.config.Versioned;
import io.coord.test.Awaits;
import io.coord.test.ZooKeeperExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;

/**
 * Startup with ZooKeeper unreachable (issue 19): with {@code coord.config.snapshot-dir} a config
 * bean starts from the value it last read while connected and takes the live value once the
 * ensemble answers; without it, startup fails with an analysis naming the ensemble and the property.
 */
@Tag("fault")
class CoordConfigSnapshotIT {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.single();

    private static final ConfigKey<Flags> FLAGS = ConfigKey.of("billing", "flags", Flags.class);

    @CoordConfig("billing/flags")
    record Flags(int retries, String mode) {
    }

    @Configuration(proxyBeanMethods = false)
    @EnableCoordConfig(Flags.class)
    static class App {
        final List<CoordConfigChangedEvent<Flags>> changes = new CopyOnWriteArrayList<>();

        @EventListener
        void on(CoordConfigChangedEvent<Flags> change) {
            changes.add(change);
        }
    }

    private static ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(CoordAutoConfiguration.class, CoordConfigAutoConfiguration.class))
                .withUserConfiguration(App.class)
                .withPropertyValues("coord.connect-string=" + zk.connectString(), "coord.namespace=" + zk.namespace(),
                        "coord.session-timeout=4s",
                        "coord.connection-timeout=" + Awaits.scaled(Duration.ofSeconds(2)).toMillis() + "ms",
                        "coord.config.instance-id=app-1");
    }

    @Test
    void aContextStartedWithZooKeeperDownServesTheSnapshotThenTheLiveValue(@TempDir Path snapshots) throws Exception {
        CoordClient writer = zk.newClient();
        ConfigStore store = ConfigStore.open(writer, ConfigOptions.defaults());
        store.put(FLAGS, new Flags(3, "safe"));
        String snapshotDir = "coord.config.snapshot-dir=" + snapshots;

        // Connected: the bean reads the live value and writes its snapshot.
        runner().withPropertyValues(snapshotDir).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(flags(context.getBean(App.class), context).get()).isEqualTo(new Flags(3, "safe"));
            Awaits.until("the snapshot file", Duration.ofSeconds(10),
                    () -> Files.isRegularFile(snapshots.resolve("billing").resolve("flags.json")));
        });
        long live = store.put(FLAGS, new Flags(5, "fast")); // while no application runs: the snapshot is behind

        zk.ensemble().kill(0);
        runner().withPropertyValues(snapshotDir).run(context -> {
            assertThat(context).hasNotFailed();
            App app = context.getBean(App.class);
            CoordConfigValue<Flags> value = flags(app, context);
            assertThat(value.get()).isEqualTo(new Flags(3, "safe"));
            assertThat(value.current().origin()).isEqualTo(Versioned.Origin.SNAPSHOT);
            assertThat(value.isStale()).isTrue();
            HealthIndicator coord = context.getBean("coordHealthIndicator", HealthIndicator.class);
            assertThat(coord.health().getStatus()).isEqualTo(Status.DOWN);
            assertThat(coord.health().getDetails()).containsEntry("state", "NO_SESSION");
            assertThat(app.changes).isEmpty(); // the start value is not a change

            zk.ensemble().restart(0);
            Awaits.until("the live value", Duration.ofSeconds(30), () -> value.get().equals(new Flags(5, "fast")));
            Awaits.until("the change event", Duration.ofSeconds(10), () -> app.changes.size() == 1);
            CoordConfigChangedEvent<Flags> event = app.changes.get(0);
            assertThat(event.oldValue()).isEqualTo(new Flags(3, "safe"));
            assertThat(event.newValue()).isEqualTo(new Flags(5, "fast"));
            assertThat(event.version()).isEqualTo(live);
            assertThat(value.current().origin()).isEqualTo(Versioned.Origin.LIVE);
            Awaits.until("the value current", Duration.ofSeconds(10), () -> !value.isStale());
            Awaits.until("coord health UP", Duration.ofSeconds(10), () -> coord.health().getStatus().equals(Status.UP));
        });
    }

    @Test
    void withoutASnapshotDirStartupWithZooKeeperDownFailsNamingTheEnsembleAndTheProperty() {
        zk.ensemble().kill(0); // brought back after the test by the extension
        runner().run(context -> {
            assertThat(context).hasFailed();
            FailureAnalysis analysis = InvalidCoordPropertiesIT.analyze(context.getStartupFailure());
            assertThat(analysis.getDescription()).contains(zk.connectString()).contains("coord.connection-timeout");
            assertThat(analysis.getAction()).contains(zk.connectString()).contains("coord.config.snapshot-dir");
        });
    }

    @Test
    void aSnapshotDirThatCannotBeADirectoryFailsStartupNamingIt(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("not-a-dir"), "x");
        runner().withPropertyValues("coord.config.snapshot-dir=" + file).run(context -> {
            assertThat(context).hasFailed();
            FailureAnalysis analysis = InvalidCoordPropertiesIT.analyze(context.getStartupFailure());
            assertThat(analysis.getDescription()).contains("coord.config.snapshot-dir").contains(file.toString());
        });
    }

    @SuppressWarnings("unchecked")
    private static CoordConfigValue<Flags> flags(App app, org.springframework.context.ApplicationContext context) {
        return context.getBean(CoordConfigValue.class);
    }
}
