package io.coord.spring.boot;

import io.coord.CoordClient;
import io.coord.CoordException;
import io.coord.config.ConfigKey;
import io.coord.config.ConfigOptions;
import io.coord.config.LiveConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.springframework.context.ApplicationEventPublisher;

/**
 * Opens the {@link CoordConfigValue}s of {@link EnableCoordConfig} and keeps them for the
 * {@code coordConfig} health indicator. Owns the one thread ({@code coord-config-events}) that
 * publishes their change events: never ZooKeeper's event thread, and one at a time so that each
 * listener sees the changes of one key in order.
 */
final class CoordConfigs implements AutoCloseable {
    private final CoordClient client;
    private final CoordConfigProperties properties;
    private final ConfigOptions options;
    private final ApplicationEventPublisher events;
    private final ValueCheck check;
    private final ExecutorService executor = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "coord-config-events");
        t.setDaemon(true);
        return t;
    });
    private final List<CoordConfigValue<?>> values = new CopyOnWriteArrayList<>();

    /** Problems Bean Validation finds in a value (empty: none, or no Bean Validation in the application). */
    @FunctionalInterface
    interface ValueCheck {
        List<String> problems(Object value);
    }

    CoordConfigs(CoordClient client, CoordConfigProperties properties, ApplicationEventPublisher events, ValueCheck check) {
        if (properties.initTimeout() == null || properties.initTimeout().isNegative() || properties.initTimeout().isZero()) {
            throw new InvalidCoordPropertyException("coord.config.init-timeout", properties.initTimeout(), "must be > 0");
        }
        ConfigOptions.Builder builder = ConfigOptions.builder().reportApplied(properties.reportApplied());
        if (properties.instanceId() != null) {
            try {
                builder.instanceId(properties.instanceId());
            } catch (CoordException e) {
                throw new InvalidCoordPropertyException("coord.config.instance-id", properties.instanceId(), e.getMessage(), e);
            }
        }
        if (properties.snapshotDir() != null) {
            builder.snapshotDir(checkedSnapshotDir(properties.snapshotDir()));
        }
        this.client = client;
        this.properties = properties;
        this.options = builder.build();
        this.events = events;
        this.check = check;
    }

    /**
     * Made now, so that a directory the application cannot write fails startup naming the
     * property, not later as a warning from the first snapshot write while connected.
     */
    private static Path checkedSnapshotDir(Path dir) {
        try {
            Files.createDirectories(dir);
        } catch (IOException | RuntimeException e) {
            throw new InvalidCoordPropertyException(CoordConfigProperties.SNAPSHOT_DIR, dir,
                    "cannot be created as a directory (" + e + ")", e);
        }
        if (!Files.isWritable(dir)) {
            throw new InvalidCoordPropertyException(CoordConfigProperties.SNAPSHOT_DIR, dir, "is not writable by this process");
        }
        return dir;
    }

    /** Watches {@code /config/{app}/{key}} as {@code type} and waits for its first value. */
    <T> CoordConfigValue<T> open(Class<T> type, CoordConfigRegistrar.ConfigKeyName name) {
        ConfigKey<T> key = ConfigKey.of(name.app(), name.key(), type).withValidator(check::problems);
        LiveConfig<T> live = LiveConfig.watch(client, key, options);
        boolean ok = false;
        try {
            CoordConfigValue<T> value = new CoordConfigValue<>(type, live, events, executor);
            live.awaitInitialized(properties.initTimeout());
            values.add(value);
            ok = true;
            return value;
        } catch (CoordException e) {
            throw new IllegalStateException("config bean " + type.getName() + " has no value: " + key.path()
                    + " could not be read within coord.config.init-timeout (" + properties.initTimeout()
                    + "); publish the key (coord config set " + name.app() + " " + name.key() + " '<json>') or check the"
                    + " client's access to it. Cause: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading " + key.path() + " for " + type.getName(), e);
        } finally {
            if (!ok) {
                live.close();
            }
        }
    }

    List<CoordConfigValue<?>> values() {
        return List.copyOf(values);
    }

    @Override
    public void close() throws InterruptedException {
        executor.shutdown();
        executor.awaitTermination(5, TimeUnit.SECONDS); // the last events; bounded, a listener may hang
    }
}
