package io.coord.config;

import static io.coord.config.ConfigTestKit.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.config.LiveConfigIT.Limits;
import io.coord.config.LiveConfigIT.Orders;
import io.coord.test.Awaits;
import io.coord.test.ZooKeeperExtension;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.shared.SharedValue;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Curator has no config recipe: teams keep raw bytes in a node and read it with
 * {@code CuratorCache} (or {@code NodeCache}) or {@code SharedValue}. Coord's key is such a node
 * (JSON bytes, the znode version as the config version), so each side reads the other's: a
 * Curator reader sees Coord's JSON; Coord applies what a Curator writer wrote when it is the key's
 * JSON and keeps the last good value (reporting the rejection) when it is not. A whole-app reader
 * reports a node in its app directory that no field reads.
 */
class CuratorConfigBesideIT {
    @RegisterExtension
    static final ZooKeeperExtension ZK = ZooKeeperExtension.single();
    private static final Duration BUDGET = Duration.ofSeconds(20);
    private static final AtomicInteger APPS = new AtomicInteger();

    private final String app = "beside" + APPS.incrementAndGet();
    private final ConfigTestKit kit = new ConfigTestKit(ZK);
    private CuratorFramework curator;

    @AfterEach
    void close() {
        kit.close();
        if (curator != null) {
            curator.close();
        }
    }

    private CuratorFramework curator() throws InterruptedException {
        curator = CuratorFrameworkFactory.builder().connectString(ZK.connectString()).namespace(ZK.namespace())
                .sessionTimeoutMs(4_000).connectionTimeoutMs(10_000).retryPolicy(new ExponentialBackoffRetry(100, 5)).build();
        curator.start();
        assertTrue(curator.blockUntilConnected((int) Awaits.scaled(BUDGET).toMillis(), TimeUnit.MILLISECONDS), "Curator connected");
        return curator;
    }

    private <T> LiveConfig<T> reader(CoordClient client, ConfigKey<T> key) {
        return kit.closeLater(LiveConfig.watch(client, key, ConfigOptions.builder().instanceId("r").build()));
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void curatorCacheAndSharedValueReadersOfACoordKeySeeItsJsonValue() throws Exception {
        ConfigKey<Limits> key = ConfigKey.of(app, "limits", Limits.class);
        ConfigStore store = ConfigStore.open(kit.client(), ConfigOptions.defaults());
        store.put(key, new Limits(3, "first"));
        byte[] first = store.get(key).map(v -> key.codec(1 << 20).encode(key.path(), v.value())).orElseThrow();

        CuratorFramework c = curator();
        AtomicReference<byte[]> cached = new AtomicReference<>();
        try (CuratorCache cache = CuratorCache.build(c, key.path().value())) {
            cache.listenable().addListener((type, before, after) -> {
                if (after != null && after.getPath().equals(key.path().value())) {
                    cached.set(after.getData());
                }
            });
            cache.start();
            SharedValue shared = new SharedValue(c, key.path().value(), utf8("seed, unused: the node exists"));
            shared.start();
            try {
                await("CuratorCache sees Coord's JSON", BUDGET, () -> cached.get() != null);
                assertArrayEquals(first, cached.get());
                assertArrayEquals(first, shared.getValue(), "SharedValue sees Coord's JSON, not its seed");

                long version = store.put(key, new Limits(4, "second"));
                byte[] second = key.codec(1 << 20).encode(key.path(), new Limits(4, "second"));
                await("CuratorCache sees the update", BUDGET, () -> java.util.Arrays.equals(second, cached.get()));
                await("SharedValue sees the update at the same version", BUDGET,
                        () -> java.util.Arrays.equals(second, shared.getValue()) && shared.getVersionedValue().getVersion() == version);
            } finally {
                shared.close();
            }
        }
    }

    @Test
    void coordAppliesWhatACuratorWriterWroteWhenItIsTheKeysJsonAndOtherwiseKeepsTheLastGoodValue() throws Exception {
        ConfigKey<Limits> key = ConfigKey.of(app, "limits", Limits.class);
        ConfigStore store = ConfigStore.open(kit.client(), ConfigOptions.defaults());
        store.put(key, new Limits(1, "coord"));
        LiveConfig<Limits> reader = reader(kit.client(), key);
        Recorder<Limits> rec = new Recorder<>();
        reader.addListener(rec, Runnable::run);
        reader.awaitInitialized(BUDGET);

        SharedValue shared = new SharedValue(curator(), key.path().value(), utf8("{}"));
        shared.start();
        try {
            assertTrue(shared.trySetValue(shared.getVersionedValue(), utf8("{\"max\": 7, \"mode\": \"curator\"}")));
            await("Coord applies the Curator writer's JSON", BUDGET, () -> reader.get().equals(new Limits(7, "curator")));
            long version = shared.getVersionedValue().getVersion();
            assertEquals(version, reader.current().version(), "the config version is the znode version");
            assertTrue(store.history(key).stream().noneMatch(v -> v.version() == version),
                    "a write around the store has no history entry");

            shared.setValue(utf8("max=9"));
            await("the non-JSON value is rejected", BUDGET, () -> rec.rejections.size() == 1);
            ConfigRejection r = rec.rejections.get(0);
            assertEquals(key.path().value(), r.path(), "the rejection names the node");
            assertEquals("parse", r.reason());
            assertEquals(version + 1, r.version());
            assertEquals(new Limits(7, "curator"), reader.get(), "the last good value stays");
        } finally {
            shared.close();
        }
    }

    @Test
    void aWholeAppReaderWarnsOnceByNameAboutANodeNoFieldReads() throws Exception {
        ConfigKey<Orders> key = ConfigKey.wholeApp(app, Orders.class).withDefault(new Orders(new Limits(1, "d"), "hello"));
        ConfigStore store = ConfigStore.open(kit.client(), ConfigOptions.defaults());
        store.put(ConfigKey.of(app, "banner", String.class), "welcome");
        PrintStream err = System.err;
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        System.setErr(new PrintStream(new TeeStream(err, log), true, StandardCharsets.UTF_8));
        try {
            CuratorFramework c = curator();
            c.create().forPath("/config/" + app + "/banr", utf8("\"typo'd before the reader started\""));
            LiveConfig<Orders> reader = reader(kit.client(), key);
            reader.awaitInitialized(BUDGET);
            String banr = "ignoring /config/" + app + "/banr,";
            await("the typo'd key is named at WARN", BUDGET, () -> log.toString(StandardCharsets.UTF_8).contains(banr));

            c.create().forPath("/config/" + app + "/limitz", utf8("{\"max\": 2}"));
            c.setData().forPath("/config/" + app + "/banr", utf8("\"changed\""));
            String limitz = "ignoring /config/" + app + "/limitz,";
            await("a node that appears later is named too", BUDGET, () -> log.toString(StandardCharsets.UTF_8).contains(limitz));
            String text = log.toString(StandardCharsets.UTF_8);
            assertEquals(1, text.split(java.util.regex.Pattern.quote(banr), -1).length - 1, "warned once: " + text);
            assertTrue(text.contains("config app '" + app + "'") && text.contains("[banner, limits]"), text);
            assertEquals(new Orders(new Limits(1, "d"), "welcome"), reader.get(), "no field took a foreign node's value");
        } finally {
            System.setErr(err);
        }
    }

    /** Writes to both streams: the test keeps its log on stderr and reads it too. */
    private static final class TeeStream extends java.io.OutputStream {
        private final java.io.OutputStream a;
        private final java.io.OutputStream b;

        TeeStream(java.io.OutputStream a, java.io.OutputStream b) {
            this.a = a;
            this.b = b;
        }

        @Override
        public synchronized void write(int x) throws java.io.IOException {
            a.write(x);
            b.write(x);
        }

        @Override
        public synchronized void write(byte[] bytes, int off, int len) throws java.io.IOException {
            a.write(bytes, off, len);
            b.write(bytes, off, len);
        }
    }
}
