package io.coord.bench;

import io.coord.CoordClient;
import io.coord.bench.BenchContext.Paired;
import io.coord.config.ConfigChange;
import io.coord.config.ConfigKey;
import io.coord.config.ConfigListener;
import io.coord.config.ConfigOptions;
import io.coord.config.ConfigStore;
import io.coord.config.LiveConfig;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;

/**
 * {@code config.propagation}: from a write returning to each of 50 watchers' listener being told
 * the new version. Ours: {@link ConfigStore#put} (one transaction with the history entry) and 50
 * {@link LiveConfig} readers with their defaults (reports on, listener on a direct executor);
 * the peer: a plain Curator {@code setData} and 50 {@code CuratorCache} (single node) listeners.
 * Same node, same 50 sessions (one client per watcher, shared by both sides); each side's
 * watchers are opened for its round and closed after it. The next write waits until every
 * watcher saw the previous one, so no update coalesces. A listener told before the write returned
 * (the server sends the notification before the writer's answer) counts as 0.
 *
 * <p>{@code -Dbench.noReports=true} runs ours without the readers' reports, to see their share.
 */
final class ConfigPropagationBench implements Benchmark {
    static final String NAME = "config.propagation";
    static final int DEFAULT_OPS = 80;
    static final int WATCHERS = 50;
    private static final String PEER = "curator-CuratorCache";
    private static final Duration WAIT = Duration.ofSeconds(20);

    /** The benchmark's value: a counter and ~100 bytes of padding. */
    record Payload(int n, String pad) {
    }

    /** One round of one side, in milliseconds over every (update, watcher) pair. */
    record Propagation(double p50Ms, double p99Ms, double maxMs) {
        @Override
        public String toString() {
            return "p50 " + Table.number(p50Ms) + " ms p99 " + Table.number(p99Ms) + " ms max " + Table.number(maxMs) + " ms";
        }
    }

    /** What the watchers of one update must see: the version, and when each saw it. */
    private record Target(long version, AtomicLongArray arrivals, CountDownLatch all) {
        Target(long version) {
            this(version, new AtomicLongArray(WATCHERS), new CountDownLatch(WATCHERS));
        }

        void saw(int watcher, long seen) {
            if (seen >= version && arrivals.compareAndSet(watcher, 0, System.nanoTime())) {
                all.countDown();
            }
        }
    }

    private volatile Target target = new Target(Long.MAX_VALUE);

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "write returns -> each of 50 watchers' listener (ConfigStore.put + LiveConfig); peer: setData + CuratorCache";
    }

    @Override
    public List<Figure> run(BenchContext ctx) throws InterruptedException {
        int n = ctx.ops(DEFAULT_OPS);
        ConfigKey<Payload> key = ConfigKey.of("bench", "propagation", Payload.class);
        List<CoordClient> clients = new ArrayList<>();
        try {
            for (int i = 0; i <= WATCHERS; i++) {
                clients.add(ctx.newCoordClient());
            }
            CoordClient writer = clients.get(WATCHERS);
            ConfigStore store = ConfigStore.open(writer, ConfigOptions.defaults());
            store.createIfAbsent(key, payload(0));
            Paired<Propagation> r = ctx.alternate(round -> ours(clients, store, key, n), round -> peer(clients, writer, key, n));
            return List.of(
                    Figure.lower(NAME, "latency.p50", "ms", Stats.median(r.ours(), Propagation::p50Ms), Stats.median(r.peer(), Propagation::p50Ms), PEER),
                    Figure.lower(NAME, "latency.p99", "ms", Stats.median(r.ours(), Propagation::p99Ms), Stats.median(r.peer(), Propagation::p99Ms), PEER),
                    Figure.lower(NAME, "latency.max", "ms", Stats.median(r.ours(), Propagation::maxMs), Stats.median(r.peer(), Propagation::maxMs), PEER));
        } finally {
            for (int i = clients.size() - 1; i >= 0; i--) {
                clients.get(i).close();
            }
        }
    }

    private Propagation ours(List<CoordClient> clients, ConfigStore store, ConfigKey<Payload> key, int n) throws InterruptedException {
        List<LiveConfig<Payload>> readers = new ArrayList<>();
        try {
            for (int i = 0; i < WATCHERS; i++) {
                int watcher = i;
                LiveConfig<Payload> reader = LiveConfig.watch(clients.get(i), key, ConfigOptions.builder().instanceId("bench-" + i).reportApplied(!Boolean.getBoolean("bench.noReports")).build());
                reader.addListener(new ConfigListener<>() {
                    @Override
                    public void onChange(ConfigChange<Payload> change) {
                        target.saw(watcher, change.version());
                    }
                }, Runnable::run);
                readers.add(reader);
            }
            long version = 0;
            for (LiveConfig<Payload> reader : readers) {
                version = Math.max(version, reader.awaitInitialized(WAIT).n() >= 0 ? reader.current().version() : 0);
            }
            Latencies latencies = new Latencies(n * WATCHERS);
            for (int i = 0; i < n; i++) {
                Target t = new Target(version + 1);
                target = t;
                long written = store.put(key, payload(i + 1));
                long t0 = System.nanoTime();
                if (written != t.version()) {
                    throw new IllegalStateException("put made version " + written + ", expected " + t.version());
                }
                collect(t, t0, latencies);
                version = written;
            }
            return result(latencies);
        } finally {
            target = new Target(Long.MAX_VALUE);
            readers.forEach(LiveConfig::close);
        }
    }

    private Propagation peer(List<CoordClient> clients, CoordClient writer, ConfigKey<Payload> key, int n) throws InterruptedException {
        String path = key.path().value();
        List<CuratorCache> caches = new ArrayList<>();
        try {
            CountDownLatch primed = new CountDownLatch(WATCHERS);
            for (int i = 0; i < WATCHERS; i++) {
                int watcher = i;
                CuratorCache cache = CuratorCache.build(clients.get(i).curator(), path, CuratorCache.Options.SINGLE_NODE_CACHE);
                cache.listenable().addListener(CuratorCacheListener.builder()
                        .forChanges((before, after) -> target.saw(watcher, after.getStat().getVersion()))
                        .forInitialized(primed::countDown)
                        .build());
                caches.add(cache);
                cache.start();
            }
            if (!primed.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("CuratorCaches not initialized within " + WAIT);
            }
            Latencies latencies = new Latencies(n * WATCHERS);
            for (int i = 0; i < n; i++) {
                byte[] data = bytes(payload(i + 1));
                long current;
                try {
                    current = writer.curator().checkExists().forPath(path).getVersion();
                } catch (Exception e) {
                    throw new IllegalStateException("could not read " + path, e);
                }
                Target t = new Target(current + 1);
                target = t;
                long written;
                try {
                    written = writer.curator().setData().withVersion((int) current).forPath(path, data).getVersion();
                } catch (Exception e) {
                    throw new IllegalStateException("peer setData of " + path + " failed", e);
                }
                long t0 = System.nanoTime();
                if (written != t.version()) {
                    throw new IllegalStateException("setData made version " + written + ", expected " + t.version());
                }
                collect(t, t0, latencies);
            }
            return result(latencies);
        } finally {
            target = new Target(Long.MAX_VALUE);
            caches.forEach(CuratorCache::close);
        }
    }

    private static void collect(Target t, long t0, Latencies latencies) throws InterruptedException {
        if (!t.all().await(WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException("only " + (WATCHERS - t.all().getCount()) + " of " + WATCHERS
                    + " watchers saw version " + t.version() + " within " + WAIT);
        }
        for (int w = 0; w < WATCHERS; w++) {
            latencies.add(Math.max(0, t.arrivals().get(w) - t0));
        }
    }

    private static Propagation result(Latencies latencies) {
        return new Propagation(latencies.percentileMs(0.50), latencies.percentileMs(0.99), latencies.percentileMs(1.0));
    }

    private static Payload payload(int n) {
        return new Payload(n, "x".repeat(100));
    }

    private static byte[] bytes(Payload p) {
        return ("{\"n\":" + p.n() + ",\"pad\":\"" + p.pad() + "\"}").getBytes(StandardCharsets.UTF_8);
    }
}
