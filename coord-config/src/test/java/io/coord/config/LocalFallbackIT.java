package io.coord.config;

import static io.coord.config.ConfigTestKit.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.CoordSettings;
import io.coord.CoordTimeoutException;
import io.coord.test.ZooKeeperExtension;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The local snapshot: a service starts during a ZooKeeper outage and moves to the live value when the ensemble is back. */
class LocalFallbackIT {
    record Limits(int max, String mode) {
    }

    private static final Duration BUDGET = Duration.ofSeconds(30);

    @RegisterExtension
    static final ZooKeeperExtension ZK = ZooKeeperExtension.single();

    private final ConfigTestKit kit = new ConfigTestKit(ZK);
    private final ConfigKey<Limits> key = ConfigKey.of("billing", "limits", Limits.class);

    @AfterEach
    void closeReaders() {
        kit.close();
    }

    private CoordSettings unreachableFast() {
        return kit.settings(Duration.ofSeconds(1));
    }

    @Test
    void theSnapshotIsUsedWhileTheEnsembleIsUnreachableAndTheLiveValueReplacesItOnceReachable(@TempDir Path dir) throws Exception {
        CoordClient client = kit.client();
        ConfigStore store = ConfigStore.open(client, ConfigOptions.defaults());
        store.createIfAbsent(key, new Limits(1, "saved"));
        ConfigOptions options = ConfigOptions.builder().instanceId("billing-1").snapshotDir(dir).build();
        Path file = dir.resolve("billing").resolve("limits.json");
        try (LiveConfig<Limits> first = LiveConfig.watch(client, key, options)) {
            first.awaitInitialized(BUDGET);
            await("the applied value is saved locally", BUDGET, () -> Files.isRegularFile(file));
        }
        store.put(key, new Limits(2, "live"));
        ZK.ensemble().kill(0);

        long start = System.nanoTime();
        LiveConfig<Limits> reader = kit.closeLater(LiveConfig.watch(unreachableFast(), key, options));
        Recorder<Limits> rec = new Recorder<>();
        reader.addListener(rec, Runnable::run);
        assertEquals(new Limits(1, "saved"), reader.awaitInitialized(BUDGET), "the service starts from the snapshot");
        assertTrue(Duration.ofNanos(System.nanoTime() - start).compareTo(Duration.ofSeconds(10)) < 0,
                "without waiting for the ensemble (connect timeout 1 s, fallbackAfter 3 s)");
        assertEquals(Versioned.Origin.SNAPSHOT, reader.current().origin());
        assertEquals(0, reader.current().version());
        assertTrue(reader.isStale(), "a snapshot value is reported stale");

        ZK.ensemble().restart(0);
        await(() -> "the live value replaces the snapshot: " + reader, BUDGET,
                () -> reader.current().origin() == Versioned.Origin.LIVE && reader.current().version() == 1);
        assertEquals(new Limits(2, "live"), reader.get());
        await("no longer stale", BUDGET, () -> !reader.isStale());
        await("both changes told", BUDGET, () -> rec.changes.size() == 2);
        assertNull(rec.changes.get(0).previous());
        assertEquals(Versioned.Origin.SNAPSHOT, rec.changes.get(0).current().origin());
        assertEquals(Versioned.Origin.SNAPSHOT, rec.changes.get(1).previous().origin());
        assertEquals(Versioned.Origin.LIVE, rec.changes.get(1).current().origin());
        await("the snapshot now holds the live version", BUDGET,
                () -> read(file).contains("\"version\" : 1") && read(file).contains("\"live\""));
    }

    @Test
    void withoutAUsableSnapshotAReaderOfAnUnreachableEnsembleTimesOutNamingTheKeyAndTheError(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("billing").resolve("limits.json");
        Files.createDirectories(file.getParent());
        Files.write(file, "{\"format\": 1, \"path\": \"/config/billing/limits\", \"value\": {\"max\": \"not a number\"".getBytes(StandardCharsets.UTF_8));
        ZK.ensemble().kill(0);
        // both at once: each must spend its whole budget to time out
        List<LiveConfig<Limits>> readers = List.of(
                kit.closeLater(LiveConfig.watch(unreachableFast(), key, ConfigOptions.builder().instanceId("a").build())),
                kit.closeLater(LiveConfig.watch(unreachableFast(), key,
                        ConfigOptions.builder().instanceId("b").snapshotDir(dir).fallbackAfter(Duration.ofMillis(100)).build())));
        for (LiveConfig<Limits> reader : readers) {
            CoordTimeoutException e = assertThrows(CoordTimeoutException.class, () -> reader.awaitInitialized(Duration.ofSeconds(6)));
            assertTrue(e.getMessage().contains(key.path().value()) && e.getMessage().contains("could not connect"), e.getMessage());
            assertFalse(reader.currentIfAny().isPresent(), "a corrupt snapshot is ignored, not half-used");
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (java.io.IOException e) {
            return "";
        }
    }
}
