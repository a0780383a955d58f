package io.coord.spring.boot;

import io.coord.CoordClient;
import io.coord.CoordMetrics;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * {@link LeaderOnly @LeaderOnly} and {@link CoordLocked @CoordLocked} jobs: the post-processor
 * that guards annotated methods, the runtime that admits each run, and one guard per recipe
 * module the application has ({@code coord-election}, {@code coord-lock}; both optional).
 */
@AutoConfiguration(after = CoordAutoConfiguration.class)
@EnableConfigurationProperties(CoordJobsProperties.class)
public class CoordJobsAutoConfiguration {

    /** Static: a post-processor must not make this configuration (and the client) early. */
    @Bean
    static CoordJobsPostProcessor coordJobsPostProcessor(ObjectProvider<CoordJobs> jobs) {
        return new CoordJobsPostProcessor(jobs);
    }

    @Bean
    CoordJobs coordJobs(CoordJobsProperties properties, ObjectProvider<CoordMetrics> metrics, CoordJobsPostProcessor found,
                        ObjectProvider<JobGuard> guards) {
        if (properties.stopTimeout() == null || properties.stopTimeout().isNegative()) {
            throw new InvalidCoordPropertyException("coord.jobs.stop-timeout", properties.stopTimeout(), "must be >= 0");
        }
        return new CoordJobs(properties, metrics.getIfAvailable(CoordMetrics::noop), found, guards.orderedStream().toList());
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "io.coord.election.Election")
    static class LeaderJobs {
        @Bean
        JobGuard coordLeaderJobGuard(CoordClient client) {
            return new LeaderJobGuard(client);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "io.coord.lock.Locks")
    static class LockJobs {
        @Bean
        JobGuard coordLockJobGuard(CoordClient client) {
            return new LockJobGuard(client);
        }
    }
}
