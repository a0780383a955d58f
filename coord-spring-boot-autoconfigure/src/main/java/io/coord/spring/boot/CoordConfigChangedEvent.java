package io.coord.spring.boot;

import io.coord.config.ConfigChange;
import org.springframework.context.ApplicationEvent;
import org.springframework.core.ResolvableType;
import org.springframework.core.ResolvableTypeProvider;

/**
 * A {@link CoordConfigValue} applied a new value. Published after {@link CoordConfigValue#get()}
 * already returns it, on the config values' event thread ({@code coord-config-events}), one event
 * at a time in the order applied. Generic: {@code @EventListener void on(CoordConfigChangedEvent<Limits> e)}
 * hears only {@code Limits}. Not published for the value the bean started with.
 */
public final class CoordConfigChangedEvent<T> extends ApplicationEvent implements ResolvableTypeProvider {
    private static final long serialVersionUID = 1L;

    private final transient ConfigChange<T> change;
    private final Class<T> type;

    CoordConfigChangedEvent(CoordConfigValue<T> source, ConfigChange<T> change) {
        super(source);
        this.change = change;
        this.type = source.type();
    }

    /** The key, {@code /config/{app}/{key}}. */
    public String key() {
        return change.path();
    }

    /** The value the bean held before this change. */
    public T oldValue() {
        return change.oldValue();
    }

    public T newValue() {
        return change.newValue();
    }

    /** The znode version now applied (what {@code ConfigStore.compareAndSet} expects next). */
    public long version() {
        return change.version();
    }

    /** The whole change: both versions with their origins and revisions. */
    public ConfigChange<T> change() {
        return change;
    }

    @Override
    public ResolvableType getResolvableType() {
        return ResolvableType.forClassWithGenerics(CoordConfigChangedEvent.class, type);
    }

    @Override
    public String toString() {
        return "CoordConfigChangedEvent[" + change + "]";
    }
}
