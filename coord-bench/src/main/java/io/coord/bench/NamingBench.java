package io.coord.bench;

import io.coord.CoordClient;
import io.coord.naming.BlockIds;
import io.coord.naming.Discovery;
import io.coord.naming.Endpoint;
import io.coord.naming.IdOptions;
import io.coord.naming.Resolver;
import io.coord.naming.SequenceIds;
import io.coord.naming.Strategy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.atomic.AtomicValue;
import org.apache.curator.framework.recipes.atomic.DistributedAtomicLong;
import org.apache.curator.retry.RetryNTimes;
import org.apache.curator.x.discovery.ServiceDiscovery;
import org.apache.curator.x.discovery.ServiceDiscoveryBuilder;
import org.apache.curator.x.discovery.ServiceProvider;

/**
 * coord-naming against its plain-Curator peers:
 * <ul>
 *   <li>{@code naming.sequence}: {@link SequenceIds#next()} (one unconditional write per ID) against
 *       Curator's {@code DistributedAtomicLong.increment()} (read, then compare-and-set), from one
 *       client and from four contending clients; and {@link SequenceIds#nextAsync()} with
 *       {@value Sequence#IN_FLIGHT} calls in flight from one client against the same sync
 *       increments (issue 18: at least 10 times as many IDs per second);</li>
 *   <li>{@code naming.blocks}: {@link BlockIds#next()} from one client and thread (default options:
 *       blocks of 10 000, prefetched) against the same {@code DistributedAtomicLong} increments;</li>
 *   <li>{@code naming.resolve}: {@link Resolver#resolve()} from its cache against curator-x-discovery's
 *       {@code ServiceProvider.getInstance()} (also cached), round robin over five instances.</li>
 * </ul>
 */
final class NamingBench {
    static final String PEER_DAL = "curator-DistributedAtomicLong";
    static final String PEER_PROVIDER = "curator-ServiceProvider";

    private NamingBench() {
    }

    /** One Curator DistributedAtomicLong increment; returns whether it succeeded (under contention it may not). */
    private static boolean increment(DistributedAtomicLong counter) {
        try {
            AtomicValue<Long> v = counter.increment();
            return v.succeeded();
        } catch (Exception e) {
            throw new IllegalStateException("DistributedAtomicLong.increment failed: " + e, e);
        }
    }

    private static DistributedAtomicLong dal(CuratorFramework curator, String path) {
        return new DistributedAtomicLong(curator, path, new RetryNTimes(1000, 1));
    }

    static final class Sequence implements Benchmark {
        static final String NAME = "naming.sequence";
        static final int DEFAULT_OPS = 600;
        static final int CLIENTS = 4;
        static final int IN_FLIGHT = 64;
        /** Async IDs per round: this many times the peer's increments (the peer is that much slower). */
        static final int ASYNC_SCALE = 10;

        @Override
        public String name() {
            return NAME;
        }

        @Override
        public String description() {
            return "SequenceIds.next() per second, 1 and " + CLIENTS + " clients, and nextAsync() with " + IN_FLIGHT
                    + " in flight; peer: Curator DistributedAtomicLong.increment()";
        }

        @Override
        public List<Figure> run(BenchContext ctx) throws InterruptedException {
            int n = ctx.ops(DEFAULT_OPS);
            List<CoordClient> clients = new ArrayList<>();
            ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
            try {
                for (int i = 0; i < CLIENTS; i++) {
                    clients.add(ctx.newCoordClient());
                }
                List<SequenceIds> ours = clients.stream().map(c -> SequenceIds.open(c, "bench-seq")).toList();
                List<DistributedAtomicLong> peers = clients.stream().map(c -> dal(c.curator(), "/bench/naming/dal-seq")).toList();
                BenchContext.Paired<RoundResult> one = ctx.alternate(
                        round -> timed(n, () -> ours.get(0).next() > 0),
                        round -> timed(n, () -> increment(peers.get(0))));
                BenchContext.Paired<RoundResult> many = ctx.alternate(
                        round -> parallel(pool, n, i -> ours.get(i).next() > 0),
                        round -> parallel(pool, n, i -> increment(peers.get(i))));
                BenchContext.Paired<RoundResult> async = ctx.alternate(
                        round -> inFlight(ours.get(0), (long) n * ASYNC_SCALE, IN_FLIGHT),
                        round -> timed(n, () -> increment(peers.get(0))));
                return List.of(
                        Figures.rate(NAME, "throughput.1client", "ids/s", one, PEER_DAL),
                        Figures.rate(NAME, "throughput." + CLIENTS + "clients", "ids/s", many, PEER_DAL),
                        Figures.rate(NAME, "throughput.async" + IN_FLIGHT, "ids/s", async, PEER_DAL));
            } finally {
                pool.shutdownNow();
                pool.awaitTermination(10, TimeUnit.SECONDS);
                clients.forEach(CoordClient::close);
            }
        }

        /**
         * {@code n} {@code nextAsync()} calls from one thread with at most {@code window} in flight
         * (default executor, as a new user would); every ID must come back.
         */
        private static RoundResult inFlight(SequenceIds ids, long n, int window) throws InterruptedException {
            java.util.concurrent.Semaphore slots = new java.util.concurrent.Semaphore(window);
            java.util.concurrent.atomic.AtomicReference<Throwable> failed = new java.util.concurrent.atomic.AtomicReference<>();
            long start = System.nanoTime();
            for (long i = 0; i < n && failed.get() == null; i++) {
                if (!slots.tryAcquire(60, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("nextAsync: no answer within 60 s with " + window + " in flight");
                }
                ids.nextAsync().whenComplete((id, e) -> {
                    if (e != null) {
                        failed.compareAndSet(null, e);
                    }
                    slots.release();
                });
            }
            if (!slots.tryAcquire(window, 60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("nextAsync: the last calls did not complete within 60 s");
            }
            if (failed.get() != null) {
                throw new IllegalStateException("nextAsync failed: " + failed.get(), failed.get());
            }
            long elapsed = System.nanoTime() - start;
            return new RoundResult(elapsed <= 0 ? 0 : n / (elapsed / 1e9), 0, 0);
        }

        /** {@code n} operations per client on every client at once; only successful increments count. */
        private static RoundResult parallel(ExecutorService pool, int n, Op op) throws InterruptedException {
            long start = System.nanoTime();
            List<Future<Integer>> done = new ArrayList<>();
            for (int c = 0; c < CLIENTS; c++) {
                int client = c;
                done.add(pool.submit(() -> {
                    int ok = 0;
                    for (int i = 0; i < n; i++) {
                        if (op.run(client)) {
                            ok++;
                        }
                    }
                    return ok;
                }));
            }
            int total = 0;
            for (Future<Integer> f : done) {
                try {
                    total += f.get();
                } catch (java.util.concurrent.ExecutionException e) {
                    throw new IllegalStateException("a client failed: " + e.getCause(), e.getCause());
                }
            }
            return RoundResult.of(total, System.nanoTime() - start, null);
        }

        interface Op {
            boolean run(int client) throws Exception;
        }
    }

    static final class Blocks implements Benchmark {
        static final String NAME = "naming.blocks";
        static final int DEFAULT_OPS = 600;
        /** Block IDs per round: this many times the peer's increments (the peer is that much slower). */
        static final int SCALE = 20_000;

        @Override
        public String name() {
            return NAME;
        }

        @Override
        public String description() {
            return "BlockIds.next() per second from one client (blocks of " + IdOptions.DEFAULT_BLOCK_SIZE
                    + ", prefetched); peer: Curator DistributedAtomicLong.increment()";
        }

        @Override
        public List<Figure> run(BenchContext ctx) throws InterruptedException {
            int n = ctx.ops(DEFAULT_OPS);
            try (CoordClient client = ctx.newCoordClient(); BlockIds ids = BlockIds.open(client, "bench-blocks")) {
                DistributedAtomicLong peer = dal(client.curator(), "/bench/naming/dal-blocks");
                long[] sink = new long[1];
                BenchContext.Paired<RoundResult> r = ctx.alternate(
                        round -> timed((long) n * SCALE, () -> {
                            sink[0] += ids.next();
                            return true;
                        }),
                        round -> timed(n, () -> increment(peer)));
                if (sink[0] == 42) {
                    ctx.progress(""); // keeps the JIT from dropping the loop
                }
                return List.of(Figures.rate(NAME, "throughput.1client", "ids/s", r, PEER_DAL));
            }
        }
    }

    static final class Resolve implements Benchmark {
        static final String NAME = "naming.resolve";
        static final int DEFAULT_OPS = 200_000;
        static final String SERVICE = "bench.naming";

        @Override
        public String name() {
            return NAME;
        }

        @Override
        public String description() {
            return "Resolver.resolve() from its watched cache, round robin over 5 instances;"
                    + " peer: curator-x-discovery ServiceProvider.getInstance()";
        }

        @Override
        public List<Figure> run(BenchContext ctx) throws InterruptedException {
            int n = ctx.ops(DEFAULT_OPS);
            try (CoordClient client = ctx.newCoordClient(); Discovery discovery = Discovery.open(client)) {
                for (int i = 0; i < 5; i++) {
                    discovery.register(Endpoint.builder(SERVICE, "i-" + i).address("10.0.0." + i).port(8080).build());
                }
                try (Resolver resolver = discovery.resolver(SERVICE, Strategy.ROUND_ROBIN)) {
                    ServiceDiscovery<Object> plain = ServiceDiscoveryBuilder.builder(Object.class).client(client.curator())
                            .basePath("/services/naming/bench").build();
                    ServiceProvider<Object> provider = plain.serviceProviderBuilder().serviceName("_instances").build();
                    try {
                        plain.start();
                        provider.start();
                        awaitFive(resolver, provider);
                        BenchContext.Paired<RoundResult> r = ctx.alternate(
                                round -> timed(n, () -> resolver.resolve().isPresent()),
                                round -> timed(n, () -> provider.getInstance() != null));
                        return List.of(Figure.lower(NAME, "latency.mean", "ns",
                                Stats.median(r.ours(), RoundResult::opsPerSecond) == 0 ? 0 : 1e9 / Stats.median(r.ours(), RoundResult::opsPerSecond),
                                1e9 / Stats.median(r.peer(), RoundResult::opsPerSecond), PEER_PROVIDER));
                    } catch (InterruptedException e) {
                        throw e;
                    } catch (Exception e) {
                        throw new IllegalStateException("curator-x-discovery peer failed: " + e, e);
                    } finally {
                        closeQuietly(provider);
                        closeQuietly(plain);
                    }
                }
            }
        }

        private static void awaitFive(Resolver resolver, ServiceProvider<Object> provider) throws Exception {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (resolver.available().size() < 5 || provider.getAllInstances().size() < 5) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the caches did not see the 5 instances within 10 s");
                }
                Thread.sleep(10);
            }
        }

        private static void closeQuietly(AutoCloseable c) {
            try {
                c.close();
            } catch (Exception ignored) {
                // benchmark teardown
            }
        }
    }

    interface Call {
        boolean run() throws Exception;
    }

    /** {@code n} calls in a row; the rate counts successful ones only. */
    static RoundResult timed(long n, Call call) throws InterruptedException {
        long ok = 0;
        long start = System.nanoTime();
        try {
            for (long i = 0; i < n; i++) {
                if (call.run()) {
                    ok++;
                }
            }
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("benchmark call failed: " + e, e);
        }
        long elapsed = System.nanoTime() - start;
        return new RoundResult(elapsed <= 0 ? 0 : ok / (elapsed / 1e9), 0, 0);
    }
}
