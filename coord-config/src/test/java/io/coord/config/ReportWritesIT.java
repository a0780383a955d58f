package io.coord.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.CoordPath;
import io.coord.test.ClientProxy;
import io.coord.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The readers' applied-report writes, as the server recorded them (each report node's mtime and
 * data version): after a change, each reader writes its report no earlier than
 * {@link FollowUps#QUIET_MS} plus its own offset in the {@link FollowUps#WINDOW_MS} window, so N
 * readers' writes are spread over the window instead of all landing on the server at once (where
 * the next change's propagation queued behind them: the config bench's p99); a burst costs one
 * write per reader; and a report that would say nothing new (a reconnect of the same session) is
 * not written at all. Only lower bounds on time and exact write counts are asserted, so a slow
 * machine cannot fail them.
 */
class ReportWritesIT {
    record Limits(int max, String mode) {
    }

    private static final AtomicInteger APPS = new AtomicInteger();
    private static final int READERS = 16;
    private static final Duration WAIT = Duration.ofSeconds(20);
    /** currentTimeMillis here against the server's mtime (same clock, loopback server): truncation only. */
    private static final long CLOCK_SLOP_MS = 2;

    @RegisterExtension
    static final ZooKeeperExtension ZK = ZooKeeperExtension.single();

    private final ConfigTestKit kit = new ConfigTestKit(ZK);
    private final ConfigKey<Limits> key = ConfigKey.of("reports" + APPS.incrementAndGet(), "limits", Limits.class);

    @AfterEach
    void closeReaders() {
        kit.close();
    }

    private CoordPath reportNode(String instanceId) {
        return ConfigLayout.reports(ConfigOptions.defaults().reportsRoot(), key.app(), key.key()).child(instanceId);
    }

    /** The report node's stat, or null while it does not exist. */
    private static Stat stat(CoordClient client, CoordPath node) {
        try {
            return client.curator().checkExists().forPath(node.value());
        } catch (Exception e) {
            throw new IllegalStateException("could not stat " + node, e);
        }
    }

    private List<ConfigStore.Report> who(ConfigStore store) {
        try {
            return store.who(key);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted reading the reports", e);
        }
    }

    /** Waits until every reader's report says {@code version}; returns the report nodes' stats, in reader order. */
    private List<Stat> awaitReports(CoordClient client, ConfigStore store, List<String> ids, long version) throws Exception {
        ConfigTestKit.await(() -> "every reader reports version " + version + ": " + who(store), WAIT,
                () -> who(store).stream().filter(r -> r.version() == version).count() == ids.size());
        return ids.stream().map(id -> stat(client, reportNode(id))).toList();
    }

    @Test
    void aChangesReportsAreWrittenOncePerReaderEachNoEarlierThanItsOffsetInTheWindow() throws Exception {
        CoordClient writer = kit.client();
        ConfigStore store = ConfigStore.open(writer, ConfigOptions.defaults());
        long v0 = store.put(key, new Limits(0, "start"));
        List<String> ids = new ArrayList<>();
        List<Long> offsets = new ArrayList<>();
        for (int i = 0; i < READERS; i++) {
            String id = "spread-" + i;
            ids.add(id);
            offsets.add(FollowUps.offsetMs(id, key.path().value()));
            kit.closeLater(LiveConfig.watch(kit.client(), key, ConfigOptions.builder().instanceId(id).build())).awaitInitialized(WAIT);
        }
        long spread = offsets.stream().mapToLong(Long::longValue).max().orElseThrow() - offsets.stream().mapToLong(Long::longValue).min().orElseThrow();
        assertTrue(spread >= FollowUps.WINDOW_MS / 2, "the readers' offsets spread over the window (else this test shows nothing): " + offsets);
        List<Stat> before = awaitReports(writer, store, ids, v0);

        long t0 = System.currentTimeMillis();
        long last = v0;
        for (int n = 1; n <= 3; n++) { // a burst: one report each
            last = store.put(key, new Limits(n, "burst"));
        }
        List<Stat> after = awaitReports(writer, store, ids, last);
        for (int i = 0; i < READERS; i++) {
            long earliest = t0 + FollowUps.QUIET_MS + offsets.get(i);
            assertTrue(after.get(i).getMtime() >= earliest - CLOCK_SLOP_MS, "reader " + ids.get(i) + " (offset " + offsets.get(i)
                    + " ms) wrote its report " + (after.get(i).getMtime() - t0) + " ms after the burst began, before its slot at "
                    + (earliest - t0) + " ms");
            assertEquals(before.get(i).getVersion() + 1, after.get(i).getVersion(),
                    "reader " + ids.get(i) + " wrote one report for the burst of 3 changes (the last version)");
        }
    }

    @Test
    @Tag("fault")
    void aReconnectWithNothingNewToSayWritesNoReport() throws Exception {
        CoordClient writer = kit.client();
        ConfigStore store = ConfigStore.open(writer, ConfigOptions.defaults());
        long v0 = store.put(key, new Limits(0, "start"));
        ClientProxy proxy = kit.proxy();
        CoordClient client = kit.client(b -> b.connectString(proxy.connectString()));
        long session = client.curator().getZookeeperClient().getZooKeeper().getSessionId();
        LiveConfig<Limits> reader = kit.closeLater(LiveConfig.watch(client, key, ConfigOptions.builder().instanceId("reconnects").build()));
        reader.awaitInitialized(WAIT);
        int written = awaitReports(writer, store, List.of("reconnects"), v0).get(0).getVersion();

        proxy.cut(); // the connection drops; the client reconnects on the same session and the reader re-reads
        ConfigTestKit.await("the reader reconnects and is current again", WAIT, () -> client.curator().getZookeeperClient().isConnected()
                && !reader.isStale());
        // before, the reader rewrote its report QUIET_MS + offset after this: give it that and a window
        Thread.sleep(FollowUps.QUIET_MS + 2 * FollowUps.WINDOW_MS);
        assertEquals(session, client.curator().getZookeeperClient().getZooKeeper().getSessionId(), "the same session (a reconnect, not an expiry)");
        Stat stat = stat(writer, reportNode("reconnects"));
        assertEquals(written, stat.getVersion(), "no report written after a reconnect that changed nothing the report says");
        assertEquals(session, stat.getEphemeralOwner(), "the report node is still the session's");

        long v1 = store.put(key, new Limits(1, "after"));
        assertEquals(written + 1, awaitReports(writer, store, List.of("reconnects"), v1).get(0).getVersion(),
                "a change after the reconnect is reported, once");
    }
}
