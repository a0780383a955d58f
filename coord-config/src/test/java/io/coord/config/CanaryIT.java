package io.coord.config;

import static io.coord.config.ConfigTestKit.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Canary release with 100 simulated instances (readers with their own instance ids, spread over
 * four clients): who applies it, that the same ids do after a restart, promote and abort, and
 * what {@code who} shows.
 */
class CanaryIT {
    record Flags(boolean fastPath, int batch) {
    }

    private static final Duration BUDGET = Duration.ofSeconds(30);
    private static final int INSTANCES = 100;

    @RegisterExtension
    static final ZooKeeperExtension ZK = ZooKeeperExtension.single();

    private final ConfigTestKit kit = new ConfigTestKit(ZK);
    private List<CoordClient> clients;

    @BeforeEach
    void clients() {
        clients = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            clients.add(kit.client());
        }
    }

    @AfterEach
    void closeReaders() {
        kit.close();
    }

    private static String id(int i) {
        return "instance-" + i;
    }

    private List<LiveConfig<Flags>> open(ConfigKey<Flags> key, List<Integer> which) throws InterruptedException {
        List<LiveConfig<Flags>> readers = new ArrayList<>();
        for (int i : which) {
            readers.add(LiveConfig.watch(clients.get(i % clients.size()), key, ConfigOptions.builder().instanceId(id(i)).build()));
        }
        for (LiveConfig<Flags> r : readers) {
            r.awaitInitialized(BUDGET);
        }
        return readers;
    }

    private static void closeAll(List<LiveConfig<Flags>> readers) {
        readers.forEach(LiveConfig::close);
    }

    private static long count(List<LiveConfig<Flags>> readers, Predicate<Versioned<Flags>> test) {
        return readers.stream().filter(r -> test.test(r.current())).count();
    }

    @Test
    void aboutTenPercentOfAHundredInstancesApplyATenPercentCanaryAndTheSameOnesAfterARestart() throws Exception {
        ConfigKey<Flags> key = ConfigKey.of("shop", "flags", Flags.class);
        ConfigStore store = ConfigStore.open(clients.get(0), ConfigOptions.defaults());
        store.createIfAbsent(key, new Flags(false, 10));
        List<Integer> all = java.util.stream.IntStream.range(0, INSTANCES).boxed().toList();
        List<LiveConfig<Flags>> readers = open(key, all);
        try {
            store.canary(key, new Flags(true, 50), 10);
            long expected = all.stream().filter(i -> CanaryRule.inCanary(id(i), 10)).count();
            assertTrue(expected >= 4 && expected <= 16, "about 10 of 100 instances (binomial, 2 sigma): " + expected);
            await(() -> "the canary reaches exactly the instances hashing below 10%: " + count(readers, v -> v.origin() == Versioned.Origin.CANARY),
                    BUDGET, () -> count(readers, v -> v.origin() == Versioned.Origin.CANARY) == expected);
            for (int i = 0; i < INSTANCES; i++) {
                LiveConfig<Flags> r = readers.get(i);
                boolean in = CanaryRule.inCanary(id(i), 10);
                assertEquals(in, r.inCanary(), id(i));
                assertEquals(in ? new Flags(true, 50) : new Flags(false, 10), r.get(), id(i));
            }
            Set<Integer> canaryIds = inCanary(readers, all);

            await("who shows every instance and which version it runs", BUDGET, () -> reports(store, key).size() == INSTANCES
                    && reports(store, key).values().stream().filter(ConfigStore.Report::canary).count() == expected);
            Map<String, ConfigStore.Report> who = reports(store, key);
            long canaryRevision = store.canaryOf(key).orElseThrow().revision();
            long releasedRevision = store.get(key).orElseThrow().revision();
            for (int i : all) {
                ConfigStore.Report report = who.get(id(i));
                assertEquals(canaryIds.contains(i), report.canary(), id(i));
                assertEquals(canaryIds.contains(i) ? canaryRevision : releasedRevision, report.revision(),
                        id(i) + " reports the write it runs");
            }

            // restart half of the instances, canary members among them: the same ids come back to the same side
            List<Integer> restarted = all.stream().filter(i -> i % 2 == 0).toList();
            List<LiveConfig<Flags>> closed = restarted.stream().map(readers::get).toList();
            closeAll(closed);
            List<LiveConfig<Flags>> again = open(key, restarted);
            for (int j = 0; j < restarted.size(); j++) {
                readers.set(restarted.get(j), again.get(j));
            }
            await("restarted instances applied their values", BUDGET, () -> count(readers, v -> v.origin() == Versioned.Origin.CANARY) == expected);
            assertEquals(canaryIds, inCanary(readers, all), "canary membership is stable across restarts of the same instance ids");
        } finally {
            closeAll(readers);
        }
    }

    @Test
    void promoteReleasesTheCanaryToEveryoneAsTheNextVersionAndAbortSendsItsInstancesBack() throws Exception {
        ConfigKey<Flags> key = ConfigKey.of("shop", "promote", Flags.class);
        ConfigStore store = ConfigStore.open(clients.get(1), ConfigOptions.defaults());
        store.createIfAbsent(key, new Flags(false, 1));
        List<Integer> some = java.util.stream.IntStream.range(0, 40).boxed().toList();
        List<LiveConfig<Flags>> readers = open(key, some);
        try {
            long in30 = some.stream().filter(i -> CanaryRule.inCanary(id(i), 30)).count();
            assertTrue(in30 > 0 && in30 < some.size(), "a mixed population: " + in30);

            store.canary(key, new Flags(true, 2), 30);
            await("30% canary applied", BUDGET, () -> count(readers, v -> v.value().batch() == 2) == in30);
            assertTrue(store.abort(key));
            assertFalse(store.abort(key), "nothing left to abort");
            await("abort: every instance back on the released value", BUDGET,
                    () -> count(readers, v -> v.value().equals(new Flags(false, 1)) && v.origin() == Versioned.Origin.LIVE) == some.size());
            assertThrows(IllegalStateException.class, () -> store.promote(key), "no canary to promote");

            store.canary(key, new Flags(true, 3), 30);
            await("second canary applied", BUDGET, () -> count(readers, v -> v.value().batch() == 3) == in30);
            assertEquals(30.0, store.canaryOf(key).orElseThrow().percent());
            assertEquals(1, store.promote(key), "the canary value becomes the next released version");
            await("promote: everyone on v1", BUDGET, () -> count(readers,
                    v -> v.version() == 1 && v.origin() == Versioned.Origin.LIVE && v.value().equals(new Flags(true, 3))) == some.size());
            assertTrue(store.canaryOf(key).isEmpty(), "promote removed the canary in the same transaction");
            assertEquals(List.of(1L, 0L), store.history(key).stream().map(Versioned::version).toList());
            for (LiveConfig<Flags> r : readers) {
                assertFalse(r.inCanary());
            }
        } finally {
            closeAll(readers);
        }
    }

    private static Set<Integer> inCanary(List<LiveConfig<Flags>> readers, List<Integer> ids) {
        return ids.stream().filter(i -> readers.get(i).inCanary()).collect(Collectors.toCollection(TreeSet::new));
    }

    private static Map<String, ConfigStore.Report> reports(ConfigStore store, ConfigKey<?> key) {
        try {
            return store.who(key).stream().collect(Collectors.toMap(ConfigStore.Report::instance, r -> r));
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }
}
