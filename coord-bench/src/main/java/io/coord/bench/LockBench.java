package io.coord.bench;

import io.coord.CoordClient;
import io.coord.CoordPath;
import io.coord.lock.DistributedLock;
import io.coord.lock.LockLease;
import io.coord.lock.Locks;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.ExponentialBackoffRetry;

/**
 * The lock benchmarks: Coord's fair lock ({@link Locks#mutex}, a fenced {@link LockLease} with its
 * own loss signal) against Curator's {@link InterProcessMutex} on the same server in the same run.
 * Ours uses {@link CoordClient}s, the peer plain Curator clients with the same timeouts.
 * <ul>
 *   <li>{@code lock.uncontended}: one client, acquire + release, cycle after cycle;
 *   <li>{@code lock.contended}: 8 clients competing for one lock; handoffs per second, and the
 *       requests the server counted per handoff cycle (release, wake, the releaser queueing again);
 *   <li>{@code lock.handoff}: 8, 64 and 256 waiters, each its own client, queued behind a held
 *       lock and released in turn; the median time from a release to the next grant ({@link LockHandoffBench});
 *   <li>{@code lock.herd}: 32 queued waiters released one after the other; requests the server
 *       receives per handoff ({@link LockHerdBench});
 *   <li>{@code lock.guardedWrite}: a write fenced on the lease ({@code multi(check, setData)})
 *       against a plain {@code setData} of the same node (no peer recipe; the ratio is the cost of
 *       fencing in ZooKeeper).
 * </ul>
 */
final class LockBench {
    static final String PEER = "curator-InterProcessMutex";
    static final Duration WAIT = Duration.ofSeconds(60);

    private LockBench() {
    }

    static List<Benchmark> all() {
        return List.of(new Uncontended(), new Contended(), new LockHerdBench(), new LockHandoffBench(), new GuardedWrite());
    }

    /** A plain Curator client with the timeouts {@link BenchContext#newCoordClient()} uses. */
    static CuratorFramework newCurator(BenchContext ctx) throws InterruptedException {
        CuratorFramework c = CuratorFrameworkFactory.builder().connectString(ctx.connectString())
                .sessionTimeoutMs((int) BenchContext.SESSION_TIMEOUT.toMillis())
                .connectionTimeoutMs((int) BenchContext.CONNECT_TIMEOUT.toMillis())
                .retryPolicy(new ExponentialBackoffRetry(1000, 3)).build();
        c.start();
        if (!c.blockUntilConnected((int) BenchContext.CONNECT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
            c.close();
            throw new IllegalStateException("Curator client could not connect to " + ctx.connectString());
        }
        return c;
    }

    /** The peer's acquire; InterProcessMutex's acquire(time) reports a timeout as false. */
    static void acquirePeer(InterProcessMutex mutex) {
        try {
            if (!mutex.acquire(WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("InterProcessMutex not acquired within " + WAIT);
            }
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("InterProcessMutex acquire failed: " + e.getMessage(), e);
        }
    }

    static void releasePeer(InterProcessMutex mutex) {
        try {
            mutex.release();
        } catch (Exception e) {
            throw new IllegalStateException("InterProcessMutex release failed: " + e.getMessage(), e);
        }
    }

    /** {@code n} new Coord clients (added to {@code clients}, which the caller closes), a mutex of {@code path} on each. */
    static List<DistributedLock> ourLocks(BenchContext ctx, int n, String path, List<CoordClient> clients) throws InterruptedException {
        List<DistributedLock> locks = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            CoordClient c = ctx.newCoordClient();
            clients.add(c);
            locks.add(Locks.mutex(c, CoordPath.of(path)));
        }
        return locks;
    }

    /** {@code n} new Curator clients (added to {@code clients}, which the caller closes), an InterProcessMutex of {@code path} on each. */
    static List<InterProcessMutex> peerMutexes(BenchContext ctx, int n, String path, List<CuratorFramework> clients)
            throws InterruptedException {
        List<InterProcessMutex> mutexes = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            CuratorFramework f = newCurator(ctx);
            clients.add(f);
            mutexes.add(new InterProcessMutex(f, path));
        }
        return mutexes;
    }

    static void closeAll(List<CoordClient> coord, List<CuratorFramework> curator) {
        coord.forEach(CoordClient::close);
        curator.forEach(CuratorFramework::close);
    }

    /** {@code lock.uncontended}: the acquire + release cycle of one client on a free lock. */
    static final class Uncontended implements Benchmark {
        static final String NAME = "lock.uncontended";

        @Override
        public String name() {
            return NAME;
        }

        @Override
        public String description() {
            return "acquire+release of a free lock, one client; peer: Curator InterProcessMutex";
        }

        @Override
        public List<Figure> run(BenchContext ctx) throws InterruptedException {
            int n = ctx.ops(500);
            try (CoordClient client = ctx.newCoordClient()) {
                CuratorFramework curator = newCurator(ctx);
                try {
                    DistributedLock lock = Locks.mutex(client, CoordPath.of("/bench/lock/uncontended/ours"));
                    InterProcessMutex mutex = new InterProcessMutex(curator, "/bench/lock/uncontended/peer");
                    BenchContext.Paired<RoundResult> r = ctx.alternate(round -> {
                        Latencies l = new Latencies(n);
                        long start = System.nanoTime();
                        for (int i = 0; i < n; i++) {
                            long t0 = System.nanoTime();
                            lock.acquire(WAIT).close();
                            l.add(System.nanoTime() - t0);
                        }
                        return RoundResult.of(n, System.nanoTime() - start, l);
                    }, round -> {
                        Latencies l = new Latencies(n);
                        long start = System.nanoTime();
                        for (int i = 0; i < n; i++) {
                            long t0 = System.nanoTime();
                            acquirePeer(mutex);
                            releasePeer(mutex);
                            l.add(System.nanoTime() - t0);
                        }
                        return RoundResult.of(n, System.nanoTime() - start, l);
                    });
                    return List.of(
                            Figures.p50(NAME, "cycle.p50", r, PEER),
                            Figures.p99(NAME, "cycle.p99", r, PEER),
                            Figures.rate(NAME, "throughput", "cycles/s", r, PEER));
                } finally {
                    curator.close();
                }
            }
        }
    }

    /** {@code lock.contended}: 8 clients take turns on one lock as fast as they can. */
    static final class Contended implements Benchmark {
        static final String NAME = "lock.contended";
        static final int CLIENTS = 8;

        @Override
        public String name() {
            return NAME;
        }

        @Override
        public String description() {
            return CLIENTS + " clients competing for one lock, handoffs/s; peer: Curator InterProcessMutex";
        }

        @Override
        public List<Figure> run(BenchContext ctx) throws InterruptedException {
            int perClient = Math.max(1, ctx.ops(640) / CLIENTS);
            List<CoordClient> coord = new ArrayList<>();
            List<CuratorFramework> curator = new ArrayList<>();
            ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
            try {
                List<DistributedLock> ours = new ArrayList<>();
                List<InterProcessMutex> peer = new ArrayList<>();
                for (int i = 0; i < CLIENTS; i++) {
                    CoordClient c = ctx.newCoordClient();
                    coord.add(c);
                    ours.add(Locks.mutex(c, CoordPath.of("/bench/lock/contended/ours")));
                    CuratorFramework f = newCurator(ctx);
                    curator.add(f);
                    peer.add(new InterProcessMutex(f, "/bench/lock/contended/peer"));
                }
                ServerCounters server = new ServerCounters(ctx.connectString());
                List<Long> ourSessions = coord.stream().map(c -> ServerCounters.session(c.curator())).toList();
                List<Long> peerSessions = curator.stream().map(ServerCounters::session).toList();
                BenchContext.Paired<Counted> r = ctx.alternate(
                        round -> counted(server, ourSessions, CLIENTS * perClient, () -> race(pool, perClient, i -> ours.get(i).acquire(WAIT).close())),
                        round -> counted(server, peerSessions, CLIENTS * perClient, () -> race(pool, perClient, i -> {
                            acquirePeer(peer.get(i));
                            releasePeer(peer.get(i));
                        })));
                BenchContext.Paired<RoundResult> rates = new BenchContext.Paired<>(
                        r.ours().stream().map(Counted::result).toList(), r.peer().stream().map(Counted::result).toList());
                return List.of(Figures.rate(NAME, "handoffs", "handoffs/s", rates, PEER),
                        Figure.lower(NAME, "requestsPerHandoff", "requests", Stats.median(r.ours(), Counted::requestsPerHandoff),
                                Stats.median(r.peer(), Counted::requestsPerHandoff), PEER));
            } finally {
                pool.shutdownNow();
                closeAll(coord, curator);
            }
        }

        /** One round: its rate, and the requests the server counted per handoff. */
        private record Counted(RoundResult result, double requestsPerHandoff) {
            @Override
            public String toString() {
                return result + ", " + Table.number(requestsPerHandoff) + " requests/handoff";
            }
        }

        @FunctionalInterface
        private interface Race {
            RoundResult run() throws InterruptedException;
        }

        private static Counted counted(ServerCounters server, List<Long> sessions, int cycles, Race race) throws InterruptedException {
            ServerCounters.Reading before = server.settled();
            RoundResult result = race.run();
            ServerCounters.Reading after = server.settled();
            return new Counted(result, after.requests(before, sessions) / (double) cycles);
        }

        @FunctionalInterface
        private interface Cycle {
            void run(int client) throws InterruptedException;
        }

        private static RoundResult race(ExecutorService pool, int perClient, Cycle cycle) throws InterruptedException {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<?>> done = new ArrayList<>();
            for (int c = 0; c < CLIENTS; c++) {
                int client = c;
                done.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < perClient; i++) {
                        cycle.run(client);
                    }
                    return null;
                }));
            }
            long t0 = System.nanoTime();
            start.countDown();
            for (Future<?> f : done) {
                try {
                    f.get(10, TimeUnit.MINUTES);
                } catch (Exception e) {
                    throw new IllegalStateException("a contending client failed: " + e.getMessage(), e);
                }
            }
            return RoundResult.of(CLIENTS * perClient, System.nanoTime() - t0, null);
        }
    }

    /** {@code lock.guardedWrite}: the price of fencing a ZooKeeper write on the lease's node. */
    static final class GuardedWrite implements Benchmark {
        static final String NAME = "lock.guardedWrite";

        @Override
        public String name() {
            return NAME;
        }

        @Override
        public String description() {
            return "setData fenced on a held lease (multi check+setData) vs a plain setData of the same node";
        }

        @Override
        public List<Figure> run(BenchContext ctx) throws InterruptedException {
            int n = ctx.ops(500);
            byte[] value = new byte[100];
            CoordPath target = CoordPath.of("/bench/lock/guarded/target");
            try (CoordClient client = ctx.newCoordClient()) {
                CuratorFramework curator = client.curator();
                try {
                    curator.create().creatingParentsIfNeeded().forPath(target.value(), value);
                } catch (org.apache.zookeeper.KeeperException.NodeExistsException e) {
                    // from an earlier run against the same server
                } catch (Exception e) {
                    throw new IllegalStateException("could not create " + target, e);
                }
                try (LockLease lease = Locks.mutex(client, CoordPath.of("/bench/lock/guarded/lock")).acquire(WAIT)) {
                    BenchContext.Paired<RoundResult> r = ctx.alternate(round -> {
                        Latencies l = new Latencies(n);
                        long start = System.nanoTime();
                        for (int i = 0; i < n; i++) {
                            long t0 = System.nanoTime();
                            lease.guardedSetData(target, value);
                            l.add(System.nanoTime() - t0);
                        }
                        return RoundResult.of(n, System.nanoTime() - start, l);
                    }, round -> {
                        Latencies l = new Latencies(n);
                        long start = System.nanoTime();
                        for (int i = 0; i < n; i++) {
                            long t0 = System.nanoTime();
                            try {
                                curator.setData().forPath(target.value(), value);
                            } catch (Exception e) {
                                throw new IllegalStateException("setData failed: " + e.getMessage(), e);
                            }
                            l.add(System.nanoTime() - t0);
                        }
                        return RoundResult.of(n, System.nanoTime() - start, l);
                    });
                    return List.of(Figures.p50(NAME, "write.p50", r, "plain-setData"),
                            Figures.rate(NAME, "throughput", "writes/s", r, "plain-setData"));
                }
            }
        }
    }
}
