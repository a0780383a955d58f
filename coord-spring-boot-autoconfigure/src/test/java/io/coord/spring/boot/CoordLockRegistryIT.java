package io.coord.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.coord.lock.JucLock;
import io.coord.lock.LockLease;
import io.coord.test.Awaits;
import io.coord.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.integration.support.locks.DefaultLockRegistry;
import org.springframework.integration.support.locks.LockRegistry;

/** The Spring Integration {@code LockRegistry} of Coord locks, in two application contexts (two sessions) on one ZooKeeper. */
class CoordLockRegistryIT {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.single();

    private static ApplicationContextRunner instance() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(CoordAutoConfiguration.class, CoordIntegrationAutoConfiguration.class))
                .withPropertyValues("coord.connect-string=" + zk.connectString(), "coord.namespace=" + zk.namespace(),
                        "coord.session-timeout=4s",
                        "coord.connection-timeout=" + Awaits.scaled(Duration.ofSeconds(10)).toMillis() + "ms");
    }

    @Test
    void locksOfOneKeyExcludeEachOtherAcrossApplications() {
        instance().run(a -> instance().run(b -> {
            LockRegistry<?> first = a.getBean(LockRegistry.class);
            LockRegistry<?> second = b.getBean(LockRegistry.class);
            Lock held = first.obtain("orders");
            assertThat(first.obtain("orders")).as("one lock object per key").isSameAs(held);
            assertThat(held.tryLock(Awaits.scaled(Duration.ofSeconds(5)).toMillis(), TimeUnit.MILLISECONDS)).isTrue();
            try {
                LockLease lease = ((JucLock) held).heldByCurrentThread().orElseThrow();
                assertThat(lease.lockPath().value()).isEqualTo("/locks/integration/orders");
                assertThat(second.obtain("orders").tryLock(200, TimeUnit.MILLISECONDS)).as("the other application waits").isFalse();
                assertThat(second.obtain("invoices").tryLock(Awaits.scaled(Duration.ofSeconds(5)).toMillis(), TimeUnit.MILLISECONDS))
                        .as("another key is another lock").isTrue();
                second.obtain("invoices").unlock();
            } finally {
                held.unlock();
            }
            Lock other = second.obtain("orders");
            assertThat(other.tryLock(Awaits.scaled(Duration.ofSeconds(5)).toMillis(), TimeUnit.MILLISECONDS)).isTrue();
            other.unlock();
        }));
    }

    @Test
    void aKeyThatIsNotOnePathSegmentIsRefusedNamingIt() {
        instance().run(context -> {
            LockRegistry<?> registry = context.getBean(LockRegistry.class);
            assertThatThrownBy(() -> registry.obtain("a/b")).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("\"a/b\"").hasMessageContaining("/locks/integration");
        });
        instance().withPropertyValues("coord.integration.lock-domain=a/b").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).hasStackTraceContaining("coord.integration.lock-domain");
        });
    }

    @Test
    void anApplicationsOwnLockRegistryWins() {
        instance().withBean(LockRegistry.class, DefaultLockRegistry::new).run(context ->
                assertThat(context).hasNotFailed().getBean(LockRegistry.class).isInstanceOf(DefaultLockRegistry.class));
    }
}
