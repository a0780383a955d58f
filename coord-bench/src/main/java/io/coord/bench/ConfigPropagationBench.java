package io.coord.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.coord.CoordClient;
import io.coord.config.ConfigChange;
import io.coord.config.ConfigKey;
import io.coord.config.ConfigListener;
import io.coord.config.ConfigOptions;
import io.coord.config.ConfigStore;
import io.coord.config.LiveConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Queue;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.apache.zookeeper.KeeperException;

/**
 * {@code config.propagation}: from a write's start ({@link ConfigStore#put} called) to each of N
 * watchers' listener being told the new version, for N in {@value #READERS_DEFAULT} (the system
 * property {@value #READERS_PROPERTY} overrides). Ours: {@code put} (one transaction with the
 * history entry) and N {@link LiveConfig} readers with their defaults (reports on, listener on a
 * direct executor); the peer: a plain Curator {@code setData} (with the version from its last
 * reply) and N {@code CuratorCache} (single node) listeners. Each watcher is its own client and
 * session, as a new user would run them; with {@value #SHARED_PROPERTY}{@code =true} all N share
 * one client instead.
 *
 * <p>Made to be compared at the p99, on a shared, noisy machine:
 * <ul>
 *   <li>Both sides are watched at once, each on its own node, by the same N watchers' clients and
 *       written by the same writer; their updates <b>alternate one by one</b> (the order of each
 *       pair alternating too), so a burst of load elsewhere on the machine falls on both alike
 *       instead of on whichever side's round it hit.</li>
 *   <li>A warm-up of {@code ops} updates per side first (JIT, caches, connections), not
 *       counted. {@code ops} per round is {@value #SAMPLES_PER_ROUND} samples / N (at least
 *       {@value #MIN_OPS}) unless {@code --ops} says otherwise, so every size gets about as many
 *       samples and the whole run stays short.</li>
 *   <li>Percentiles over <b>all</b> samples of all rounds of a side, not a median of per-round
 *       p99s that each rest on a few dozen. {@code --verbose} shows each round's p99 ratio, to
 *       judge the spread.</li>
 *   <li>The same listener work: a LiveConfig listener gets the value decoded by the reader (JSON
 *       into a record); the peer's listener decodes the node's bytes into the same record with
 *       Jackson, as an application using CuratorCache for typed config must.</li>
 *   <li>The next write waits until every watcher of the last one (of either side) saw it, so no
 *       update coalesces and the sides never overlap.</li>
 * </ul>
 * After the timed rounds, {@value #COUNTED} more updates per side are counted by the server
 * ({@code cons}): the writer's requests per put, each watcher's requests until it saw the change,
 * and (ours only) the follow-up requests after it (the report each reader rewrites
 * {@code FollowUps.QUIET_MS} plus its offset in the {@code FollowUps.WINDOW_MS} window after a change).
 *
 * <p>{@code -Dbench.noReports=true} runs ours without the readers' reports, to see their share.
 * {@code -Dbench.config.reportTimes=true} (a diagnostic, off by default: it adds one read per report
 * write) watches the readers' report nodes from one more client and prints how many report writes
 * the server timestamped (mtime) within each measured update of either side: on average, at most,
 * and within the updates that make the p99, to see whether the tail is report writes.
 */
final class ConfigPropagationBench implements Benchmark {
    static final String NAME = "config.propagation";
    static final String READERS_PROPERTY = "coord.bench.config.readers";
    static final String READERS_DEFAULT = "50,200,500";
    static final String SHARED_PROPERTY = "coord.bench.config.shared";
    /**
     * Samples per side and round (updates x watchers): 120 updates per round at 50 watchers, 30 at
     * 200, 12 at 500, so 50,200,500 at 7 rounds runs in well under 2 minutes (2 rounds took 85 s
     * at 15,000). A stall delays all N samples of the update it hits, so the p99 comes from the
     * slowest 1-3% of the updates: for a tighter p99 interval give more with {@code --ops}.
     */
    static final int SAMPLES_PER_ROUND = 6_000;
    static final int MIN_OPS = 10;
    /** Updates per side counted by the server after the timed rounds. */
    static final int COUNTED = 3;
    /** Bootstrap resamples for the p99 ratio's interval. */
    static final int BOOTSTRAP = 400;
    /** Threads connecting and closing the watchers' clients (thousands of them at the largest sizes). */
    private static final int CONNECTORS = 8;
    /**
     * Longer than a reader's latest report delay ({@code FollowUps.QUIET_MS}, 250 ms, plus its offset
     * in the {@code FollowUps.WINDOW_MS} window, under 1 s): the follow-ups of a change are sent by then.
     */
    private static final Duration FOLLOW_UPS = Duration.ofMillis(1700);
    private static final String PEER = "curator-CuratorCache";
    private static final String PEER_PATH = "/bench/config-peer/propagation";
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final ObjectMapper JSON = new ObjectMapper();
    static final String REPORT_TIMES_PROPERTY = "bench.config.reportTimes";
    private static final String REPORTS_PATH = ConfigOptions.DEFAULT_REPORTS_ROOT.value() + "/bench/propagation";

    /** The benchmark's value: a counter and ~100 bytes of padding. */
    record Payload(int n, String pad) {
    }

    /** What the watchers of one update must see: the version, and when each saw it. */
    private record Target(long version, AtomicLongArray arrivals, CountDownLatch all) {
        Target(long version, int watchers) {
            this(version, new AtomicLongArray(watchers), new CountDownLatch(watchers));
        }

        void saw(int watcher, long seen) {
            if (seen >= version && arrivals.compareAndSet(watcher, 0, System.nanoTime())) {
                all.countDown();
            }
        }
    }

    /** One side: its watchers, its writes, and where their listeners report. */
    private abstract static class Side implements AutoCloseable {
        final int watchers;
        volatile Target target;
        /** Every measured sample of the side, all rounds. */
        Latencies all;
        /** Each measured update's samples (nanoseconds, one per watcher), in order: update i of both sides ran back to back. */
        final List<long[]> updates = new ArrayList<>();
        /** Each measured update's wall-clock window, {start, end} in ms, for {@link #REPORT_TIMES_PROPERTY}. */
        final List<long[]> windows = new ArrayList<>();

        Side(int watchers) {
            this.watchers = watchers;
            this.target = new Target(Long.MAX_VALUE, watchers);
        }

        /** How many measured updates had a watcher at or above {@code thresholdMs}. */
        long updatesAtOrAbove(double thresholdMs) {
            return updates.stream().filter(u -> Arrays.stream(u).max().orElse(0) / 1e6 >= thresholdMs).count();
        }

        /** Writes update {@code n}; returns the new version (known before the write, to set the target). */
        abstract long write(int n) throws InterruptedException;

        /** The version the next write will make. */
        abstract long nextVersion() throws InterruptedException;

        @Override
        public abstract void close();

        /**
         * One update: write, then wait until all watchers saw it; their latencies from the write's
         * start go to {@code into} (and, if measured, {@code all}).
         */
        void update(int n, Latencies into, boolean measured) throws InterruptedException {
            Target t = new Target(nextVersion(), watchers);
            target = t;
            long wallStart = System.currentTimeMillis();
            long t0 = System.nanoTime();
            long written = write(n);
            if (written != t.version()) {
                throw new IllegalStateException(getClass().getSimpleName() + " wrote version " + written + ", expected " + t.version());
            }
            if (!t.all().await(WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("only " + (watchers - t.all().getCount()) + " of " + watchers + " "
                        + getClass().getSimpleName() + " watchers saw version " + t.version() + " within " + WAIT);
            }
            long[] samples = new long[watchers];
            for (int w = 0; w < watchers; w++) {
                samples[w] = Math.max(0, t.arrivals().get(w) - t0);
                into.add(samples[w]);
                if (measured) {
                    all.add(samples[w]);
                }
            }
            if (measured) {
                updates.add(samples);
                windows.add(new long[] {wallStart, System.currentTimeMillis()});
            }
        }
    }

    /** What the server counted for one side, per update: the writer's requests, and each watcher's until seen and after. */
    private record Counted(double perPut, double perReader, double followUpsPerReader) {
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "put starts -> each of " + System.getProperty(READERS_PROPERTY, READERS_DEFAULT) + " watchers' listener (ConfigStore.put + LiveConfig, "
                + (shared() ? "one shared client" : "each its own client") + "); peer: setData + CuratorCache; updates of both sides alternate";
    }

    static List<Integer> readers() {
        List<Integer> out = new ArrayList<>();
        for (String s : System.getProperty(READERS_PROPERTY, READERS_DEFAULT).split(",")) {
            int n;
            try {
                n = Integer.parseInt(s.trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(READERS_PROPERTY + " must be a comma-separated list of reader counts, got '"
                        + System.getProperty(READERS_PROPERTY) + "'", e);
            }
            if (n < 1) {
                throw new IllegalArgumentException(READERS_PROPERTY + ": a reader count must be >= 1, got " + n);
            }
            out.add(n);
        }
        return out;
    }

    static boolean shared() {
        return Boolean.getBoolean(SHARED_PROPERTY);
    }

    @Override
    public List<Figure> run(BenchContext ctx) throws InterruptedException {
        List<Figure> figures = new ArrayList<>();
        for (int n : readers()) {
            figures.addAll(runAt(ctx, n, shared()));
        }
        return figures;
    }

    private List<Figure> runAt(BenchContext ctx, int watchers, boolean shared) throws InterruptedException {
        int n = ctx.ops(Math.max(MIN_OPS, SAMPLES_PER_ROUND / watchers));
        String at = NAME + " " + watchers + (shared ? " (shared client)" : "");
        List<CoordClient> clients = connect(ctx, shared ? 1 : watchers);
        CoordClient writer = null;
        try {
            writer = ctx.newCoordClient();
            List<CoordClient> perWatcher = new ArrayList<>();
            for (int i = 0; i < watchers; i++) {
                perWatcher.add(clients.get(shared ? 0 : i));
            }
            try (Ours ours = new Ours(perWatcher, writer); Peer peer = new Peer(perWatcher, writer.curator());
                    ReportTimes reportTimes = Boolean.getBoolean(REPORT_TIMES_PROPERTY) ? new ReportTimes(ctx.newCoordClient()) : null) {
                ours.all = new Latencies(ctx.rounds() * n * watchers);
                peer.all = new Latencies(ctx.rounds() * n * watchers);
                Latencies warm = new Latencies(2 * n * watchers);
                for (int i = 0; i < n; i++) {
                    ours.update(i, warm, false);
                    peer.update(i, warm, false);
                }
                for (int round = 0; round < ctx.rounds(); round++) {
                    Latencies o = new Latencies(n * watchers);
                    Latencies p = new Latencies(n * watchers);
                    for (int i = 0; i < n; i++) {
                        // ABAB in one round, BABA in the next: neither side always goes first
                        if ((i + round) % 2 == 0) {
                            ours.update(i, o, true);
                            peer.update(i, p, true);
                        } else {
                            peer.update(i, p, true);
                            ours.update(i, o, true);
                        }
                    }
                    ctx.progress(String.format(Locale.ROOT, "  %s round %d: ours p50 %s p99 %s ms | peer p50 %s p99 %s ms | p99 ratio %.2f",
                            at, round + 1, Table.number(o.percentileMs(0.50)), Table.number(o.percentileMs(0.99)),
                            Table.number(p.percentileMs(0.50)), Table.number(p.percentileMs(0.99)),
                            o.percentileMs(0.99) / Math.max(1e-9, p.percentileMs(0.99))));
                }
                Latencies o = ours.all;
                Latencies p = peer.all;
                // The samples of one update are not independent: a stall of the machine (GC, another
                // process, a disk sync) delays all watchers of whichever update it hits. Say how
                // many updates each side's tail comes from, not only how many samples.
                ctx.progress(String.format(Locale.ROOT, "  %s: percentiles over %d samples (%d updates) per side; the p99 rests on the"
                                + " %d slowest samples, from %d updates (ours) and %d updates (peer)", at, o.count(), ours.updates.size(),
                        o.count() - (int) Math.ceil(0.99 * o.count()) + 1, ours.updatesAtOrAbove(o.percentileMs(0.99)),
                        peer.updatesAtOrAbove(p.percentileMs(0.99))));
                if (reportTimes != null) {
                    ctx.progress(reportTimes.overlap(at, "ours", ours, o.percentileMs(0.99)));
                    ctx.progress(reportTimes.overlap(at, "peer", peer, p.percentileMs(0.99)));
                }
                double[] ci = ratioInterval(ours.updates, peer.updates, 0.99);
                ctx.progress(String.format(Locale.ROOT, "  %s: p50 ratio %.2f, p99 ratio ours/peer %.2f, 90%% interval %.2f .. %.2f"
                                + " (bootstrap over update pairs, %d resamples)", at, o.percentileMs(0.50) / p.percentileMs(0.50),
                        o.percentileMs(0.99) / p.percentileMs(0.99), ci[0], ci[1], BOOTSTRAP));
                ServerCounters server = new ServerCounters(ctx.connectString());
                long writerSession = ServerCounters.session(writer.curator());
                List<Long> sessions = clients.stream().map(c -> ServerCounters.session(c.curator())).toList();
                Counted oc = count(ours, server, writerSession, sessions);
                Counted pc = count(peer, server, writerSession, sessions);
                ctx.progress(String.format(Locale.ROOT, "  %s: server requests per put %.1f (ours) %.1f (peer); per watcher per change"
                                + " %.2f (ours) %.2f (peer), and after it %.2f (ours: its report)", at, oc.perPut(), pc.perPut(),
                        oc.perReader(), pc.perReader(), oc.followUpsPerReader()));
                String m = "latency." + watchers + (shared ? ".shared" : "");
                String r = watchers + (shared ? ".shared" : "");
                return List.of(
                        Figure.lower(NAME, m + ".p50", "ms", o.percentileMs(0.50), p.percentileMs(0.50), PEER),
                        Figure.lower(NAME, m + ".p99", "ms", o.percentileMs(0.99), p.percentileMs(0.99), PEER),
                        Figure.lower(NAME, m + ".max", "ms", o.percentileMs(1.0), p.percentileMs(1.0), PEER),
                        Figure.higher(NAME, "samples." + r, "samples", o.count(), (double) p.count(), PEER),
                        Figure.lower(NAME, m + ".p99.ratio.ci90.low", "ratio", ci[0], null, null),
                        Figure.lower(NAME, m + ".p99.ratio.ci90.high", "ratio", ci[1], null, null),
                        Figure.lower(NAME, "requests.put." + r, "requests", oc.perPut(), pc.perPut(), PEER),
                        Figure.lower(NAME, "requests.watcher." + r, "requests", oc.perReader(), pc.perReader(), PEER),
                        Figure.lower(NAME, "requests.watcher.followUps." + r, "requests", oc.followUpsPerReader(), null, null));
            }
        } finally {
            if (writer != null) {
                writer.close();
            }
            closeAll(clients);
        }
    }

    /**
     * {@value #COUNTED} updates of {@code side}, one at a time, each between quiet readings: the
     * writer's requests, the watchers' until all saw it, and theirs in the {@link #FOLLOW_UPS} after.
     */
    private static Counted count(Side side, ServerCounters server, long writer, List<Long> watchers) throws InterruptedException {
        long put = 0;
        long seen = 0;
        long after = 0;
        Latencies ignored = new Latencies(COUNTED * side.watchers);
        for (int i = 0; i < COUNTED; i++) {
            ServerCounters.Reading before = server.settled();
            side.update(i, ignored, false);
            ServerCounters.Reading allSaw = server.read();
            Thread.sleep(FOLLOW_UPS.toMillis());
            ServerCounters.Reading end = server.settled();
            put += end.requests(before, writer);
            seen += allSaw.requests(before, watchers);
            after += end.requests(allSaw, watchers);
        }
        double changes = (double) COUNTED * side.watchers;
        return new Counted(put / (double) COUNTED, seen / changes, after / changes);
    }

    /** {@code count} new clients, connected {@value #CONNECTORS} at a time. */
    private static List<CoordClient> connect(BenchContext ctx, int count) throws InterruptedException {
        ExecutorService pool = Executors.newFixedThreadPool(Math.min(CONNECTORS, count));
        try {
            List<Future<CoordClient>> futures = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                futures.add(pool.submit(ctx::newCoordClient));
            }
            List<CoordClient> ordered = new ArrayList<>();
            RuntimeException failed = null;
            for (Future<CoordClient> f : futures) {
                try {
                    ordered.add(f.get());
                } catch (ExecutionException e) {
                    failed = failed != null ? failed : new IllegalStateException("a watcher's client did not connect: " + e.getCause(), e.getCause());
                }
            }
            if (failed != null) {
                closeAll(ordered);
                throw failed;
            }
            return ordered;
        } finally {
            pool.shutdownNow();
        }
    }

    /** Closes the clients, {@value #CONNECTORS} at a time (one after the other, 2,000 would take minutes). */
    private static void closeAll(List<CoordClient> clients) throws InterruptedException {
        ExecutorService pool = Executors.newFixedThreadPool(CONNECTORS);
        try {
            clients.forEach(c -> pool.execute(c::close));
        } finally {
            pool.shutdown();
            if (!pool.awaitTermination(WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                pool.shutdownNow();
            }
        }
    }

    /**
     * A 90% interval for the ratio of the sides' {@code q}-quantiles, by bootstrap: the update
     * pairs (update i of ours and of the peer, run back to back under the same conditions) are
     * drawn with replacement, each with all its samples, because the samples of one update are
     * not independent of each other (a stall delays them all) while the updates nearly are.
     */
    static double[] ratioInterval(List<long[]> ours, List<long[]> peer, double q) {
        int m = ours.size();
        int per = ours.get(0).length;
        long[] a = new long[m * per];
        long[] b = new long[m * per];
        int rank = Math.max(0, (int) Math.ceil(q * a.length) - 1);
        Random random = new Random(42); // a fixed seed: the same data gives the same interval
        double[] ratios = new double[BOOTSTRAP];
        for (int it = 0; it < BOOTSTRAP; it++) {
            for (int k = 0; k < m; k++) {
                int j = random.nextInt(m);
                System.arraycopy(ours.get(j), 0, a, k * per, per);
                System.arraycopy(peer.get(j), 0, b, k * per, per);
            }
            Arrays.sort(a);
            Arrays.sort(b);
            ratios[it] = a[rank] / (double) Math.max(1, b[rank]);
        }
        Arrays.sort(ratios);
        return new double[] {ratios[(int) (0.05 * BOOTSTRAP)], ratios[(int) Math.ceil(0.95 * BOOTSTRAP) - 1]};
    }

    /** The diagnostic of {@link #REPORT_TIMES_PROPERTY}: the server's mtime of every report write, from a client of its own. */
    private static final class ReportTimes implements AutoCloseable {
        private final CoordClient client;
        private final CuratorCache cache;
        private final Queue<Long> mtimes = new ConcurrentLinkedQueue<>();

        ReportTimes(CoordClient client) {
            this.client = client;
            this.cache = CuratorCache.build(client.curator(), REPORTS_PATH);
            cache.listenable().addListener(CuratorCacheListener.builder()
                    .forCreates(node -> mtimes.add(node.getStat().getMtime()))
                    .forChanges((before, after) -> mtimes.add(after.getStat().getMtime()))
                    .build());
            cache.start();
        }

        /** Report writes timestamped within each of {@code side}'s measured updates: mean, max, and within those at or above the p99. */
        String overlap(String at, String name, Side side, double p99Ms) {
            long[] times = mtimes.stream().mapToLong(Long::longValue).toArray();
            long total = 0;
            long max = 0;
            long tail = 0;
            long tailUpdates = 0;
            long tailMs = 0;
            for (int i = 0; i < side.windows.size(); i++) {
                long[] w = side.windows.get(i);
                long in = countWithin(times, w[0], w[1]);
                total += in;
                max = Math.max(max, in);
                if (Arrays.stream(side.updates.get(i)).max().orElse(0) / 1e6 >= p99Ms) {
                    tail += in;
                    tailUpdates++;
                    tailMs += w[1] - w[0];
                }
            }
            return String.format(Locale.ROOT, "  %s: report writes timestamped within a %s update: mean %.1f, max %d; within its %d"
                    + " update(s) at or above the p99 (lasting %.0f ms on average): mean %.1f (%d report writes seen in all)", at, name,
                    total / (double) Math.max(1, side.windows.size()), max, tailUpdates, tailMs / (double) Math.max(1, tailUpdates),
                    tail / (double) Math.max(1, tailUpdates), times.length);
        }

        private static long countWithin(long[] times, long from, long to) {
            return Arrays.stream(times).filter(t -> t >= from && t <= to).count();
        }

        @Override
        public void close() {
            cache.close();
            client.close();
        }
    }

    /** Ours: ConfigStore.put and one LiveConfig reader per watcher client. */
    private static final class Ours extends Side {
        private final ConfigKey<Payload> key = ConfigKey.of("bench", "propagation", Payload.class);
        private final ConfigStore store;
        private final List<LiveConfig<Payload>> readers = new ArrayList<>();
        private long version;

        Ours(List<CoordClient> clients, CoordClient writer) throws InterruptedException {
            super(clients.size());
            store = ConfigStore.open(writer, ConfigOptions.defaults());
            store.createIfAbsent(key, payload(0));
            try {
                for (int i = 0; i < watchers; i++) {
                    int watcher = i;
                    LiveConfig<Payload> reader = LiveConfig.watch(clients.get(i), key, ConfigOptions.builder().instanceId("bench-" + i)
                            .reportApplied(!Boolean.getBoolean("bench.noReports")).build());
                    readers.add(reader);
                    reader.addListener(new ConfigListener<>() {
                        @Override
                        public void onChange(ConfigChange<Payload> change) {
                            target.saw(watcher, change.version());
                        }
                    }, Runnable::run);
                }
                for (LiveConfig<Payload> reader : readers) {
                    reader.awaitInitialized(WAIT);
                    version = Math.max(version, reader.current().version());
                }
            } catch (RuntimeException | InterruptedException e) {
                close();
                throw e;
            }
        }

        @Override
        long nextVersion() {
            return version + 1;
        }

        @Override
        long write(int n) throws InterruptedException {
            version = store.put(key, payload(n + 1));
            return version;
        }

        @Override
        public void close() {
            readers.forEach(LiveConfig::close);
        }
    }

    /** The peer: setData with the expected version, and one CuratorCache per watcher client; the listener decodes the value. */
    private static final class Peer extends Side {
        private final CuratorFramework writer;
        private final List<CuratorCache> caches = new ArrayList<>();
        private final AtomicLong decoded = new AtomicLong();
        private int version;

        Peer(List<CoordClient> clients, CuratorFramework writer) throws InterruptedException {
            super(clients.size());
            this.writer = writer;
            try {
                try {
                    writer.create().creatingParentsIfNeeded().forPath(PEER_PATH, bytes(payload(0)));
                } catch (KeeperException.NodeExistsException e) {
                    // from an earlier run on the same data directory: go on from its version
                }
                version = writer.checkExists().forPath(PEER_PATH).getVersion();
            } catch (InterruptedException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException("could not create " + PEER_PATH, e);
            }
            CountDownLatch primed = new CountDownLatch(watchers);
            for (int i = 0; i < watchers; i++) {
                int watcher = i;
                CuratorCache cache = CuratorCache.build(clients.get(i).curator(), PEER_PATH, CuratorCache.Options.SINGLE_NODE_CACHE);
                cache.listenable().addListener(CuratorCacheListener.builder()
                        .forChanges((before, after) -> {
                            decode(after.getData());
                            target.saw(watcher, after.getStat().getVersion());
                        })
                        .forInitialized(primed::countDown)
                        .build());
                caches.add(cache);
                cache.start();
            }
            if (!primed.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                close();
                throw new IllegalStateException("CuratorCaches not initialized within " + WAIT);
            }
        }

        /** What a typed-config listener does with the bytes (LiveConfig does the same before its listener). */
        private void decode(byte[] data) {
            try {
                decoded.addAndGet(JSON.readValue(data, Payload.class).n());
            } catch (IOException e) {
                throw new IllegalStateException("the peer's value does not decode: " + e, e);
            }
        }

        @Override
        long nextVersion() {
            return version + 1L;
        }

        @Override
        long write(int n) throws InterruptedException {
            try {
                version = writer.setData().withVersion(version).forPath(PEER_PATH, bytes(payload(n + 1))).getVersion();
                return version;
            } catch (InterruptedException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException("peer setData of " + PEER_PATH + " failed", e);
            }
        }

        @Override
        public void close() {
            caches.forEach(CuratorCache::close);
        }
    }

    private static Payload payload(int n) {
        return new Payload(n, "x".repeat(100));
    }

    private static byte[] bytes(Payload p) {
        return ("{\"n\":" + p.n() + ",\"pad\":\"" + p.pad() + "\"}").getBytes(StandardCharsets.UTF_8);
    }
}
