package io.coord.bench;

import io.coord.CoordClient;
import io.coord.naming.Announcement;
import io.coord.naming.Discovery;
import io.coord.naming.Endpoint;
import io.coord.naming.Resolver;
import io.coord.naming.Strategy;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.x.discovery.ServiceDiscovery;
import org.apache.curator.x.discovery.ServiceDiscoveryBuilder;
import org.apache.curator.x.discovery.ServiceInstance;
import org.apache.curator.x.discovery.ServiceProvider;
import org.apache.curator.x.discovery.strategies.RoundRobinStrategy;

/**
 * {@code discovery.scale}: service discovery with N registered instances, each its own client
 * and session, and {@value #RESOLVERS} resolvers, each its own client too, as a new user would run
 * them, for N in {@value #SIZES_DEFAULT} ({@value #SIZES_PROPERTY} overrides; {@code ./coord bench
 * --scale discovery} runs 10, 100 and 1 000). Per round and side:
 * <ul>
 *   <li>propagation: {@code ops} times one more instance registers (a probe on its own client) and
 *       the time from the call until every resolver lists it is taken (each resolver's cache polled
 *       every {@value #POLL_MICROS} µs, both sides alike); the probe then leaves, untimed;</li>
 *   <li>resolve: {@value #RESOLVES} round-robin resolves from one resolver's cache, the mean.</li>
 * </ul>
 * Ours: coord-naming's {@link Discovery} ({@code register}, and a {@link Resolver} per resolver);
 * peer: curator-x-discovery, a {@link ServiceDiscovery} registering each instance and a
 * {@link ServiceProvider} (its {@code ServiceCache}) per resolver. One side's clients at a time.
 */
final class DiscoveryScaleBench implements Benchmark {
    static final String NAME = "discovery.scale";
    static final String SIZES_PROPERTY = "coord.bench.discovery.instances";
    static final String SIZES_DEFAULT = "10,100";
    static final int RESOLVERS = 8;
    static final int DEFAULT_OPS = 5;
    static final int RESOLVES = 20_000;
    static final long POLL_MICROS = 100;
    private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(60);
    private static final String PEER = "curator-x-discovery";
    private static final String PEER_BASE = "/bench/discovery-scale";
    private static final String PROBE = "probe";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "registration seen by " + RESOLVERS + " resolvers, and resolve(), with " + Sizes.of(SIZES_PROPERTY, SIZES_DEFAULT, 1)
                + " instances, each its own client; peer: curator-x-discovery ServiceDiscovery/ServiceProvider";
    }

    /** One round of one side: the propagation latencies, and the mean resolve in ns. */
    record Result(RoundResult propagation, double resolveNanos) {
        @Override
        public String toString() {
            return "propagation " + propagation + ", resolve " + Table.number(resolveNanos) + " ns";
        }
    }

    /** One side: N instances, the resolvers, and a probe that registers and leaves. */
    private interface Fleet extends AutoCloseable {
        void registerProbe() throws Exception;

        void unregisterProbe() throws Exception;

        /** Whether resolver {@code r} lists the probe. */
        boolean seesProbe(int r) throws Exception;

        /** Whether resolver {@code r} lists {@code n} instances. */
        boolean seesAll(int r, int n) throws Exception;

        boolean resolve() throws Exception;
    }

    @Override
    public List<Figure> run(BenchContext ctx) throws InterruptedException {
        int ops = ctx.ops(DEFAULT_OPS);
        List<Figure> figures = new ArrayList<>();
        for (int n : Sizes.of(SIZES_PROPERTY, SIZES_DEFAULT, 1)) {
            BenchContext.Paired<Result> r = ctx.<Fleet, Result>oneSideAtATime(() -> new Ours(ctx, n), () -> new Peer(ctx, n),
                    (fleet, i) -> round(fleet, n, ops));
            figures.add(Figure.lower(NAME, "propagation.p50.n" + n, "ms", Stats.median(r.ours(), x -> x.propagation().p50Ms()),
                    Stats.median(r.peer(), x -> x.propagation().p50Ms()), PEER));
            figures.add(Figure.lower(NAME, "propagation.p99.n" + n, "ms", Stats.median(r.ours(), x -> x.propagation().p99Ms()),
                    Stats.median(r.peer(), x -> x.propagation().p99Ms()), PEER));
            figures.add(Figure.lower(NAME, "resolve.mean.n" + n, "ns", Stats.median(r.ours(), Result::resolveNanos),
                    Stats.median(r.peer(), Result::resolveNanos), PEER));
        }
        return figures;
    }

    private static Result round(Fleet fleet, int n, int ops) throws InterruptedException {
        try {
            for (int r = 0; r < RESOLVERS; r++) {
                int resolver = r;
                awaitTrue("resolver " + r + " lists " + n + " instances", () -> fleet.seesAll(resolver, n));
            }
            Latencies latencies = new Latencies(ops);
            long timed = 0;
            for (int op = 0; op < ops; op++) {
                long start = System.nanoTime();
                fleet.registerProbe();
                long took = lastSeen(fleet, true) - start;
                latencies.add(took);
                timed += took;
                fleet.unregisterProbe();
                lastSeen(fleet, false);
            }
            long t0 = System.nanoTime();
            long ok = 0;
            for (int i = 0; i < RESOLVES; i++) {
                if (fleet.resolve()) {
                    ok++;
                }
            }
            double resolveNanos = (System.nanoTime() - t0) / (double) Math.max(1, ok);
            return new Result(RoundResult.of(ops, timed, latencies), resolveNanos);
        } catch (InterruptedException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(NAME + " with " + n + " instances failed: " + e, e);
        }
    }

    /** Polls the resolvers that have not seen the probe {@code present} (or gone) yet; returns when the last did. */
    private static long lastSeen(Fleet fleet, boolean present) throws Exception {
        long[] seenAt = new long[RESOLVERS];
        int remaining = RESOLVERS;
        long deadline = System.nanoTime() + WAIT_NANOS;
        while (remaining > 0) {
            for (int r = 0; r < RESOLVERS; r++) {
                if (seenAt[r] == 0 && fleet.seesProbe(r) == present) {
                    seenAt[r] = System.nanoTime();
                    remaining--;
                }
            }
            if (remaining > 0) {
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("not every resolver saw the probe " + (present ? "register" : "leave") + " within 60 s");
                }
                if (Thread.interrupted()) {
                    throw new InterruptedException("interrupted polling the resolvers");
                }
                LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(POLL_MICROS));
            }
        }
        long last = 0;
        for (long t : seenAt) {
            last = Math.max(last, t);
        }
        return last;
    }

    @FunctionalInterface
    private interface Check {
        boolean ok() throws Exception;
    }

    private static void awaitTrue(String what, Check check) throws Exception {
        long deadline = System.nanoTime() + WAIT_NANOS;
        while (!check.ok()) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("not within 60 s: " + what);
            }
            Thread.sleep(1);
        }
    }

    /** Closes what was opened, last first; the first failure is rethrown after all were tried. */
    private static void closeAll(Deque<AutoCloseable> opened) {
        RuntimeException failure = null;
        while (!opened.isEmpty()) {
            try {
                opened.pop().close();
            } catch (Exception e) {
                if (failure == null) {
                    failure = new IllegalStateException("closing the " + NAME + " fleet failed: " + e, e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    private static String service(int n) {
        return "bench.scale" + n;
    }

    private static final class Ours implements Fleet {
        private final Deque<AutoCloseable> opened = new ArrayDeque<>();
        private final List<Resolver> resolvers = new ArrayList<>();
        private final Discovery prober;
        private final String service;
        private Announcement probe;

        Ours(BenchContext ctx, int n) throws InterruptedException {
            this.service = service(n);
            try {
                for (int i = 0; i < n; i++) {
                    discovery(ctx).register(Endpoint.builder(service, "i-" + i).address("10.0." + i / 250 + "." + i % 250).port(8080).build());
                }
                for (int r = 0; r < RESOLVERS; r++) {
                    Resolver resolver = discovery(ctx).resolver(service, Strategy.ROUND_ROBIN);
                    opened.push(resolver);
                    resolvers.add(resolver);
                }
                prober = discovery(ctx);
            } catch (InterruptedException | RuntimeException e) {
                closeAll(opened);
                throw e;
            }
        }

        private Discovery discovery(BenchContext ctx) throws InterruptedException {
            CoordClient client = ctx.newCoordClient();
            opened.push(client);
            Discovery d = Discovery.open(client);
            opened.push(d);
            return d;
        }

        @Override
        public void registerProbe() throws InterruptedException {
            probe = prober.register(Endpoint.builder(service, PROBE).address("10.1.0.1").port(8080).build());
        }

        @Override
        public void unregisterProbe() {
            probe.close();
        }

        @Override
        public boolean seesProbe(int r) {
            return resolvers.get(r).all().stream().anyMatch(e -> e.id().equals(PROBE));
        }

        @Override
        public boolean seesAll(int r, int n) {
            return resolvers.get(r).all().size() == n;
        }

        @Override
        public boolean resolve() {
            return resolvers.get(0).resolve().isPresent();
        }

        @Override
        public void close() {
            closeAll(opened);
        }
    }

    private static final class Peer implements Fleet {
        private final Deque<AutoCloseable> opened = new ArrayDeque<>();
        private final List<ServiceProvider<Object>> providers = new ArrayList<>();
        private final ServiceDiscovery<Object> prober;
        private final ServiceInstance<Object> probe;

        Peer(BenchContext ctx, int n) throws InterruptedException {
            String service = service(n);
            try {
                for (int i = 0; i < n; i++) {
                    discovery(ctx, instance(service, "i-" + i, "10.0." + i / 250 + "." + i % 250));
                }
                for (int r = 0; r < RESOLVERS; r++) {
                    ServiceProvider<Object> provider = discovery(ctx, null).serviceProviderBuilder().serviceName(service)
                            .providerStrategy(new RoundRobinStrategy<>()).build();
                    provider.start();
                    opened.push(provider);
                    providers.add(provider);
                }
                prober = discovery(ctx, null);
                probe = instance(service, PROBE, "10.1.0.1");
            } catch (InterruptedException | RuntimeException e) {
                closeAll(opened);
                throw e;
            } catch (Exception e) {
                closeAll(opened);
                throw new IllegalStateException("curator-x-discovery setup failed: " + e, e);
            }
        }

        private static ServiceInstance<Object> instance(String service, String id, String address) throws Exception {
            return ServiceInstance.<Object>builder().name(service).id(id).address(address).port(8080).build();
        }

        /** A client and a started ServiceDiscovery on it, registering {@code self} unless null. */
        private ServiceDiscovery<Object> discovery(BenchContext ctx, ServiceInstance<Object> self) throws Exception {
            CuratorFramework client = LockBench.newCurator(ctx);
            opened.push(client);
            ServiceDiscoveryBuilder<Object> b = ServiceDiscoveryBuilder.builder(Object.class).client(client).basePath(PEER_BASE);
            ServiceDiscovery<Object> d = (self == null ? b : b.thisInstance(self)).build();
            d.start();
            opened.push(d);
            return d;
        }

        @Override
        public void registerProbe() throws Exception {
            prober.registerService(probe);
        }

        @Override
        public void unregisterProbe() throws Exception {
            prober.unregisterService(probe);
        }

        @Override
        public boolean seesProbe(int r) throws Exception {
            return providers.get(r).getAllInstances().stream().anyMatch(i -> i.getId().equals(PROBE));
        }

        @Override
        public boolean seesAll(int r, int n) throws Exception {
            return providers.get(r).getAllInstances().size() == n;
        }

        @Override
        public boolean resolve() throws Exception {
            return providers.get(0).getInstance() != null;
        }

        @Override
        public void close() {
            closeAll(opened);
        }
    }
}
