package io.coord.spring.boot;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.context.annotation.Import;

/**
 * Registers a {@link CoordConfigValue CoordConfigValue&lt;T&gt;} bean for each listed
 * {@link CoordConfig @CoordConfig} type, as {@code @EnableConfigurationProperties} does for
 * {@code @ConfigurationProperties} types. A type without {@code @CoordConfig} fails startup naming it.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Import(CoordConfigRegistrar.class)
public @interface EnableCoordConfig {
    /** The {@link CoordConfig @CoordConfig} types to bind. */
    Class<?>[] value();
}
