package io.coord.bench;

import io.coord.bench.BenchContext.Paired;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

/**
 * {@code limits.lockCycle}: the ceiling on what pipelining can win for an uncontended lock cycle on
 * this server, with no recipe on either side. Both sides are raw ZooKeeper handles doing the lock's
 * three requests (create an ephemeral-sequential node, list the directory, delete the node):
 * <ul>
 *   <li>ours: the way Coord's lock sends them: the previous cycle's delete sent without waiting,
 *       the create sent in the background and the listing right behind it as a blocking call, so
 *       the caller waits for one round trip and is woken by the listing's reply;
 *   <li>peer: the way {@code InterProcessMutex} sends them, each waited for in turn.
 * </ul>
 * The ratio is the most any client can gain by pipelining here: both sides still pay the two
 * writes' log syncs of every cycle (the delete and the next create reach the server apart, so each
 * is synced on its own), and pipelining removes only the read and the waits between requests.
 * {@code lock.uncontended}'s ratio can come close to this one, not above it.
 */
final class LockCycleFloorBench implements Benchmark {
    static final String NAME = "limits.lockCycle";
    private static final byte[] VALUE = new byte[40];

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "an uncontended lock cycle (create, list, delete) on a raw ZooKeeper handle, pipelined as Coord sends it;"
                + " peer: the same three requests waited for in turn, as InterProcessMutex sends them";
    }

    @Override
    public List<Figure> run(BenchContext ctx) throws InterruptedException {
        int n = ctx.ops(500);
        try (ZooKeeper raw = ctx.newZooKeeper()) {
            String ours = "/bench/lockCycle/ours";
            String peer = "/bench/lockCycle/peer";
            Nodes.ensure(raw, ours);
            Nodes.ensure(raw, peer);
            Paired<RoundResult> r = ctx.alternate(round -> pipelined(raw, ours, n), round -> sequential(raw, peer, n));
            return List.of(
                    Figures.rate(NAME, "throughput", "cycles/s", r, Figures.RAW_ZOOKEEPER),
                    Figures.p50(NAME, "cycle.p50", r, Figures.RAW_ZOOKEEPER));
        }
    }

    private static RoundResult pipelined(ZooKeeper zk, String dir, int n) throws InterruptedException {
        Latencies latencies = new Latencies(n);
        long start = System.nanoTime();
        for (int i = 0; i < n; i++) {
            long t0 = System.nanoTime();
            CompletableFuture<String> created = new CompletableFuture<>();
            zk.create(dir + "/lock-", VALUE, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL_SEQUENTIAL,
                    (AsyncCallback.StringCallback) (rc, path, c, name) -> complete(created, rc, name), null);
            try {
                zk.getChildren(dir, false); // blocking: its reply wakes this thread directly
            } catch (KeeperException e) {
                throw new IllegalStateException("raw listing of " + dir + " failed: " + e.getMessage(), e);
            }
            String node = await(created);
            zk.delete(node, -1, (rc, path, c) -> { }, null); // sent, not waited for
            latencies.add(System.nanoTime() - t0);
        }
        return RoundResult.of(n, System.nanoTime() - start, latencies);
    }

    private static RoundResult sequential(ZooKeeper zk, String dir, int n) throws InterruptedException {
        Latencies latencies = new Latencies(n);
        long start = System.nanoTime();
        for (int i = 0; i < n; i++) {
            long t0 = System.nanoTime();
            try {
                String node = zk.create(dir + "/lock-", VALUE, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL_SEQUENTIAL);
                zk.getChildren(dir, false);
                zk.delete(node, -1);
            } catch (KeeperException e) {
                throw new IllegalStateException("raw lock cycle under " + dir + " failed: " + e.getMessage(), e);
            }
            latencies.add(System.nanoTime() - t0);
        }
        return RoundResult.of(n, System.nanoTime() - start, latencies);
    }

    private static <T> void complete(CompletableFuture<T> future, int rc, T value) {
        if (rc == KeeperException.Code.OK.intValue()) {
            future.complete(value);
        } else {
            future.completeExceptionally(KeeperException.create(KeeperException.Code.get(rc)));
        }
    }

    private static <T> T await(CompletableFuture<T> future) throws InterruptedException {
        try {
            return future.get();
        } catch (ExecutionException e) {
            throw new IllegalStateException("raw lock cycle failed: " + e.getCause().getMessage(), e.getCause());
        }
    }
}
