package io.coord.bench;

import io.coord.Codec;
import io.coord.CoordClient;
import io.coord.CoordSettings;
import io.coord.queue.QueueOptions;
import io.coord.queue.TaskClaim;
import io.coord.queue.TaskQueue;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code queue.depth}: one claim-and-complete at depth 1 000, 100 000 and 1 000 000 pending tasks
 * of a partitioned queue ({@value #PARTITIONS} partitions at every depth, so only the depth
 * differs), same server, same run. The peer of each figure is the same measurement at the
 * smallest depth: the target is claim+complete at depth 1 000 000 within 1.5 x its time at 1 000.
 * <ul>
 *   <li>fill: batches of 200 ({@code enqueueAll}) from 4 producer threads, untimed;
 *   <li>a fresh consumer (own client) opens the queue and loads its index (every partition's
 *       listing and a read of every task): timed as {@code indexLoad}, and (up to depth
 *       {@value #MAX_HEAP_DEPTH}) its heap measured
 *       (used heap after GC, before and after) as {@code indexBytesPer100k};
 *   <li>then {@code ops} (default {@value #DEFAULT_SAMPLES}) claim+complete pairs one after
 *       another: latency p50/p99 and throughput.
 * </ul>
 * Depths: {@code -Dcoord.bench.queueDepths=1000,100000,1000000} (the default). Writes a plot of
 * the latencies by depth to {@code coord-bench/target/bench/queue-depth.svg} (run by {@code ./coord bench}).
 */
final class QueueDepthBench implements Benchmark {
    static final String NAME = "queue.depth";
    static final int PARTITIONS = 64;
    static final int DEFAULT_SAMPLES = 500;
    private static final int BATCH = 200;
    private final AtomicInteger runs = new AtomicInteger();
    private final AtomicInteger lostClaims = new AtomicInteger();
    /** Deepest queue whose consumer heap is measured (see {@link #atDepth}). */
    static final int MAX_HEAP_DEPTH = 100_000;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "partitioned task queue: claim+complete latency and throughput at depth 1k, 100k, 1M; index memory per 100k tasks";
    }

    /** What one depth measured. */
    record AtDepth(int depth, double p50Ms, double p99Ms, double perSecond, double indexLoadMs, double bytesPer100k) {
    }

    @Override
    public List<Figure> run(BenchContext ctx) throws InterruptedException {
        int samples = ctx.ops(DEFAULT_SAMPLES);
        int[] depths = depths(samples);
        List<AtDepth> results = new ArrayList<>();
        for (int depth : depths) {
            try {
                results.add(atDepth(ctx, depth, samples));
            } catch (InterruptedException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException(NAME + " at depth " + depth + " failed: " + e, e);
            }
            AtDepth r = results.get(results.size() - 1);
            ctx.progress(String.format(Locale.ROOT, "  %s depth %d: p50 %.2f ms, p99 %.2f ms, %.0f/s, index load %.0f ms,"
                    + " %.1f MB per 100k (NaN: not measured)", NAME, depth, r.p50Ms(), r.p99Ms(), r.perSecond(), r.indexLoadMs(),
                    r.bytesPer100k() / 1e6));
        }
        writePlot(results);
        AtDepth base = results.get(0);
        String baseName = "ours at depth " + base.depth();
        List<Figure> figures = new ArrayList<>();
        for (AtDepth r : results) {
            String d = ".d" + r.depth();
            Double p50 = r == base ? null : base.p50Ms();
            figures.add(Figure.lower(NAME, "claimComplete.p50" + d, "ms", r.p50Ms(), p50, p50 == null ? null : baseName));
            Double p99 = r == base ? null : base.p99Ms();
            figures.add(Figure.lower(NAME, "claimComplete.p99" + d, "ms", r.p99Ms(), p99, p99 == null ? null : baseName));
            Double tput = r == base ? null : base.perSecond();
            figures.add(Figure.higher(NAME, "claimComplete.throughput" + d, "tasks/s", r.perSecond(), tput,
                    tput == null ? null : baseName));
            figures.add(Figure.lower(NAME, "indexLoad" + d, "ms", r.indexLoadMs(), null, null));
        }
        AtDepth measured = results.stream().filter(r -> !Double.isNaN(r.bytesPer100k())).reduce((a, b) -> b).orElseThrow();
        figures.add(Figure.lower(NAME, "indexBytesPer100k.d" + measured.depth(), "bytes", measured.bytesPer100k(), null, null));
        figures.add(Figure.lower(NAME, "claimsLostToExpiry", "claims", lostClaims.get(), null, null));
        return figures;
    }

    private static int[] depths(int samples) {
        String spec = System.getProperty("coord.bench.queueDepths");
        if (spec == null) {
            // The smoke run (a handful of ops) keeps to small depths; a real run goes to a million.
            return samples < 50 ? new int[] {samples * 10, samples * 40} : new int[] {1_000, 100_000, 1_000_000};
        }
        return Arrays.stream(spec.split(",")).map(String::trim).mapToInt(Integer::parseInt).toArray();
    }

    private AtDepth atDepth(BenchContext ctx, int depth, int samples) throws Exception {
        String queueName = "bench_queue_depth_" + depth + "_" + runs.incrementAndGet() + "_" + System.nanoTime() % 100_000;
        QueueOptions options = QueueOptions.builder().partitions(PARTITIONS)
                .depthCap(Math.min(QueueOptions.MAX_DEPTH_CAP, Math.max(1_000, 2 * (depth + samples) / PARTITIONS + 1_000)))
                .build();
        fill(ctx, queueName, options, depth + samples);
        // The index's first read of a deep queue takes a while: the watch waits for it up to the connection timeout.
        try (CoordClient client = CoordClient.connect(CoordSettings.builder().connectString(ctx.connectString())
                .sessionTimeout(Duration.ofSeconds(30)).connectionTimeout(Duration.ofMinutes(5)).build())) {
            // Heap is measured up to depth 100 000 only: a full collection of a million-task index stalls
            // a loaded 2-core machine past the session timeout (seen: the claim then expired).
            boolean measureHeap = depth <= MAX_HEAP_DEPTH;
            long before = measureHeap ? usedHeapAfterGc() : 0;
            long loadStart = System.nanoTime();
            TaskQueue<Item> q = TaskQueue.open(client, queueName, Codec.json(Item.class), options);
            try {
                // The first claim starts every partition's index (listing + a read of every task).
                TaskClaim<Item> first = q.claim(Duration.ofMinutes(5)).orElseThrow();
                double loadMs = (System.nanoTime() - loadStart) / 1e6;
                long after = measureHeap ? usedHeapAfterGc() : 0;
                completeCounting(first);
                Latencies lat = new Latencies(samples);
                long start = System.nanoTime();
                for (int i = 1; i < samples; i++) {
                    long t0 = System.nanoTime();
                    TaskClaim<Item> c = q.claim(Duration.ofSeconds(60)).orElseThrow(
                            () -> new IllegalStateException("no task to claim at depth " + depth));
                    if (completeCounting(c)) {
                        lat.add(System.nanoTime() - t0);
                    }
                }
                double seconds = (System.nanoTime() - start) / 1e9;
                double perSecond = samples <= 1 ? 0 : (samples - 1) / seconds;
                double bytesPer100k = measureHeap ? Math.max(0, after - before) * 100_000.0 / (depth + samples) : Double.NaN;
                return new AtDepth(depth, lat.percentileMs(0.5), lat.percentileMs(0.99), perSecond, loadMs, bytesPer100k);
            } finally {
                q.close();
            }
        }
    }

    /** Completes {@code c}; false if its claim was lost first (a session expired under load): not a sample, and counted. */
    private boolean completeCounting(TaskClaim<Item> c) {
        try {
            c.complete();
            return true;
        } catch (io.coord.queue.ClaimLostException lost) {
            lostClaims.incrementAndGet();
            return false;
        }
    }

    /** {@code tasks} tasks in batches of {@value #BATCH}, 4 producer threads sharing one queue (round-robin over partitions). */
    private static void fill(BenchContext ctx, String queueName, QueueOptions options, int tasks) throws Exception {
        try (CoordClient producer = ctx.newCoordClient();
             TaskQueue<Item> q = TaskQueue.open(producer, queueName, Codec.json(Item.class), options)) {
            ExecutorService pool = Executors.newFixedThreadPool(4);
            try {
                AtomicInteger next = new AtomicInteger();
                List<Future<?>> fills = new ArrayList<>();
                for (int t = 0; t < 4; t++) {
                    fills.add(pool.submit(() -> {
                        for (int from = next.getAndAdd(BATCH); from < tasks; from = next.getAndAdd(BATCH)) {
                            List<Item> batch = new ArrayList<>(BATCH);
                            for (int i = from; i < Math.min(tasks, from + BATCH); i++) {
                                batch.add(new Item(i));
                            }
                            q.enqueueAll(batch);
                        }
                        return null;
                    }));
                }
                for (Future<?> f : fills) {
                    f.get();
                }
            } finally {
                pool.shutdownNow();
            }
        }
    }

    private static long usedHeapAfterGc() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(100); // let the collector finish; measurement, not synchronization
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /** The payload: what a user would enqueue. */
    record Item(int id) {
    }

    /** A small SVG: claim+complete p50 and p99 (ms) against depth (log scale). */
    private static void writePlot(List<AtDepth> results) {
        List<Plot.Series> series = List.of(
                new Plot.Series("p50", false, results.stream().map(r -> new double[] {r.depth(), r.p50Ms()}).toList()),
                new Plot.Series("p99", false, results.stream().map(r -> new double[] {r.depth(), r.p99Ms()}).toList()));
        String svg = Plot.svg("coord queue.depth: claim+complete latency by depth (" + PARTITIONS + " partitions)",
                "pending tasks", "ms", series, false);
        String home = System.getProperty("coord.home"); // set by ./coord; elsewhere (the smoke test) a temporary file
        Path out = home != null ? Path.of(home, "coord-bench", "target", "bench", "queue-depth.svg")
                : Path.of(System.getProperty("java.io.tmpdir"), "coord-bench-queue-depth.svg");
        Plot.write(out, svg);
    }
}
