package io.coord.config;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.coord.CoordClient;
import io.coord.test.ServerRequests;
import io.coord.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What a publish and a change cost in server requests, counted by the server ({@code cons}): a
 * count, not a time. A put (or compare-and-set) of a key whose last publish this store made is its
 * one transaction, history entry included: the version and the history's names come from the
 * store's own last reply, not from reads (before, every put read the history directory's stat,
 * the key's stat and the history's names first: 4 requests, each a round trip before the write
 * readers wait for). Each reader re-reads a change once, with its watch. And the remembered state
 * is only a guess: after another writer, the one transaction fails whole, the store reads and
 * retries, and the history stays complete, ordered and trimmed.
 */
class ConfigRequestsIT {
    record Limits(int max, String mode) {
    }

    private static final AtomicInteger APPS = new AtomicInteger();
    private static final int READERS = 5;
    private static final int DEPTH = 4;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration WAIT = Duration.ofSeconds(20);

    @RegisterExtension
    static final ZooKeeperExtension ZK = ZooKeeperExtension.single();

    private final ConfigTestKit kit = new ConfigTestKit(ZK);
    private final String app = "requests" + APPS.incrementAndGet();
    private final ConfigKey<Limits> key = ConfigKey.of(app, "limits", Limits.class);

    @AfterEach
    void closeReaders() {
        kit.close();
    }

    private int port() {
        String cs = ZK.connectString();
        return Integer.parseInt(cs.substring(cs.lastIndexOf(':') + 1));
    }

    private static long session(CoordClient client) throws Exception {
        return client.curator().getZookeeperClient().getZooKeeper().getSessionId();
    }

    private static long sent(Map<Long, Long> before, Map<Long, Long> after, long session) {
        return after.getOrDefault(session, 0L) - before.getOrDefault(session, 0L);
    }

    /** A publish step: what it sends, returning the new version. */
    @FunctionalInterface
    private interface Publish {
        long run(ConfigStore store, long last, int n) throws Exception;
    }

    @Test
    void aRepeatedPublishIsOneRequestAndEachReaderReadsAChangeOnce() throws Exception {
        CoordClient writer = kit.client();
        ConfigStore store = ConfigStore.open(writer, ConfigOptions.builder().historyDepth(DEPTH).build());
        long last = store.put(key, new Limits(1, "first")); // the key's first publish: reads, creates the directories
        List<CoordClient> readerClients = new ArrayList<>();
        List<LiveConfig<Limits>> readers = new ArrayList<>();
        for (int i = 0; i < READERS; i++) {
            CoordClient c = kit.client();
            readerClients.add(c);
            readers.add(kit.closeLater(LiveConfig.watch(c, key, ConfigOptions.builder().instanceId("r" + i).reportApplied(false).build())));
        }
        for (LiveConfig<Limits> r : readers) {
            r.awaitInitialized(WAIT);
        }
        List<Publish> kinds = List.of(
                (s, v, n) -> s.put(key, new Limits(n, "put")),
                (s, v, n) -> s.compareAndSet(key, v, new Limits(n, "cas")),
                (s, v, n) -> s.putAsync(key, new Limits(n, "async")).get(WAIT.toSeconds(), TimeUnit.SECONDS),
                (s, v, n) -> s.compareAndSetAsync(key, v, new Limits(n, "cas-async")).get(WAIT.toSeconds(), TimeUnit.SECONDS));
        int n = 1;
        for (int round = 0; round < 2; round++) {
            for (int kind = 0; kind < kinds.size(); kind++) {
                n++;
                Map<Long, Long> before = ServerRequests.lastXids(port());
                long version = kinds.get(kind).run(store, last, n);
                assertEquals(last + 1, version, "publish kind " + kind + " made the next version");
                last = version;
                for (LiveConfig<Limits> r : readers) {
                    ConfigTestKit.await(() -> r + " applies version " + version, WAIT, () -> r.current().version() == version);
                }
                Map<Long, Long> after = ServerRequests.lastXids(port());
                assertEquals(1, sent(before, after, session(writer)), "round " + round + ", publish kind " + kind
                        + ": the writer's requests for one publish of a key it published last (its transaction alone)");
                for (int i = 0; i < READERS; i++) {
                    assertEquals(1, sent(before, after, session(readerClients.get(i))),
                            "round " + round + ", publish kind " + kind + ": reader " + i + "'s requests for one change (one re-read)");
                }
            }
        }
        assertHistory(store, last);
    }

    @Test
    void afterAnotherWriterTheGuessFailsWholeAndHistoryStaysCompleteAndOrdered() throws Exception {
        ConfigStore a = ConfigStore.open(kit.client(), ConfigOptions.builder().historyDepth(DEPTH).build());
        ConfigStore b = ConfigStore.open(kit.client(), ConfigOptions.builder().historyDepth(DEPTH).build());
        long last = -1;
        int n = 0;
        for (int round = 0; round < 3; round++) {
            // a publishes twice (the second on its guess), then b publishes behind a's back: a's next guess is stale
            for (ConfigStore s : List.of(a, a, b)) {
                n++;
                long version = round == 1 ? s.putAsync(key, new Limits(n, "v" + n)).get(WAIT.toSeconds(), TimeUnit.SECONDS)
                        : s.put(key, new Limits(n, "v" + n));
                assertEquals(last + 1, version, "publish " + n + " made the next version, whoever wrote before");
                last = version;
            }
        }
        long stale = last;
        n++;
        assertEquals(stale + 1, a.compareAndSet(key, stale, new Limits(n, "v" + n)), "a compare-and-set on the real version wins");
        last = stale + 1;
        assertEquals(new Limits(n, "v" + n), b.get(key).orElseThrow().value());
        assertHistory(b, last);
        for (Versioned<String> entry : assertHistory(a, last)) {
            assertEquals(entry.version() + 1, JSON.readValue(entry.value(), Limits.class).max(),
                    "history entry " + entry.version() + " holds the value published as that version");
        }
    }

    /** The history holds exactly the last {@value #DEPTH} versions, newest first, each with the value published as it. */
    private List<Versioned<String>> assertHistory(ConfigStore store, long last) throws Exception {
        List<Versioned<String>> history = store.history(key);
        List<Long> expected = new ArrayList<>();
        for (long v = last; v > last - DEPTH && v >= 0; v--) {
            expected.add(v);
        }
        assertEquals(expected, history.stream().map(Versioned::version).toList(), "history: the last " + DEPTH + " versions, newest first");
        Versioned<Limits> current = store.get(key).orElseThrow();
        assertEquals(current.version(), history.get(0).version(), "the newest history entry is the key's version");
        assertEquals(current.value(), JSON.readValue(history.get(0).value(), Limits.class), "the newest history entry holds the key's value");
        return history;
    }
}
