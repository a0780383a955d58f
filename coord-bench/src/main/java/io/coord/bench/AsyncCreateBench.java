package io.coord.bench;

import io.coord.CoordClient;
import io.coord.CoordPath;
import io.coord.bench.BenchContext.Paired;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

/**
 * {@code limits.asyncCreate}: pipelined asynchronous creates, from one client and from four, each
 * client keeping at most {@value #WINDOW} creates in flight. The server batches the log syncs of
 * concurrent writes, so this is the write ceiling of the server, far above the synchronous rate.
 *
 * <p>Ours validates each path as a {@link CoordPath}, checks the value size and creates through
 * Curator's {@code inBackground} on a {@link CoordClient}; the peer uses the raw ZooKeeper
 * asynchronous {@code create}. Every round creates its nodes under a fresh parent; nothing is
 * deleted until the embedded server is discarded, so rounds do not pay for each other's deletes.
 */
final class AsyncCreateBench implements Benchmark {
    static final String NAME = "limits.asyncCreate";
    static final int DEFAULT_OPS = 4000;
    static final int WINDOW = 1000;
    static final int CLIENTS = 4;
    private static final long ROUND_BUDGET_MS = 120_000;
    private static final byte[] VALUE = new byte[100];
    private static final String ROOT = "/bench/asyncCreate";

    /** One side's way of creating children of {@code parent}: set up once per round, outside the timing. */
    @FunctionalInterface
    private interface AsyncCreates {
        Issuer under(String parent);
    }

    /** Starts one asynchronous create of {@code name} from client {@code client}; {@code onResult} gets the result code. */
    @FunctionalInterface
    private interface Issuer {
        void start(int client, String name, IntConsumer onResult) throws InterruptedException;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "pipelined async creates (100-byte value, window " + WINDOW + " per client) from 1 and "
                + CLIENTS + " clients; peer: raw ZooKeeper async API";
    }

    @Override
    public List<Figure> run(BenchContext ctx) throws InterruptedException {
        int n = ctx.ops(DEFAULT_OPS);
        List<CoordClient> ours = new ArrayList<>();
        List<ZooKeeper> peers = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(CLIENTS, r -> {
            Thread t = new Thread(r, "bench-async-issuer");
            t.setDaemon(true);
            return t;
        });
        try {
            for (int i = 0; i < CLIENTS; i++) {
                ours.add(ctx.newCoordClient());
                peers.add(ctx.newZooKeeper());
            }
            ZooKeeper setup = peers.get(0);
            Nodes.ensure(setup, ROOT);
            List<EscapeHatch> hatches = ours.stream().map(EscapeHatch::new).toList();
            AsyncCreates oursCreate = parentPath -> {
                // as a recipe would: its parent validated once, each child name on every create
                CoordPath parent = CoordPath.of(parentPath);
                return (client, name, onResult) -> {
                    CoordPath path = parent.child(name);
                    EscapeHatch hatch = hatches.get(client);
                    hatch.checkSize(path, VALUE.length);
                    hatch.call(path, () -> hatch.curator().create()
                            .inBackground((curator, event) -> onResult.accept(event.getResultCode()))
                            .forPath(path.value(), VALUE));
                };
            };
            AsyncCreates peerCreate = parent -> (client, name, onResult) -> peers.get(client).create(parent + "/" + name, VALUE,
                    ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT, (rc, path, c, created) -> onResult.accept(rc), null);

            List<Figure> figures = new ArrayList<>();
            for (int clients : new int[] {1, CLIENTS}) {
                Paired<RoundResult> r = ctx.alternate(
                        round -> pipelined(pool, setup, parent("ours", clients, round), clients, n, oursCreate),
                        round -> pipelined(pool, setup, parent("peer", clients, round), clients, n, peerCreate));
                figures.add(Figures.rate(NAME, clients == 1 ? "throughput.1client" : "throughput." + clients + "clients",
                        "creates/s", r, Figures.RAW_ZOOKEEPER));
            }
            return figures;
        } finally {
            pool.shutdownNow();
            pool.awaitTermination(10, TimeUnit.SECONDS);
            ours.forEach(CoordClient::close);
            for (ZooKeeper zk : peers) {
                zk.close();
            }
        }
    }

    private static String parent(String side, int clients, int round) {
        return ROOT + "/" + side + "-c" + clients + "-" + (round < 0 ? "warmup" : "r" + round);
    }

    /** One round: {@code n} creates split over {@code clients} issuers, timed from release to last answer. */
    private static RoundResult pipelined(ExecutorService pool, ZooKeeper setup, String parent, int clients, int n, AsyncCreates creates)
            throws InterruptedException {
        Nodes.ensure(setup, parent);
        Issuer create = creates.under(parent);
        CountDownLatch gate = new CountDownLatch(1);
        CountDownLatch answered = new CountDownLatch(n);
        AtomicInteger firstError = new AtomicInteger();
        List<Future<?>> issuers = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            int client = c;
            int share = n / clients + (c < n % clients ? 1 : 0);
            issuers.add(pool.submit(() -> {
                gate.await();
                Semaphore window = new Semaphore(WINDOW);
                for (int i = 0; i < share; i++) {
                    if (!window.tryAcquire(ROUND_BUDGET_MS, TimeUnit.MILLISECONDS)) {
                        throw new IllegalStateException("no create answered within " + ROUND_BUDGET_MS + " ms under " + parent);
                    }
                    int rc = firstError.get();
                    if (rc != 0) {
                        throw new IllegalStateException("create under " + parent + " failed: " + KeeperException.Code.get(rc));
                    }
                    create.start(client, "n-" + client + "-" + i, code -> {
                        if (code != 0) {
                            firstError.compareAndSet(0, code);
                        }
                        window.release();
                        answered.countDown();
                    });
                }
                return null;
            }));
        }
        long start = System.nanoTime();
        gate.countDown();
        long deadline = start + TimeUnit.MILLISECONDS.toNanos(ROUND_BUDGET_MS);
        for (Future<?> issuer : issuers) {
            try {
                issuer.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (ExecutionException e) {
                throw new IllegalStateException("async creates under " + parent + " failed: " + e.getCause().getMessage(), e.getCause());
            } catch (TimeoutException e) {
                throw new IllegalStateException("async creates under " + parent + " were not all issued within " + ROUND_BUDGET_MS + " ms");
            }
        }
        if (!answered.await(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
            throw new IllegalStateException("async creates under " + parent + " were not all answered within " + ROUND_BUDGET_MS + " ms");
        }
        long elapsed = System.nanoTime() - start;
        int rc = firstError.get();
        if (rc != 0) {
            throw new IllegalStateException("create under " + parent + " failed: " + KeeperException.Code.get(rc));
        }
        return RoundResult.of(n, elapsed, null);
    }
}
