package io.coord.spring.boot;

import io.coord.Registration;
import io.coord.config.ConfigChange;
import io.coord.config.ConfigKey;
import io.coord.config.ConfigListener;
import io.coord.config.ConfigRejection;
import io.coord.config.LiveConfig;
import io.coord.config.Versioned;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicReference;
import org.springframework.context.ApplicationEventPublisher;

/**
 * A hot-reloaded {@link CoordConfig @CoordConfig} value, the bean {@link EnableCoordConfig}
 * registers: inject {@code CoordConfigValue<Limits>} and call {@link #get()} where the value is used.
 *
 * <p>A holder, not the record itself nor a proxy of it: a record is final (no class proxy can
 * stand in for it) and immutable, so a bean that kept the injected record would keep the first
 * value forever. {@code get()} is one volatile read, cheap enough to call on every request.
 *
 * <p>{@link #get()} is always the last good value: one that decoded strictly as the type and
 * passed Bean Validation (when the application has it). A refused update (bad JSON, an unknown
 * field, a violated constraint, too large) is never applied: the value stays, the refusal is kept
 * in {@link #lastRejection()}, shown in the {@code coordConfig} health details and counted in
 * {@code coord.config.rejected}. Each applied change publishes a {@link CoordConfigChangedEvent},
 * the live value replacing a snapshot's included (when it differs from it).
 * Closed by Spring on shutdown, before the {@code CoordClient}.
 */
public final class CoordConfigValue<T> implements AutoCloseable {
    private final Class<T> type;
    private final LiveConfig<T> live;
    private final AtomicReference<ConfigRejection> lastRejection = new AtomicReference<>();
    private final Registration registration;

    CoordConfigValue(Class<T> type, LiveConfig<T> live, ApplicationEventPublisher events, Executor executor) {
        this.type = type;
        this.live = live;
        // Registered before the first value arrives, so no change is missed between the two; the
        // first value itself (no previous) is what the bean starts with, not a change.
        this.registration = live.addListener(new ConfigListener<>() {
            @Override
            public void onChange(ConfigChange<T> change) {
                if (change.previous() != null) {
                    events.publishEvent(new CoordConfigChangedEvent<>(CoordConfigValue.this, change));
                }
            }

            @Override
            public void onRejected(ConfigRejection rejection) {
                lastRejection.set(rejection);
            }
        }, executor);
    }

    /** The last good value; never null. */
    public T get() {
        return live.get();
    }

    /**
     * The last good value with its version, revision and origin ({@code LIVE}, {@code CANARY},
     * {@code DEFAULT}, or {@code SNAPSHOT} when the application started from
     * {@code coord.config.snapshot-dir} while ZooKeeper was unreachable, until the first live read).
     */
    public Versioned<T> current() {
        return live.current();
    }

    /** The key, with its type and validation. */
    public ConfigKey<T> key() {
        return live.key();
    }

    /** True while the value may be out of date: it came from the snapshot, or the connection is down and not yet re-read. */
    public boolean isStale() {
        return live.isStale();
    }

    /** The latest refused update, if any was refused since startup (a later good value does not clear it). */
    public Optional<ConfigRejection> lastRejection() {
        return Optional.ofNullable(lastRejection.get());
    }

    Class<T> type() {
        return type;
    }

    /** Stops watching the key. Idempotent. */
    @Override
    public void close() {
        registration.close();
        live.close();
    }

    @Override
    public String toString() {
        return "CoordConfigValue[" + live.key().path() + " = " + live.currentIfAny().map(Object::toString).orElse("none") + "]";
    }
}
