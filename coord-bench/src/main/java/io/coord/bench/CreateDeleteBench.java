package io.coord.bench;

import io.coord.CoordClient;
import io.coord.CoordPath;
import io.coord.bench.BenchContext.Paired;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

/**
 * {@code limits.createDelete}: one client creating and then deleting a node, synchronously, pair
 * after pair. Each pair is two writes, so on a server that fsyncs it is bound by two log syncs:
 * the floor under every recipe that takes something (a lock node) and gives it back.
 *
 * <p>Ours goes through a {@link CoordClient}: the path is validated as a {@link CoordPath}, the
 * value size is checked against the client's limit, and the calls run through Curator
 * ({@link EscapeHatch}: only the public API). The peer is a raw ZooKeeper handle.
 */
final class CreateDeleteBench implements Benchmark {
    static final String NAME = "limits.createDelete";
    static final int DEFAULT_OPS = 400;
    private static final byte[] VALUE = new byte[100];

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "synchronous create+delete pairs (100-byte value) from one client; peer: raw ZooKeeper";
    }

    @Override
    public List<Figure> run(BenchContext ctx) throws InterruptedException {
        int n = ctx.ops(DEFAULT_OPS);
        try (CoordClient client = ctx.newCoordClient(); ZooKeeper raw = ctx.newZooKeeper()) {
            CoordPath oursParent = CoordPath.of("/bench/createDelete/ours");
            String peerParent = "/bench/createDelete/peer";
            Nodes.ensure(raw, oursParent.value());
            Nodes.ensure(raw, peerParent);
            EscapeHatch hatch = new EscapeHatch(client);
            Paired<RoundResult> r = ctx.alternate(
                    round -> ours(hatch, client.curator(), oursParent, n),
                    round -> peer(raw, peerParent, n));
            return List.of(
                    Figures.rate(NAME, "throughput", "pairs/s", r, Figures.RAW_ZOOKEEPER),
                    Figures.p50(NAME, "pairLatency.p50", r, Figures.RAW_ZOOKEEPER),
                    Figures.p99(NAME, "pairLatency.p99", r, Figures.RAW_ZOOKEEPER));
        }
    }

    private static RoundResult ours(EscapeHatch hatch, CuratorFramework curator, CoordPath parent, int n) throws InterruptedException {
        Latencies latencies = new Latencies(n);
        long start = System.nanoTime();
        for (int i = 0; i < n; i++) {
            long t0 = System.nanoTime();
            CoordPath path = parent.child("n-" + i);
            hatch.checkSize(path, VALUE.length);
            hatch.call(path, () -> curator.create().forPath(path.value(), VALUE));
            hatch.call(path, () -> curator.delete().forPath(path.value()));
            latencies.add(System.nanoTime() - t0);
        }
        return RoundResult.of(n, System.nanoTime() - start, latencies);
    }

    private static RoundResult peer(ZooKeeper raw, String parent, int n) throws InterruptedException {
        Latencies latencies = new Latencies(n);
        long start = System.nanoTime();
        for (int i = 0; i < n; i++) {
            long t0 = System.nanoTime();
            String path = parent + "/n-" + i;
            try {
                raw.create(path, VALUE, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                raw.delete(path, -1);
            } catch (KeeperException e) {
                throw new IllegalStateException("raw create/delete of " + path + " failed: " + e.getMessage(), e);
            }
            latencies.add(System.nanoTime() - t0);
        }
        return RoundResult.of(n, System.nanoTime() - start, latencies);
    }
}
