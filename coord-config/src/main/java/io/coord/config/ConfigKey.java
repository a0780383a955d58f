package io.coord.config;

import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import io.coord.Codec;
import io.coord.CoordPath;
import io.coord.InvalidNameException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What a configuration value is: where it lives ({@code /config/{app}/{key}}), its Java type, its
 * default and its validation. Readers ({@link LiveConfig}) and writers ({@link ConfigStore}) share
 * one {@code ConfigKey}, so the same rules that keep a bad value from being published also keep it
 * from being applied.
 *
 * <pre>{@code
 * record Limits(int maxConnections, Duration timeout) {}
 * ConfigKey<Limits> LIMITS = ConfigKey.of("orders", "limits", Limits.class)
 *     .withDefault(new Limits(100, Duration.ofSeconds(2)))
 *     .withValidator(l -> l.maxConnections() > 0 ? List.of() : List.of("maxConnections must be > 0"));
 * }</pre>
 *
 * <p>A <em>whole-app</em> key ({@link #wholeApp}) binds every property of {@code type} to the key
 * of the same name under {@code /config/{app}}; it can be read ({@link LiveConfig}), while each
 * key is written on its own.
 *
 * @param app          the application: one path segment
 * @param key          the key: one path segment not starting with {@code .} (names starting with
 *                     a dot are Coord's own: {@code .history}, {@code .canary}); null for a
 *                     whole-app key
 * @param type         the value's type: a record, a POJO or {@link JsonNode}; read strictly
 *                     (unknown fields are errors, see {@link Codec})
 * @param defaultValue what readers use while the key does not exist; null for none (then a reader
 *                     waits for the key to appear)
 * @param validator    rules beyond the type, run before publishing and before applying; null for none
 */
public record ConfigKey<T>(String app, String key, Class<T> type, T defaultValue, Validator<? super T> validator) {
    /**
     * Rules a value must meet beyond its type. Returns the problems found, empty when the value is
     * acceptable; each problem is a sentence naming the field and the rule. Must not throw and
     * must not block: it runs on Coord's config thread before every apply.
     */
    @FunctionalInterface
    public interface Validator<T> {
        List<String> problems(T value);
    }

    public ConfigKey {
        CoordPath.validateName(app);
        if (key != null) {
            checkKeyName(key);
        }
        Objects.requireNonNull(type, "type");
        if (defaultValue != null && !type.isInstance(defaultValue)) {
            throw new IllegalArgumentException("default " + defaultValue + " is not a " + type.getName());
        }
        if (key == null) {
            for (String property : properties(type)) {
                checkKeyName(property);
            }
        }
    }

    /** The value at {@code /config/{app}/{key}}, of {@code type}. */
    public static <T> ConfigKey<T> of(String app, String key, Class<T> type) {
        return new ConfigKey<>(app, Objects.requireNonNull(key, "key"), type, null, null);
    }

    /** Any JSON at {@code /config/{app}/{key}} (what the CLI uses): syntax and size are still checked. */
    public static ConfigKey<JsonNode> json(String app, String key) {
        return of(app, key, JsonNode.class);
    }

    /** Every property of {@code type} bound to the key of that name under {@code /config/{app}}. */
    public static <T> ConfigKey<T> wholeApp(String app, Class<T> type) {
        return new ConfigKey<>(app, null, type, null, null);
    }

    /** The same key with a default (which must pass the validator, if there is one). */
    public ConfigKey<T> withDefault(T value) {
        ConfigKey<T> derived = new ConfigKey<>(app, key, type, Objects.requireNonNull(value, "default"), validator);
        derived.validate(derived.path().value(), value);
        return derived;
    }

    /** The same key with a validator (the default, if any, must pass it). */
    public ConfigKey<T> withValidator(Validator<? super T> rules) {
        ConfigKey<T> derived = new ConfigKey<>(app, key, type, defaultValue, Objects.requireNonNull(rules, "validator"));
        if (defaultValue != null) {
            derived.validate(derived.path().value(), defaultValue);
        }
        return derived;
    }

    public boolean isWholeApp() {
        return key == null;
    }

    /** {@code /config/{app}/{key}}, or {@code /config/{app}} for a whole-app key. */
    public CoordPath path() {
        return key == null ? ConfigLayout.app(app) : ConfigLayout.key(app, key);
    }

    /** The keys a whole-app key reads (the type's property names), or just {@link #key()}. */
    public List<String> keys() {
        return key == null ? properties(type) : List.of(key);
    }

    /** Throws {@link ConfigValidationException} naming {@code path} if the validator finds problems. */
    void validate(String path, T value) {
        if (validator == null) {
            return;
        }
        List<String> problems;
        try {
            problems = validator.problems(value);
        } catch (RuntimeException e) {
            problems = List.of("the validator threw " + e);
        }
        if (problems != null && !problems.isEmpty()) {
            throw new ConfigValidationException(path, problems);
        }
    }

    Codec<T> codec(int limit) {
        return Codec.json(type).withLimit(limit);
    }

    /** A single-key view of this key for writing; refuses a whole-app key, which has no one node to write. */
    ConfigKey<T> requireSingle(String operation) {
        if (key == null) {
            throw new IllegalArgumentException(operation + " needs a single key; " + path()
                    + " is a whole-app key: write each of its keys " + keys() + " on its own");
        }
        return this;
    }

    private static void checkKeyName(String name) {
        CoordPath.validateName(name);
        if (name.startsWith(".")) {
            throw new InvalidNameException("config key \"" + name + "\" starts with '.', which Coord reserves for"
                    + " its own nodes (.history, .canary)");
        }
    }

    private static List<String> properties(Class<?> type) {
        if (JsonNode.class.isAssignableFrom(type)) {
            throw new IllegalArgumentException("a whole-app key needs a record or POJO type whose properties are the keys, not "
                    + type.getName());
        }
        BeanDescription description = Codec.mapper().getDeserializationConfig()
                .introspect(Codec.mapper().constructType(type));
        List<String> names = new ArrayList<>();
        for (BeanPropertyDefinition property : description.findProperties()) {
            names.add(property.getName());
        }
        if (names.isEmpty()) {
            throw new IllegalArgumentException(type.getName() + " has no properties to bind keys to");
        }
        return List.copyOf(names);
    }

    @Override
    public String toString() {
        return "ConfigKey[" + path() + " as " + type.getSimpleName() + (defaultValue == null ? "" : ", default " + defaultValue)
                + (validator == null ? "" : ", validated") + "]";
    }
}
