package io.coord.config;

import static io.coord.config.ConfigTestKit.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.CoordTimeoutException;
import io.coord.metrics.MicrometerMetrics;
import io.coord.test.ZooKeeperExtension;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Readers against a real server: convergence, ordering, rejection of bad values, defaults, listeners, whole-app binding. */
class LiveConfigIT {
    record Limits(int max, String mode) {
    }

    record Orders(Limits limits, String banner) {
    }

    private static final AtomicInteger APPS = new AtomicInteger();
    private static final Duration BUDGET = Duration.ofSeconds(20);

    @RegisterExtension
    static final ZooKeeperExtension ZK = ZooKeeperExtension.single();

    private final ConfigTestKit kit = new ConfigTestKit(ZK);
    private final String app = "app" + APPS.incrementAndGet();

    @AfterEach
    void closeReaders() {
        kit.close();
    }

    private ConfigOptions options(String instance) {
        return ConfigOptions.builder().instanceId(instance).build();
    }

    private <T> LiveConfig<T> reader(CoordClient client, ConfigKey<T> key, String instance) {
        return kit.closeLater(LiveConfig.watch(client, key, options(instance)));
    }

    @Test
    void fiftyWatchersConvergeToTheLatestOfTwoHundredRapidUpdatesAndNeverApplyOneOutOfOrder() throws Exception {
        ConfigKey<Limits> key = ConfigKey.of(app, "limits", Limits.class);
        ConfigStore store = ConfigStore.open(kit.client(), ConfigOptions.defaults());
        assertTrue(store.createIfAbsent(key, new Limits(0, "v0")));
        List<CoordClient> clients = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            clients.add(kit.client());
        }
        List<LiveConfig<Limits>> readers = new ArrayList<>();
        List<Recorder<Limits>> recorders = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            LiveConfig<Limits> r = reader(clients.get(i % clients.size()), key, "w-" + i);
            Recorder<Limits> rec = new Recorder<>();
            r.addListener(rec, Runnable::run);
            readers.add(r);
            recorders.add(rec);
        }
        for (LiveConfig<Limits> r : readers) {
            assertEquals(new Limits(0, "v0"), r.awaitInitialized(BUDGET));
        }

        for (int v = 1; v <= 200; v++) {
            assertEquals(v, store.put(key, new Limits(v, "v" + v)), "each put makes the next version");
        }

        await(() -> "every watcher told version 200: " + recorders.stream().map(Recorder::lastVersion).toList(), BUDGET,
                () -> recorders.stream().allMatch(rec -> rec.lastVersion() == 200));
        for (int i = 0; i < 50; i++) {
            LiveConfig<Limits> r = readers.get(i);
            assertEquals(new Limits(200, "v200"), r.get(), "watcher " + i + " holds the latest value");
            assertEquals(200, r.current().version());
            assertFalse(r.isStale());
            ConfigChange<Limits> before = null;
            for (ConfigChange<Limits> c : recorders.get(i).changes) {
                if (before != null) {
                    assertTrue(c.version() > before.version() && c.current().revision() > before.current().revision(),
                            "watcher " + i + " applied " + c + " after " + before + ": out of order");
                    assertEquals(before.current(), c.previous(), "previous is what the watcher held");
                }
                assertEquals(c.version(), c.newValue().max(), "the value belongs to its version");
                before = c;
            }
        }
        await("every watcher reports version 200", BUDGET, () -> {
            try {
                List<ConfigStore.Report> reports = store.who(key);
                return reports.size() == 50 && reports.stream().allMatch(rep -> rep.version() == 200 && !rep.canary());
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        });
    }

    @Test
    void aMalformedOrInvalidUpdateIsRejectedByEveryReaderWhichKeepsTheLastGoodValueAndAppliesTheNextGoodOne() throws Exception {
        ConfigKey<Limits> key = ConfigKey.of(app, "limits", Limits.class)
                .withValidator(l -> l.max() > 0 ? List.of() : List.of("max must be > 0, got " + l.max()));
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        CoordClient metered = kit.client(b -> b.metrics(new MicrometerMetrics(registry)));
        CoordClient plain = kit.client();
        ConfigStore store = ConfigStore.open(plain, ConfigOptions.defaults());
        store.createIfAbsent(key, new Limits(1, "good"));
        List<LiveConfig<Limits>> readers = new ArrayList<>();
        List<Recorder<Limits>> recorders = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            LiveConfig<Limits> r = reader(i % 2 == 0 ? metered : plain, key, "r-" + i);
            Recorder<Limits> rec = new Recorder<>();
            r.addListener(rec, Runnable::run);
            r.awaitInitialized(BUDGET);
            readers.add(r);
            recorders.add(rec);
        }
        // Bad values written around the store (which would refuse them), as a careless tool would.
        String[][] bad = {
            {"{\"max\": 5, \"mode\": ", "parse", "line 1"},
            {"{\"max\": \"many\", \"mode\": \"x\"}", "parse", "line 1"},
            {"{\"max\": 5, \"mode\": \"x\", \"extra\": true}", "parse", "unknown field \"extra\""},
            {"{\"max\": -5, \"mode\": \"x\"}", "validation", "max must be > 0, got -5"},
            {"\uFEFF{\"max\": 5, \"mode\": \"x\"}", "parse", "byte-order mark"},
            {"", "parse", "no data"},
            {"[".repeat(100) + "]".repeat(100), "parse", "line 1"},
            // (Jackson's number-length limit comes without a location: coord-core's Codec then says "at ?")
            {"{\"max\": 1" + "0".repeat(200) + ", \"mode\": \"x\"}", "parse", "Number value length (201) exceeds"},
            // row 17: a string over Codec.MAX_STRING_LENGTH, well within the value size limit
            {"{\"max\": 5, \"mode\": \"" + "x".repeat(70_000) + "\"}", "parse", "maximum allowed (65536"},
        };
        String path = key.path().value();
        int version = 0;
        for (String[] b : bad) {
            plain.curator().setData().forPath(path, b[0].getBytes(StandardCharsets.UTF_8));
            int v = ++version;
            await("every reader rejects version " + v, BUDGET, () -> recorders.stream().allMatch(rec -> rec.rejected(v)));
            for (int i = 0; i < readers.size(); i++) {
                assertEquals(new Limits(1, "good"), readers.get(i).get(), "reader " + i + " keeps the last good value after " + b[0]);
                ConfigRejection rejection = recorders.get(i).rejection(v);
                assertEquals(path, rejection.path());
                assertEquals(b[1], rejection.reason(), rejection.toString());
                assertTrue(rejection.error().contains(b[2]) && rejection.error().contains(path), rejection.error());
            }
        }
        assertEquals(3.0, registry.counter("coord.config.rejected", "app", app, "key", "limits", "version", "4",
                "reason", "validation").count(), "the metric names key, version and reason (3 readers on the metered client)");
        assertEquals(0.0, registry.find("coord.config.applied.version").tag("instance", "r-0").gauge().value(),
                "the applied version is still the good one");

        store.put(key, new Limits(7, "better"));
        await("every reader applies the next good update", BUDGET,
                () -> recorders.stream().allMatch(rec -> rec.lastVersion() == bad.length + 1));
        assertEquals(3, registry.timer("coord.config.propagation", "app", app, "key", "limits").count(),
                "the propagation delay of the good update, once per reader on the metered client");
        for (int i = 0; i < readers.size(); i++) {
            Recorder<Limits> rec = recorders.get(i);
            assertEquals(new Limits(7, "better"), readers.get(i).get());
            assertEquals(List.of((long) bad.length + 1), rec.changes.stream().map(ConfigChange::version).filter(v -> v > 0).toList(),
                    "after the initial value only the next good one: no bad value was ever applied");
            assertEquals(bad.length, rec.rejections.size(), "each bad version rejected once");
        }
    }

    @Test
    void aMissingKeyGivesItsDefaultAndAKeyWithoutDefaultWaitsForItsFirstValue() throws Exception {
        ConfigKey<Limits> bare = ConfigKey.of(app, "limits", Limits.class);
        ConfigKey<Limits> defaulted = bare.withDefault(new Limits(10, "default"));
        CoordClient client = kit.client();
        LiveConfig<Limits> withDefault = reader(client, defaulted, "d");
        LiveConfig<Limits> without = reader(client, bare, "n");
        assertEquals(new Limits(10, "default"), withDefault.awaitInitialized(BUDGET));
        Recorder<Limits> rec = new Recorder<>();
        withDefault.addListener(rec, Runnable::run);
        assertEquals(Versioned.Origin.DEFAULT, withDefault.current().origin());
        assertEquals(Versioned.NO_VERSION, withDefault.current().version());
        CoordTimeoutException timeout = assertThrows(CoordTimeoutException.class, () -> without.awaitInitialized(Duration.ofMillis(500)));
        assertTrue(timeout.getMessage().contains(bare.path().value()) && timeout.getMessage().contains("does not exist"),
                timeout.getMessage());
        IllegalStateException early = assertThrows(IllegalStateException.class, without::get);
        assertTrue(early.getMessage().contains(bare.path().value()), early.getMessage());

        ConfigStore store = ConfigStore.open(client, ConfigOptions.defaults());
        store.createIfAbsent(bare, new Limits(3, "set"));
        assertEquals(new Limits(3, "set"), without.awaitInitialized(BUDGET));
        await("the defaulted reader applies the new key", BUDGET, () -> withDefault.get().equals(new Limits(3, "set")));

        assertTrue(store.delete(bare));
        await("a deleted key brings the default back", BUDGET, () -> rec.changes.size() == 2);
        assertEquals(Versioned.Origin.DEFAULT, withDefault.current().origin());
        assertEquals(new Limits(3, "set"), without.get(), "without a default the last good value stays");
        assertEquals(List.of(Versioned.Origin.LIVE, Versioned.Origin.DEFAULT), rec.changes.stream().map(c -> c.current().origin()).toList());
        assertEquals(Versioned.Origin.DEFAULT, rec.changes.get(0).previous().origin(), "the change is told from the default it replaced");
    }

    @Test
    void listenersGetOldNewAndVersionOnTheirExecutorAndOneThatThrowsDoesNotStopTheOthers() throws Exception {
        ConfigKey<Limits> key = ConfigKey.of(app, "limits", Limits.class);
        CoordClient client = kit.client();
        ConfigStore store = ConfigStore.open(client, ConfigOptions.defaults());
        store.createIfAbsent(key, new Limits(1, "a"));
        LiveConfig<Limits> reader = reader(client, key, "l");
        reader.awaitInitialized(BUDGET);
        ExecutorService executor = Executors.newSingleThreadExecutor(r -> new Thread(r, "app-listener"));
        kit.closeLater(executor::shutdownNow);
        AtomicInteger thrown = new AtomicInteger();
        reader.addListener(new ConfigListener<>() {
            @Override
            public void onChange(ConfigChange<Limits> change) {
                thrown.incrementAndGet();
                throw new IllegalStateException("listener bug");
            }
        }, executor);
        Recorder<Limits> rec = new Recorder<>();
        var registration = reader.addListener(rec, executor);

        store.put(key, new Limits(2, "b"));
        await("the listener is told", BUDGET, () -> rec.changes.size() == 1);
        ConfigChange<Limits> change = rec.changes.get(0);
        assertEquals(new Limits(1, "a"), change.oldValue());
        assertEquals(new Limits(2, "b"), change.newValue());
        assertEquals(1, change.version());
        assertEquals(List.of("app-listener"), rec.threads, "listeners run on the executor they were registered with");
        assertEquals(1, thrown.get());

        registration.close();
        store.put(key, new Limits(3, "c"));
        await("the reader still applies", BUDGET, () -> reader.get().max() == 3);
        assertEquals(1, rec.changes.size(), "a closed registration is told nothing more");
    }

    @Test
    void aWholeAppBindingMapsEachKeyToAFieldAndRejectsAKeyThatBreaksTheWhole() throws Exception {
        ConfigKey<Orders> key = ConfigKey.wholeApp(app, Orders.class)
                .withDefault(new Orders(new Limits(1, "default"), "hello"))
                .withValidator(o -> o.banner().isBlank() ? List.of("banner must not be blank") : List.of());
        CoordClient client = kit.client();
        ConfigStore store = ConfigStore.open(client, ConfigOptions.defaults());
        LiveConfig<Orders> reader = reader(client, key, "whole");
        Recorder<Orders> rec = new Recorder<>();
        reader.addListener(rec, Runnable::run);
        assertEquals(new Orders(new Limits(1, "default"), "hello"), reader.awaitInitialized(BUDGET));

        store.createIfAbsent(ConfigKey.of(app, "limits", Limits.class), new Limits(9, "live"));
        await("the limits key fills its field", BUDGET, () -> reader.get().limits().max() == 9);
        assertEquals("hello", reader.get().banner(), "a missing key keeps the default's field");

        ConfigKey<String> banner = ConfigKey.of(app, "banner", String.class);
        store.createIfAbsent(banner, "welcome");
        await("the banner key fills its field", BUDGET, () -> reader.get().banner().equals("welcome"));
        store.put(banner, " ");
        await("a value that breaks the whole is rejected", BUDGET, () -> rec.rejections.size() == 1);
        assertEquals("validation", rec.rejections.get(0).reason());
        assertEquals(ConfigLayout.key(app, "banner").value(), rec.rejections.get(0).path(), "the rejection names the key");
        assertEquals(new Orders(new Limits(9, "live"), "welcome"), reader.get());
    }

    @Test
    void closingAReaderRemovesItsReportAndStopsItsThread() throws Exception {
        ConfigKey<Limits> key = ConfigKey.of(app, "limits", Limits.class);
        CoordClient client = kit.client();
        ConfigStore store = ConfigStore.open(client, ConfigOptions.defaults());
        store.createIfAbsent(key, new Limits(1, "a"));
        LiveConfig<Limits> reader = LiveConfig.watch(client, key, options("closer"));
        reader.awaitInitialized(BUDGET);
        await("the reader reports", BUDGET, () -> who(store, key).size() == 1);
        reader.close();
        reader.close();
        assertEquals(List.of(), who(store, key), "the report is gone with the reader");
        await("the config thread ends", BUDGET, () -> Thread.getAllStackTraces().keySet().stream()
                .noneMatch(t -> t.isAlive() && t.getName().startsWith("coord-config-" + app + "/")));
    }

    private static List<ConfigStore.Report> who(ConfigStore store, ConfigKey<?> key) {
        try {
            return store.who(key);
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }
}
