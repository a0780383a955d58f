package io.coord.config;

import static io.coord.config.ConfigTestKit.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.coord.AclEntry;
import io.coord.AclPolicy;
import io.coord.CodecException;
import io.coord.ConflictException;
import io.coord.CoordClient;
import io.coord.Credentials;
import io.coord.NotAuthorizedException;
import io.coord.ValueTooLargeException;
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

/** The writer against a real server: compare-and-set, create/delete, checks before sending, history, rollback, ACL. */
class ConfigStoreIT {
    record Limits(int max, String mode) {
    }

    private static final AtomicInteger APPS = new AtomicInteger();
    private static final Duration BUDGET = Duration.ofSeconds(20);
    private static final Credentials ADMIN = Credentials.digest("config-admin", "admin-pw-3c81f0");
    private static final Credentials ALICE = Credentials.digest("alice", "alice-pw-9e22b4");

    @RegisterExtension
    static final ZooKeeperExtension ZK = ZooKeeperExtension.single();

    private final ConfigTestKit kit = new ConfigTestKit(ZK);
    private final ConfigKey<Limits> key = ConfigKey.of("app" + APPS.incrementAndGet(), "limits", Limits.class)
            .withValidator(l -> l.max() > 0 ? List.of() : List.of("max must be > 0, got " + l.max()));

    @AfterEach
    void closeReaders() {
        kit.close();
    }

    private ConfigStore store(CoordClient client, int historyDepth) {
        return ConfigStore.open(client, ConfigOptions.builder().historyDepth(historyDepth).build());
    }

    @Test
    void compareAndSetWithAStaleVersionFailsNamingTheCurrentVersionAndWritesNothing() throws Exception {
        ConfigStore store = store(kit.client(), 10);
        assertTrue(store.createIfAbsent(key, new Limits(1, "a")));
        assertEquals(1, store.compareAndSet(key, 0, new Limits(2, "b")));
        ConflictException conflict = assertThrows(ConflictException.class, () -> store.compareAndSet(key, 0, new Limits(3, "lost")));
        assertTrue(conflict.getMessage().contains("expected version 0") && conflict.getMessage().contains("current version is 1")
                && conflict.getMessage().contains(key.path().value()), conflict.getMessage());
        assertFalse(conflict.retryable());
        assertEquals(new Limits(2, "b"), store.get(key).orElseThrow().value());
        assertEquals(List.of(1L, 0L), store.history(key).stream().map(Versioned::version).toList(), "the lost write left no history");

        ConfigKey<Limits> missing = ConfigKey.of(key.app(), "missing", Limits.class);
        ConflictException absent = assertThrows(ConflictException.class, () -> store.compareAndSet(missing, 0, new Limits(1, "x")));
        assertTrue(absent.getMessage().contains("does not exist"), absent.getMessage());
    }

    @Test
    void createIfAbsentCreatesOnceAndDeleteRemovesTheKeyWithItsHistoryAndCanary() throws Exception {
        CoordClient client = kit.client();
        ConfigStore store = store(client, 10);
        assertTrue(store.createIfAbsent(key, new Limits(1, "first")));
        assertFalse(store.createIfAbsent(key, new Limits(2, "second")), "the key exists: nothing written");
        assertEquals(new Limits(1, "first"), store.get(key).orElseThrow().value());
        assertEquals(0, store.get(key).orElseThrow().version());
        store.put(key, new Limits(2, "b"));
        store.canary(key, new Limits(3, "c"), 50);

        ConflictException stale = assertThrows(ConflictException.class, () -> store.delete(key, 0));
        assertTrue(stale.getMessage().contains("current version is 1"), stale.getMessage());
        store.delete(key, 1);
        assertTrue(store.get(key).isEmpty());
        assertEquals(List.of(), store.history(key));
        assertTrue(store.canaryOf(key).isEmpty());
        assertFalse(store.delete(key), "deleting a missing key is a no-op");

        assertTrue(store.createIfAbsent(key, new Limits(4, "again")));
        assertEquals(List.of(0L), store.history(key).stream().map(Versioned::version).toList(), "a re-created key starts a new history");
    }

    @Test
    void aValueOverTheLimitIsRefusedBeforeAnythingIsSent() throws Exception {
        CoordClient client = kit.client();
        ConfigStore store = ConfigStore.open(client, ConfigOptions.builder().maxValueBytes(1024).build());
        long start = System.nanoTime();
        ValueTooLargeException e = assertThrows(ValueTooLargeException.class,
                () -> store.put(key, new Limits(1, "x".repeat(2000))));
        assertTrue(Duration.ofNanos(System.nanoTime() - start).compareTo(Awaits.scaled(Duration.ofSeconds(1))) < 0,
                "refused at once (RELIABILITY (c) #11: within 1 s, no retries)");
        assertEquals(key.path().value(), e.path());
        assertTrue(e.size() > 2000 && e.limit() == 1024, e.getMessage());
        assertNull(client.curator().checkExists().forPath(key.path().value()), "nothing was written");

        ConfigStore defaults = store(client, 10);
        assertThrows(ValueTooLargeException.class, () -> defaults.put(key, new Limits(1, "y".repeat(ConfigOptions.DEFAULT_MAX_VALUE_BYTES))));
        assertNull(client.curator().checkExists().forPath(key.path().value()), "nothing was written");
    }

    @Test
    void aValueTheValidatorRefusesIsNeverPublished() throws Exception {
        CoordClient client = kit.client();
        ConfigStore store = store(client, 10);
        store.createIfAbsent(key, new Limits(1, "ok"));
        // Row 15 for a writer, with the four checks of RELIABILITY.md (c).
        ConfigValidationException e = BadInputs.assertRefused("15 (put of an invalid value)", client,
                ConfigValidationException.class, () -> store.put(key, new Limits(0, "bad")), key.path().value(),
                "max must be > 0, got 0");
        assertEquals(List.of("max must be > 0, got 0"), e.problems());
        BadInputs.assertRefused("15 (canary of an invalid value)", client, ConfigValidationException.class,
                () -> store.canary(key, new Limits(-1, "bad"), 10), key.path().value(), "max must be > 0, got -1");
        assertEquals(0, store.get(key).orElseThrow().version(), "nothing was published");
        assertTrue(store.canaryOf(key).isEmpty());

        ConfigKey<JsonNode> raw = ConfigKey.json(key.app(), key.key());
        assertThrows(CodecException.class, () -> store.put(key.withValidator(l -> List.of()), null));
        JsonNode tree = io.coord.Codec.mapper().readTree("{\"max\": 5, \"mode\": \"raw\", \"extra\": 1}");
        store.put(raw, tree); // the JSON key checks syntax only: a typed reader will refuse this value
        assertEquals(1, store.get(raw).orElseThrow().version());
        assertThrows(CodecException.class, () -> store.get(key), "a typed read names the unknown field");
    }

    @Test
    void historyKeepsTheLastKVersionsAndRollbackRepublishesAnOldValueAsANewVersion() throws Exception {
        CoordClient client = kit.client();
        ConfigStore store = store(client, 3);
        store.createIfAbsent(key, new Limits(1, "v0"));
        for (int v = 1; v <= 5; v++) {
            store.put(key, new Limits(v + 1, "v" + v));
        }
        List<Versioned<String>> history = store.history(key);
        assertEquals(List.of(5L, 4L, 3L), history.stream().map(Versioned::version).toList(), "the last 3 versions, newest first");
        assertEquals("{\"max\":6,\"mode\":\"v5\"}", history.get(0).value());
        assertEquals(3, client.curator().getChildren().forPath(ConfigLayout.historyDir(key.app(), key.key()).value()).size());

        assertEquals(6, store.rollback(key, 3));
        Versioned<Limits> now = store.get(key).orElseThrow();
        assertEquals(new Limits(4, "v3"), now.value(), "version 3's value is back");
        assertEquals(6, now.version(), "as a new version: versions never go back");
        assertEquals(List.of(6L, 5L, 4L), store.history(key).stream().map(Versioned::version).toList());

        IllegalArgumentException gone = assertThrows(IllegalArgumentException.class, () -> store.rollback(key, 1));
        assertTrue(gone.getMessage().contains("version 1") && gone.getMessage().contains("[4, 5, 6]"), gone.getMessage());

        ConfigKey<Limits> stricter = key.withValidator(l -> l.max() > 4 ? List.of() : List.of("max must be > 4"));
        assertThrows(ConfigValidationException.class, () -> store.rollback(stricter, 6),
                "an old value must pass today's rules to come back");
    }

    @Test
    void onlyTheConfigAdminMayWriteUnderConfigWhileEveryoneReadsAndReports() throws Exception {
        AclPolicy policy = AclPolicy.builder()
                .defaultAcl(AclEntry.anyone(Perms.ALL))
                .rule("/config", AclEntry.anyone(Perms.READ), AclEntry.digest(ADMIN.identity(), ADMIN.secret(), Perms.ALL))
                .build();
        CoordClient admin = kit.client(policy, ADMIN);
        CoordClient alice = kit.client(policy, ALICE);
        CoordClient anonymous = kit.client(policy);
        ConfigStore adminStore = store(admin, 10);
        ConfigStore aliceStore = store(alice, 10);
        adminStore.createIfAbsent(key, new Limits(1, "admin"));

        NotAuthorizedException put = assertThrows(NotAuthorizedException.class, () -> aliceStore.put(key, new Limits(2, "alice")));
        assertTrue(put.getMessage().contains(key.path().value()) && put.getMessage().contains("digest:alice"), put.getMessage());
        assertFalse(put.retryable());
        ConfigKey<Limits> fresh = ConfigKey.of(key.app(), "fresh", Limits.class);
        NotAuthorizedException create = assertThrows(NotAuthorizedException.class,
                () -> aliceStore.createIfAbsent(fresh, new Limits(1, "x")));
        assertTrue(create.getMessage().contains("digest:alice"), create.getMessage());
        assertThrows(NotAuthorizedException.class, () -> aliceStore.rollback(key, 0));
        assertThrows(NotAuthorizedException.class, () -> aliceStore.canary(key, new Limits(3, "c"), 10));
        assertThrows(NotAuthorizedException.class, () -> aliceStore.delete(key));
        assertEquals(new Limits(1, "admin"), aliceStore.get(key).orElseThrow().value(), "everyone reads");
        assertEquals(0, adminStore.get(key).orElseThrow().version(), "nothing was written by alice");

        LiveConfig<Limits> reader = kit.closeLater(LiveConfig.watch(anonymous, key, ConfigOptions.builder().instanceId("anon").build()));
        assertEquals(new Limits(1, "admin"), reader.awaitInitialized(BUDGET));
        await("an anonymous reader reports outside /config", BUDGET, () -> {
            try {
                return adminStore.who(key).size() == 1;
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        });
        adminStore.put(key, new Limits(5, "v1"));
        await("the reader applies the admin's write", BUDGET, () -> reader.get().max() == 5);
    }
}
