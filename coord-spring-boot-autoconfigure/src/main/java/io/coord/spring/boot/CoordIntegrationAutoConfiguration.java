package io.coord.spring.boot;

import io.coord.CoordClient;
import io.coord.InvalidNameException;
import io.coord.lock.JucLock;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.integration.support.locks.ExpirableLockRegistry;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * Where the application has Spring Integration and {@code coord-lock}: a {@link LockRegistry}
 * bean, an {@link ExpirableLockRegistry} (call {@code expireUnusedOlderThan} periodically when
 * keys are many and short-lived), ({@code coordLockRegistry}) of Coord mutexes under {@code /locks/{coord.integration.lock-domain}}
 * (default {@code integration}), unless the application defines its own {@code LockRegistry}.
 */
@AutoConfiguration(after = CoordAutoConfiguration.class)
@ConditionalOnClass(name = {"org.springframework.integration.support.locks.LockRegistry", "io.coord.lock.Locks"})
public class CoordIntegrationAutoConfiguration {
    @Bean
    @ConditionalOnMissingBean(LockRegistry.class)
    ExpirableLockRegistry<JucLock> coordLockRegistry(CoordClient client, @Value("${coord.integration.lock-domain:integration}") String domain) {
        try {
            return new CoordLockRegistry(client, domain);
        } catch (InvalidNameException e) {
            throw new InvalidCoordPropertyException("coord.integration.lock-domain", domain, e.getMessage(), e);
        }
    }
}
