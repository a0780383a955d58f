package io.coord.bench;

import static io.coord.bench.LockBench.PEER;
import static io.coord.bench.LockBench.WAIT;
import static io.coord.bench.LockBench.acquirePeer;
import static io.coord.bench.LockBench.closeAll;
import static io.coord.bench.LockBench.releasePeer;

import io.coord.CoordClient;
import io.coord.lock.DistributedLock;
import io.coord.lock.LockLease;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;

/**
 * {@code lock.handoff}: how long a handoff takes as a new user would measure it, every waiter its
 * own client (its own session and connection). A queue of 8, 64 or 256 waiters ({@value #SIZES_PROPERTY}
 * overrides; {@code ./coord bench --scale lock} runs 8, 64 and 512) forms behind a held
 * lock; then the holder releases, and each waiter, once granted, releases at once. A handoff is the
 * time from a release (just before {@code close()}/{@code release()} is called) to the next grant
 * (when {@code acquire} returns); the figures are its median and 99th percentile, and the requests
 * per handoff the server counted from all sessions (pings excluded). Each round opens its own clients and
 * closes them ({@code --ops N}: one queue of N waiters instead). Peer: Curator's
 * {@link InterProcessMutex}, the same way.
 */
final class LockHandoffBench implements Benchmark {
    static final String NAME = "lock.handoff";
    static final String SIZES_PROPERTY = "coord.bench.lock.waiters";
    static final String SIZES_DEFAULT = "8,64,256";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "handoff p50 and p99 with " + Sizes.of(SIZES_PROPERTY, SIZES_DEFAULT, 1)
                + " queued waiters, each its own client; peer: Curator InterProcessMutex";
    }

    /** One waiter's turn: wait for the grant, then release it. */
    @FunctionalInterface
    private interface Turn {
        void take(Runnable granted, Runnable releasing) throws Exception;
    }

    @Override
    public List<Figure> run(BenchContext ctx) throws InterruptedException {
        List<Figure> figures = new ArrayList<>();
        // --ops N runs one queue of N waiters instead of the three sizes (a smoke run stays small).
        List<Integer> sizes = ctx.ops(0) > 0 ? List.of(ctx.ops(0)) : Sizes.of(SIZES_PROPERTY, SIZES_DEFAULT, 1);
        for (int waiters : sizes) {
            ExecutorService pool = Executors.newFixedThreadPool(waiters);
            try {
                ServerCounters counters = new ServerCounters(ctx.connectString());
                BenchContext.Paired<Handoffs> r = ctx.alternate(round -> {
                    List<CoordClient> clients = new ArrayList<>();
                    try {
                        List<DistributedLock> locks = LockBench.ourLocks(ctx, waiters + 1, "/bench/lock/handoff/ours-" + waiters, clients);
                        LockLease held = locks.get(0).acquire(WAIT);
                        return measure(pool, counters, waiters, clients.get(0).curator(), "/bench/lock/handoff/ours-" + waiters,
                                i -> (granted, releasing) -> {
                                    LockLease lease = locks.get(i).acquire(WAIT);
                                    granted.run();
                                    releasing.run();
                                    lease.close();
                                }, held::close);
                    } finally {
                        closeAll(clients, List.of());
                    }
                }, round -> {
                    List<CuratorFramework> clients = new ArrayList<>();
                    try {
                        List<InterProcessMutex> mutexes = LockBench.peerMutexes(ctx, waiters + 1, "/bench/lock/handoff/peer-" + waiters, clients);
                        acquirePeer(mutexes.get(0));
                        return measure(pool, counters, waiters, clients.get(0), "/bench/lock/handoff/peer-" + waiters,
                                i -> (granted, releasing) -> {
                                    acquirePeer(mutexes.get(i));
                                    granted.run();
                                    releasing.run();
                                    releasePeer(mutexes.get(i));
                                }, () -> releasePeer(mutexes.get(0)));
                    } finally {
                        closeAll(List.of(), clients);
                    }
                });
                BenchContext.Paired<RoundResult> times = new BenchContext.Paired<>(
                        r.ours().stream().map(Handoffs::times).toList(), r.peer().stream().map(Handoffs::times).toList());
                figures.add(Figures.p50(NAME, "handoff.p50.w" + waiters, times, PEER));
                figures.add(Figures.p99(NAME, "handoff.p99.w" + waiters, times, PEER));
                figures.add(Figure.lower(NAME, "handoff.requests.w" + waiters, "requests", Stats.median(r.ours(), Handoffs::requests),
                        Stats.median(r.peer(), Handoffs::requests), PEER));
            } finally {
                pool.shutdownNow();
            }
        }
        return figures;
    }

    @FunctionalInterface
    private interface Turns {
        Turn of(int waiter);
    }

    /** One round: the handoff times, and the server requests per handoff (all sessions, counted by the server). */
    record Handoffs(RoundResult times, double requests) {
        @Override
        public String toString() {
            return times + ", " + Table.number(requests) + " requests per handoff";
        }
    }

    /**
     * Queues the waiters one by one (in order), releases the holder, and times each handoff; the
     * server's request counts are read once the queue has settled and again once every waiter's
     * release has landed, so the difference is what the handoffs cost.
     */
    private static Handoffs measure(ExecutorService pool, ServerCounters counters, int waiters, CuratorFramework observer, String path,
            Turns turns, Runnable releaseHolder) throws InterruptedException {
        AtomicLong lastRelease = new AtomicLong();
        Latencies handoffs = new Latencies(waiters);
        List<Future<?>> waiting = new ArrayList<>();
        for (int i = 1; i <= waiters; i++) {
            Turn turn = turns.of(i);
            waiting.add(pool.submit(() -> {
                turn.take(() -> {
                    synchronized (handoffs) {
                        handoffs.add(System.nanoTime() - lastRelease.get());
                    }
                }, () -> lastRelease.set(System.nanoTime()));
                return null;
            }));
            LockHerdBench.awaitQueue(observer, path, i + 1);
        }
        ServerCounters.Reading before = counters.settled();
        long start = System.nanoTime();
        lastRelease.set(start);
        releaseHolder.run();
        for (Future<?> f : waiting) {
            try {
                f.get(5, TimeUnit.MINUTES);
            } catch (Exception e) {
                throw new IllegalStateException("a waiter failed: " + e.getMessage(), e);
            }
        }
        long elapsed = System.nanoTime() - start;
        ServerCounters.Reading after = counters.settled();
        return new Handoffs(RoundResult.of(waiters, elapsed, handoffs), after.requests(before) / (double) waiters);
    }
}
