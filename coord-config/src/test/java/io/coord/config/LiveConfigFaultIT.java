package io.coord.config;

import static io.coord.config.ConfigTestKit.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.test.ClientProxy;
import io.coord.test.ZooKeeperExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Readers under connection faults while updates keep coming: dropped connections (F4, same
 * session), real server-side session expiry (F2, new session) and a black-holed reader (F5).
 * Invariants: every reader converges to the final version, applied revisions only increase,
 * no invalid value is ever applied, and reports come back on the new session.
 */
@Tag("fault")
class LiveConfigFaultIT {
    record Limits(int max, String mode) {
    }

    private static final Duration BUDGET = Duration.ofSeconds(30);

    @RegisterExtension
    static final ZooKeeperExtension ZK = ZooKeeperExtension.single();

    private final ConfigTestKit kit = new ConfigTestKit(ZK);

    @AfterEach
    void closeReaders() {
        kit.close();
    }

    private static final ConfigKey<Limits> KEY = ConfigKey.of("fault", "limits", Limits.class)
            .withValidator(l -> l.max() > 0 ? List.of() : List.of("max must be > 0"));

    @Test
    void readersConvergeWhileTheirConnectionsDropAndSessionsExpireDuringUpdates() throws Exception {
        CoordClient writer = kit.client();
        ConfigStore store = ConfigStore.open(writer, ConfigOptions.defaults());
        store.createIfAbsent(KEY, new Limits(1, "v0"));

        List<ClientProxy> proxies = new ArrayList<>();
        List<CoordClient> clients = new ArrayList<>();
        List<LiveConfig<Limits>> readers = new ArrayList<>();
        List<Recorder<Limits>> recorders = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            CoordClient client;
            if (i < 3) {
                ClientProxy proxy = kit.proxy();
                proxies.add(proxy);
                client = kit.client(b -> b.connectString(proxy.connectString()));
            } else {
                client = kit.client();
            }
            clients.add(client);
            LiveConfig<Limits> reader = kit.closeLater(LiveConfig.watch(client, KEY, ConfigOptions.builder().instanceId("f-" + i).build()));
            Recorder<Limits> rec = new Recorder<>();
            reader.addListener(rec, Runnable::run);
            reader.awaitInitialized(BUDGET);
            readers.add(reader);
            recorders.add(rec);
        }
        long[] sessionsBefore = clients.stream().mapToLong(ConfigTestKit::liveSessionId).toArray();

        int faults = 0;
        long lastVersion = 0;
        for (int i = 1; i <= 150; i++) {
            if (i % 30 == 0) {
                // an invalid value written around the store: every reader must refuse it, even mid-fault
                writer.curator().setData().forPath(KEY.path().value(), "{\"max\": -1, \"mode\": \"bad\"}".getBytes(StandardCharsets.UTF_8));
                lastVersion++;
            }
            lastVersion = store.put(KEY, new Limits(i + 1, "v" + i));
            if (i % 20 == 0) {
                int round = faults++;
                proxies.get(round % proxies.size()).cut();      // F4 on one proxied reader
                if (round < 3) {
                    kit.expire(clients.get(3 + round));                       // F2 on one direct reader
                }
            }
        }
        long finalVersion = lastVersion;
        await(() -> "every reader converges to v" + finalVersion + ": " + readers, BUDGET,
                () -> readers.stream().allMatch(r -> r.current().version() == finalVersion && !r.isStale()));
        await("every listener was told the final version", BUDGET, () -> recorders.stream().allMatch(r -> r.lastVersion() == finalVersion));

        for (int i = 0; i < readers.size(); i++) {
            assertEquals(new Limits(151, "v150"), readers.get(i).get());
            List<Long> revisions = recorders.get(i).liveRevisions();
            for (int j = 1; j < revisions.size(); j++) {
                assertTrue(revisions.get(j) > revisions.get(j - 1), "reader " + i + " applied revisions out of order: " + revisions);
            }
            assertTrue(recorders.get(i).changes.stream().allMatch(c -> c.newValue().max() > 0), "reader " + i + " applied an invalid value");
        }
        for (int i = 3; i < 6; i++) {
            long now = ConfigTestKit.liveSessionId(clients.get(i));
            assertNotEquals(sessionsBefore[i], now, "reader " + i + "'s session really expired");
        }
        assertEquals(7, faults);
        await(() -> "all six readers report the final version again, on their new sessions too: " + who(store), BUDGET, () -> {
            try {
                List<ConfigStore.Report> who = store.who(KEY);
                return who.size() == 6 && who.stream().allMatch(r -> r.version() == finalVersion && !r.stale());
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        });
    }

    private static List<ConfigStore.Report> who(ConfigStore store) {
        try {
            return store.who(KEY);
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void aReaderCutOffReportsStaleKeepsItsLastGoodValueAndCatchesUpAfterwards() throws Exception {
        CoordClient writer = kit.client();
        ConfigStore store = ConfigStore.open(writer, ConfigOptions.defaults());
        store.createIfAbsent(KEY, new Limits(1, "v0"));
        ClientProxy proxy = kit.proxy();
        CoordClient client = kit.client(b -> b.connectString(proxy.connectString()));
        LiveConfig<Limits> reader = kit.closeLater(LiveConfig.watch(client, KEY, ConfigOptions.builder().instanceId("cut").build()));
        reader.awaitInitialized(BUDGET);
        assertFalse(reader.isStale());

        proxy.freeze();
        try {
            for (int i = 1; i <= 5; i++) {
                store.put(KEY, new Limits(10 + i, "while cut off"));
            }
            // SUSPENDED comes after the client's read timeout (2/3 of the 4 s session) without answers
            await("the cut-off reader reports stale", Duration.ofSeconds(10), reader::isStale);
            assertEquals(new Limits(1, "v0"), reader.get(), "it keeps serving its last good value");
        } finally {
            proxy.unfreeze();
        }
        await(() -> "the reader catches up after the cut: " + reader, BUDGET,
                () -> reader.current().version() == 5 && !reader.isStale());
        assertEquals(new Limits(15, "while cut off"), reader.get());
    }
}
