package io.coord.spring.boot;

import io.coord.CoordClient;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * {@link CoordConfig @CoordConfig} beans (needs {@code coord-config}): the {@link CoordConfigs}
 * that {@link EnableCoordConfig} opens them with, Bean Validation of their values where the
 * application has a {@code jakarta.validation.Validator}, and the {@code coordConfig} health indicator.
 */
@AutoConfiguration(after = CoordAutoConfiguration.class,
        afterName = "org.springframework.boot.validation.autoconfigure.ValidationAutoConfiguration")
@ConditionalOnClass(name = "io.coord.config.LiveConfig")
@EnableConfigurationProperties(CoordConfigProperties.class)
public class CoordConfigAutoConfiguration {
    static final String CONFIGS_BEAN = "coordConfigs";

    @Bean(name = CONFIGS_BEAN)
    CoordConfigs coordConfigs(CoordClient client, CoordConfigProperties properties, ApplicationEventPublisher events,
                              ObjectProvider<CoordConfigs.ValueCheck> checks) {
        return new CoordConfigs(client, properties, events, checks.getIfAvailable(() -> value -> List.of()));
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "jakarta.validation.Validator")
    static class BeanValidation {
        @Bean
        CoordConfigs.ValueCheck coordConfigBeanValidation(ObjectProvider<jakarta.validation.Validator> validator) {
            // Looked up when a value is checked: the validator may be made after this bean.
            return value -> {
                jakarta.validation.Validator v = validator.getIfUnique();
                return v == null ? List.of() : new BeanValidationCheck(v).problems(value);
            };
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(HealthIndicator.class)
    @ConditionalOnEnabledHealthIndicator("coordConfig")
    static class Health {
        @Bean
        HealthIndicator coordConfigHealthIndicator(CoordConfigs configs) {
            return new CoordConfigHealthIndicator(configs);
        }
    }
}
