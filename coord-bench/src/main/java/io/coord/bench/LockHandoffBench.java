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
 * own client (its own session and connection). A queue of 8, 64 or 256 waiters forms behind a held
 * lock; then the holder releases, and each waiter, once granted, releases at once. A handoff is the
 * time from a release (just before {@code close()}/{@code release()} is called) to the next grant
 * (when {@code acquire} returns); the figure is its median. Each round opens its own clients and
 * closes them ({@code --ops N}: one queue of N waiters instead). Peer: Curator's
 * {@link InterProcessMutex}, the same way.
 */
final class LockHandoffBench implements Benchmark {
    static final String NAME = "lock.handoff";
    static final int[] WAITERS = {8, 64, 256};

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "handoff p50 with 8, 64 and 256 queued waiters, each its own client; peer: Curator InterProcessMutex";
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
        int[] sizes = ctx.ops(0) > 0 ? new int[] {ctx.ops(0)} : WAITERS;
        for (int waiters : sizes) {
            ExecutorService pool = Executors.newFixedThreadPool(waiters);
            try {
                BenchContext.Paired<RoundResult> r = ctx.alternate(round -> {
                    List<CoordClient> clients = new ArrayList<>();
                    try {
                        List<DistributedLock> locks = LockBench.ourLocks(ctx, waiters + 1, "/bench/lock/handoff/ours-" + waiters, clients);
                        LockLease held = locks.get(0).acquire(WAIT);
                        return measure(pool, waiters, clients.get(0).curator(), "/bench/lock/handoff/ours-" + waiters,
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
                        return measure(pool, waiters, clients.get(0), "/bench/lock/handoff/peer-" + waiters,
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
                figures.add(Figures.p50(NAME, "handoff.p50.w" + waiters, r, PEER));
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

    /** Queues the waiters one by one (in order), releases the holder, and times each handoff. */
    private static RoundResult measure(ExecutorService pool, int waiters, CuratorFramework observer, String path, Turns turns,
            Runnable releaseHolder) throws InterruptedException {
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
        return RoundResult.of(waiters, System.nanoTime() - start, handoffs);
    }
}
