package io.coord.spring.boot;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Binds a record or class to the Coord config key {@code /config/{app}/{key}}, as
 * {@code @ConfigurationProperties} binds one to a prefix. List the type in
 * {@link EnableCoordConfig @EnableCoordConfig} and inject {@link CoordConfigValue CoordConfigValue&lt;Type&gt;}.
 *
 * <pre>{@code
 * @CoordConfig("orders/limits")
 * record Limits(@Min(1) int maxConnections, Duration timeout) {}
 * }</pre>
 *
 * The value is read strictly as the type (an unknown field is an error, see {@code io.coord.Codec}),
 * checked by Bean Validation when the application has a {@code jakarta.validation.Validator}, and
 * applied only when both pass.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface CoordConfig {
    /** {@code app/key}: the key {@code /config/{app}/{key}}, two path segments. */
    String value();
}
