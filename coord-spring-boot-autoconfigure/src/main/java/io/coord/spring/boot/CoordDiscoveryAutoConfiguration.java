package io.coord.spring.boot;

import io.coord.CoordClient;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * With {@code coord.discovery.register=true} and {@code coord-naming} on the classpath: the
 * application registers itself in Coord discovery once started and unregisters when it stops
 * ({@link CoordDiscoveryRegistration}).
 */
@AutoConfiguration(after = CoordAutoConfiguration.class)
@ConditionalOnClass(name = "io.coord.naming.Discovery")
@ConditionalOnProperty(name = "coord.discovery.register", havingValue = "true")
@EnableConfigurationProperties(CoordDiscoveryProperties.class)
public class CoordDiscoveryAutoConfiguration {
    @Bean
    CoordDiscoveryRegistration coordDiscoveryRegistration(CoordClient client, CoordDiscoveryProperties properties,
                                                          Environment environment) {
        return new CoordDiscoveryRegistration(client, properties, environment);
    }
}
