package io.coord.config;

import static io.coord.config.ConfigTestKit.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.CoordException;
import io.coord.CoordSession;
import io.coord.SessionListener;
import io.coord.SessionState;
import io.coord.test.Awaits;
import io.coord.test.Faults;
import io.coord.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * F6 on a 3-node ensemble: the leader is killed while updates keep coming. Every follower drops
 * its clients until a new leader is elected, so every reader loses its connection (and may lose
 * its session) in the middle of the stream. Invariants: every reader converges to the last
 * version written (value, version, not stale, and its report says so), and no reader ever applies
 * an update out of order or one that was never written.
 */
@Tag("fault")
class LiveConfigLeaderLossIT {
    record Limits(int max, String mode) {
    }

    private static final Duration BUDGET = Duration.ofSeconds(60);
    private static final int READERS = 12;
    private static final int UPDATES = 120;
    private static final int KILL_AFTER = 40;

    @RegisterExtension
    static final ZooKeeperExtension ZK = ZooKeeperExtension.quorum();

    private final ConfigTestKit kit = new ConfigTestKit(ZK);

    @AfterEach
    void closeReaders() {
        kit.close();
    }

    private static final ConfigKey<Limits> KEY = ConfigKey.of("leaderloss", "limits", Limits.class);

    @Test
    void everyReaderConvergesInOrderWhenTheEnsembleLosesItsLeaderDuringUpdates() throws Exception {
        CoordClient writer = kit.client();
        ConfigStore store = ConfigStore.open(writer, ConfigOptions.defaults());
        store.createIfAbsent(KEY, new Limits(0, "v0"));

        List<LiveConfig<Limits>> readers = new ArrayList<>();
        List<Recorder<Limits>> recorders = new ArrayList<>();
        List<AtomicInteger> interruptions = new ArrayList<>();
        for (int i = 0; i < READERS; i++) {
            CoordClient client = kit.client();
            AtomicInteger dropped = new AtomicInteger();
            client.session().addListener(new SessionListener() {
                @Override
                public void onSuspended(CoordSession s) {
                    dropped.incrementAndGet();
                }

                @Override
                public void onEnded(CoordSession s, SessionState finalState) {
                    dropped.incrementAndGet();
                }
            }, Runnable::run);
            interruptions.add(dropped);
            LiveConfig<Limits> reader = kit.closeLater(LiveConfig.watch(client, KEY, ConfigOptions.builder().instanceId("r-" + i).build()));
            Recorder<Limits> rec = new Recorder<>();
            reader.addListener(rec, Runnable::run);
            reader.awaitInitialized(BUDGET);
            readers.add(reader);
            recorders.add(rec);
        }

        int killed = -1;
        long lastVersion = -1;
        int retried = 0;
        for (int n = 1; n <= UPDATES; n++) {
            if (n == KILL_AFTER + 1) {
                killed = Faults.killLeader(ZK.ensemble());
            }
            // A put whose answer is lost in the election may or may not have been applied: write
            // the same value again until one answer comes (its version is then the latest).
            long deadline = System.nanoTime() + Awaits.scaled(BUDGET).toNanos();
            while (true) {
                try {
                    lastVersion = store.put(KEY, new Limits(n, "v" + n));
                    break;
                } catch (CoordException e) {
                    retried++;
                    if (System.nanoTime() - deadline > 0) {
                        throw new AssertionError("update " + n + " could not be written within " + BUDGET + " of the leader loss", e);
                    }
                    Thread.sleep(50); // pacing between retries while the ensemble elects
                }
            }
        }
        assertTrue(killed >= 0, "the leader was killed");
        assertFalse(ZK.ensemble().isRunning(killed), "the old leader stays down for the rest of the test");
        int newLeader = ZK.ensemble().awaitLeader(Awaits.scaled(BUDGET).toMillis());
        assertTrue(newLeader != killed, "another member leads now");

        long finalVersion = lastVersion;
        await(() -> "every reader converges to version " + finalVersion + ": " + readers, BUDGET,
                () -> readers.stream().allMatch(r -> r.current().version() == finalVersion && !r.isStale()));
        await("every listener was told the final version", BUDGET, () -> recorders.stream().allMatch(r -> r.lastVersion() == finalVersion));
        for (int i = 0; i < READERS; i++) {
            assertEquals(new Limits(UPDATES, "v" + UPDATES), readers.get(i).get(), "reader " + i + "'s value");
            assertTrue(interruptions.get(i).get() > 0, "reader " + i + "'s connection dropped with the leader (or its session ended)");
            List<Long> revisions = recorders.get(i).liveRevisions();
            for (int j = 1; j < revisions.size(); j++) {
                assertTrue(revisions.get(j) > revisions.get(j - 1), "reader " + i + " applied revisions out of order: " + revisions);
            }
            // a put written twice (its first answer lost in the election) repeats a value: never goes back
            List<Integer> values = recorders.get(i).changes.stream().map(c -> c.newValue().max()).toList();
            for (int j = 1; j < values.size(); j++) {
                assertTrue(values.get(j) >= values.get(j - 1), "reader " + i + " applied values out of order: " + values);
            }
            assertTrue(values.stream().allMatch(v -> v >= 0 && v <= UPDATES), "reader " + i + " applied a value never written: " + values);
        }
        int retriedPuts = retried;
        await(() -> "all readers report the final version: " + who(store) + " (puts retried: " + retriedPuts + ")", BUDGET, () -> {
            List<ConfigStore.Report> who = who(store);
            return who.size() == READERS && who.stream().allMatch(r -> r.version() == finalVersion && !r.stale());
        });
    }

    private static List<ConfigStore.Report> who(ConfigStore store) {
        try {
            return store.who(KEY);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        } catch (CoordException e) {
            return List.of(); // asked mid-election: ask again
        }
    }
}
