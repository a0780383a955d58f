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
 * {@code limits.getData}: the synchronous read round trip of one client, one read after another.
 * A read is answered by the server the client is connected to, without a quorum or a log sync:
 * the floor under every "look before you act" step of a recipe.
 *
 * <p>Ours reads through {@link CoordClient#curator()}, as a user of the public API would
 * ({@link EscapeHatch}); the peer reads through a raw ZooKeeper handle. Both read the same node.
 */
final class GetDataBench implements Benchmark {
    static final String NAME = "limits.getData";
    static final int DEFAULT_OPS = 1500;
    private static final byte[] VALUE = new byte[100];

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "synchronous getData round trip (100-byte value) from one client; peer: raw ZooKeeper";
    }

    @Override
    public List<Figure> run(BenchContext ctx) throws InterruptedException {
        int n = ctx.ops(DEFAULT_OPS);
        CoordPath node = CoordPath.of("/bench/getData/node");
        try (CoordClient client = ctx.newCoordClient(); ZooKeeper raw = ctx.newZooKeeper()) {
            Nodes.ensure(raw, node.parent().value());
            try {
                raw.create(node.value(), VALUE, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            } catch (KeeperException.NodeExistsException e) {
                // from an earlier run in the same server: same value
            } catch (KeeperException e) {
                throw new IllegalStateException("could not create " + node + ": " + e.getMessage(), e);
            }
            EscapeHatch hatch = new EscapeHatch(client);
            Paired<RoundResult> r = ctx.alternate(
                    round -> ours(hatch, client.curator(), node, n),
                    round -> peer(raw, node.value(), n));
            return List.of(
                    Figures.p50(NAME, "latency.p50", r, Figures.RAW_ZOOKEEPER),
                    Figures.p99(NAME, "latency.p99", r, Figures.RAW_ZOOKEEPER));
        }
    }

    private static RoundResult ours(EscapeHatch hatch, CuratorFramework curator, CoordPath node, int n) throws InterruptedException {
        Latencies latencies = new Latencies(n);
        long start = System.nanoTime();
        for (int i = 0; i < n; i++) {
            long t0 = System.nanoTime();
            byte[] data = hatch.call(node, () -> curator.getData().forPath(node.value()));
            if (data.length != VALUE.length) {
                throw new IllegalStateException("read " + data.length + " bytes from " + node + ", expected " + VALUE.length);
            }
            latencies.add(System.nanoTime() - t0);
        }
        return RoundResult.of(n, System.nanoTime() - start, latencies);
    }

    private static RoundResult peer(ZooKeeper raw, String node, int n) throws InterruptedException {
        Latencies latencies = new Latencies(n);
        long start = System.nanoTime();
        for (int i = 0; i < n; i++) {
            long t0 = System.nanoTime();
            byte[] data;
            try {
                data = raw.getData(node, false, null);
            } catch (KeeperException e) {
                throw new IllegalStateException("raw getData of " + node + " failed: " + e.getMessage(), e);
            }
            if (data.length != VALUE.length) {
                throw new IllegalStateException("read " + data.length + " bytes from " + node + ", expected " + VALUE.length);
            }
            latencies.add(System.nanoTime() - t0);
        }
        return RoundResult.of(n, System.nanoTime() - start, latencies);
    }
}
