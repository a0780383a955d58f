package io.coord.config;

import static io.coord.config.ConfigTestKit.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.AclEntry;
import io.coord.AclPolicy;
import io.coord.CoordClient;
import io.coord.Credentials;
import io.coord.NotAuthorizedException;
import io.coord.test.Awaits;
import io.coord.test.BadInputs;
import io.coord.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.zookeeper.ZooDefs.Perms;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Bad-input row 32 of RELIABILITY.md (c) for configuration: a reader or a read on a key this
 * client may not READ fails with {@link NotAuthorizedException} naming the path and the identity,
 * within 1 s (scaled), instead of waiting for its timeout; it creates nothing (no report node);
 * and a reader recovers by itself once the ACL lets it read.
 */
class ConfigReadAuthorizationIT {
    record Limits(int max, String mode) {
    }

    private static final AtomicInteger APPS = new AtomicInteger();
    private static final Credentials ADMIN = Credentials.digest("config-admin", "admin-pw-32c0nf");
    private static final Credentials ALICE = Credentials.digest("alice", "alice-pw-32r0w");
    private static final Duration BUDGET = Duration.ofSeconds(20);

    @RegisterExtension
    static final ZooKeeperExtension ZK = ZooKeeperExtension.single();

    private final ConfigTestKit kit = new ConfigTestKit(ZK);
    private final String app = "secretapp" + APPS.incrementAndGet();
    private final ConfigKey<Limits> key = ConfigKey.of(app, "limits", Limits.class);

    @AfterEach
    void closeReaders() {
        kit.close();
    }

    /** The admin publishes {@code key}; only the admin may read anything under {@code /config/{app}}. */
    private CoordClient adminOnlyKey() throws InterruptedException {
        AclPolicy policy = AclPolicy.builder()
                .rule("/config/" + app, AclEntry.digest(ADMIN.identity(), ADMIN.secret(), Perms.ALL))
                .build();
        CoordClient admin = kit.client(policy, ADMIN);
        assertTrue(ConfigStore.open(admin, ConfigOptions.defaults()).createIfAbsent(key, new Limits(7, "secret")));
        return admin;
    }

    @Test
    void aReaderWithoutReadFailsAtOnceNamingPathAndIdentityAndRecoversWhenTheAclAllowsIt() throws Exception {
        CoordClient admin = adminOnlyKey();
        CoordClient alice = kit.client(b -> b.credentials(ALICE));
        LiveConfig<Limits> reader = kit.closeLater(LiveConfig.watch(alice, key, ConfigOptions.builder().instanceId("alice-1").build()));

        long start = System.nanoTime();
        NotAuthorizedException e = assertThrows(NotAuthorizedException.class, () -> reader.awaitInitialized(BUDGET));
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        System.out.println("row 32 LiveConfig without READ -> NotAuthorizedException in " + took.toMillis() + " ms: " + e.getMessage());
        assertTrue(e.getMessage().contains(key.path().value()) && e.getMessage().contains("digest:alice"),
                "names the path and the identity: " + e.getMessage());
        assertFalse(e.retryable());
        Duration bound = Awaits.scaled(Duration.ofSeconds(1));
        assertTrue(took.compareTo(bound) < 0, "failed at once, not at the " + BUDGET + " timeout: " + took);
        assertTrue(reader.currentIfAny().isEmpty(), "nothing applied");
        ConfigStore adminStore = ConfigStore.open(admin, ConfigOptions.defaults());
        assertEquals(List.of(), adminStore.who(key), "no report node was created");
        assertNull(admin.curator().checkExists().forPath("/config-reports/" + app + "/limits/alice-1"));

        // The reader keeps trying (awaitInitialized keeps failing at once until a read succeeds):
        // once an admin lets everyone read, it applies the value by itself.
        for (String path : List.of("/config/" + app, key.path().value())) {
            admin.curator().setACL().withACL(List.of(AclEntry.anyone(Perms.READ).toAcl(),
                    AclEntry.digest(ADMIN.identity(), ADMIN.secret(), Perms.ALL).toAcl())).forPath(path);
        }
        await("the reader reads the key once it may", BUDGET, () -> reader.currentIfAny().isPresent());
        assertEquals(new Limits(7, "secret"), reader.awaitInitialized(BUDGET));
        await("the reader reports what it applied", BUDGET, () -> {
            try {
                return adminStore.who(key).size() == 1;
            } catch (InterruptedException interrupted) {
                throw new AssertionError(interrupted);
            }
        });
    }

    @Test
    void aReadWithoutReadFailsNamingPathAndIdentity() throws Exception {
        CoordClient admin = adminOnlyKey();
        CoordClient anonymous = kit.client();
        ConfigStore store = ConfigStore.open(anonymous, ConfigOptions.defaults());
        // The admin sees every node of the namespace: the four checks of RELIABILITY.md (c).
        BadInputs.assertRefused("32 (ConfigStore.get without READ)", admin, NotAuthorizedException.class, () -> store.get(key),
                key.path().value(), "anonymous", "does not grant");
    }
}
