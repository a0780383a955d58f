package io.coord.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.coord.lock.JucLock;
import io.coord.lock.LockLease;
import io.coord.test.Awaits;
import io.coord.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.integration.support.locks.DefaultLockRegistry;
import org.springframework.integration.support.locks.ExpirableLockRegistry;
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
    void unusedLocksExpireAndHeldOrRecentOnesStay() throws Exception {
        instance().run(context -> assertThat(context.getBean(LockRegistry.class)).isInstanceOf(ExpirableLockRegistry.class));
        AtomicLong now = new AtomicLong(1_000);
        CoordLockRegistry registry = new CoordLockRegistry(zk.newClient(), "integration", now::get);
        JucLock idle = registry.obtain("idle");
        JucLock busy = registry.obtain("busy");
        busy.lock();
        try {
            now.set(2_000);
            JucLock recent = registry.obtain("recent");
            registry.expireUnusedOlderThan(500);
            assertThat(registry.obtain("recent")).as("obtained within the age").isSameAs(recent);
            assertThat(registry.obtain("busy")).as("held by this process").isSameAs(busy);
            JucLock idleAgain = registry.obtain("idle");
            assertThat(idleAgain).as("unused and older than the age: a new object").isNotSameAs(idle);
            assertThat(registry.obtain("idle")).isSameAs(idleAgain);

            // The dropped object still excludes: exclusion is ZooKeeper's, not the object's.
            assertThat(idle.tryLock(Awaits.scaled(Duration.ofSeconds(5)).toMillis(), TimeUnit.MILLISECONDS)).isTrue();
            try {
                assertThat(idleAgain.tryLock(200, TimeUnit.MILLISECONDS)).isFalse();
            } finally {
                idle.unlock();
            }
        } finally {
            busy.unlock();
        }
        now.set(10_000);
        registry.expireUnusedOlderThan(500);
        assertThat(registry.obtain("busy")).as("released, then unused past the age").isNotSameAs(busy);
        assertThat(registry).hasToString("CoordLockRegistry[/locks/integration, 1 keys]");
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
