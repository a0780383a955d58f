package io.coord.spring.boot;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The {@code coord.tasks.*} properties of {@link CoordTaskHandler @CoordTaskHandler} workers.
 *
 * @param shutdownGrace {@code coord.tasks.shutdown-grace}: at shutdown, how long in-flight handlers
 *                      may finish before they are interrupted and their tasks released (default 30s)
 */
@ConfigurationProperties("coord.tasks")
public record CoordTasksProperties(@DefaultValue("30s") Duration shutdownGrace) {
}
