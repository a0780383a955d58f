package io.coord.spring.boot;

import io.coord.CoordClient;
import java.time.Duration;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * {@link CoordTaskHandler @CoordTaskHandler} methods: the post-processor that finds them (always,
 * so a handler without {@code coord-queue} fails startup) and, where the application has
 * {@code coord-queue}, their workers.
 */
@AutoConfiguration(after = CoordAutoConfiguration.class)
@EnableConfigurationProperties(CoordTasksProperties.class)
public class CoordTasksAutoConfiguration {
    /** Static: a post-processor must not make this configuration (and the client) early. */
    @Bean
    static CoordTaskHandlerPostProcessor coordTaskHandlerPostProcessor() {
        return new CoordTaskHandlerPostProcessor();
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "io.coord.queue.TaskQueue")
    static class Workers {
        @Bean
        CoordTaskWorkers coordTaskWorkers(CoordClient client, CoordTaskHandlerPostProcessor handlers, CoordTasksProperties properties) {
            Duration grace = properties.shutdownGrace();
            if (grace == null || grace.isNegative()) {
                throw new InvalidCoordPropertyException("coord.tasks.shutdown-grace", grace, "must be >= 0");
            }
            return new CoordTaskWorkers(client, handlers, grace);
        }
    }
}
