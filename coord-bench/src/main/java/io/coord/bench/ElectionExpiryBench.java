package io.coord.bench;

import io.coord.bench.BenchContext.Paired;
import java.util.List;
import org.apache.zookeeper.ZooKeeper;

/**
 * {@code election.expiryFailover}: how long after the leader's session is ended on the server the
 * next leader's callback runs (handover grace 0, the default). The session is ended as an expiry
 * ends it: a second handle with the leader's session id and password connects (untimed) and
 * closes (timed from here). Ours: coord-election's leader task; the peer, for reference: Curator's
 * {@code LeaderLatch}. The expired candidate joins again on its new session, untimed, with a new
 * handle (a new latch).
 */
final class ElectionExpiryBench implements Benchmark {
    static final String NAME = "election.expiryFailover";
    static final int DEFAULT_OPS = 4;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "leader's session ended on the server -> next leader's callback; peer: Curator LeaderLatch";
    }

    @Override
    public List<Figure> run(BenchContext ctx) throws InterruptedException {
        int n = ctx.ops(DEFAULT_OPS);
        try (LeaderPairs.Pair ours = new LeaderPairs.Ours(ctx, "expiry-ours");
             LeaderPairs.Pair peer = new LeaderPairs.Peer(ctx, LeaderPairs.path("expiry-peer"))) {
            Paired<RoundResult> r = ctx.alternate(round -> expiries(ctx, ours, n), round -> expiries(ctx, peer, n));
            return List.of(
                    Figures.p50(NAME, "p50", r, "curator-LeaderLatch"),
                    Figures.p99(NAME, "p99", r, "curator-LeaderLatch"));
        }
    }

    private static RoundResult expiries(BenchContext ctx, LeaderPairs.Pair pair, int n) throws InterruptedException {
        Latencies latencies = new Latencies(n);
        long timed = 0;
        for (int i = 0; i < n; i++) {
            pair.awaitBothInLine();
            LeaderPairs.Started leader = pair.leader();
            ZooKeeper twin;
            ZooKeeper expired;
            try {
                expired = pair.zooKeeper(leader.who());
                twin = LeaderPairs.twin(ctx.connectString(), expired);
            } catch (InterruptedException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException("could not reach the leader's session", e);
            }
            long t0 = System.nanoTime();
            twin.close();
            LeaderPairs.Started next = pair.next();
            long took = next.atNanos() - t0;
            latencies.add(took);
            timed += took;
            hurry(expired);
            pair.rejoin(leader);
        }
        return RoundResult.of(n, timed, latencies);
    }

    /**
     * Untimed: tells the expired client at once that its session is gone, instead of letting it
     * find out on its next reconnect (ZooKeeper waits up to a random second before reconnecting),
     * so that it starts its new session and joins again without that wait. The server has already
     * ended the session; holding the handle's monitor keeps a concurrent close from talking to it.
     */
    private static void hurry(ZooKeeper expired) {
        try {
            synchronized (expired) {
                expired.getTestable().injectSessionExpiration();
            }
        } catch (RuntimeException alreadyReplaced) {
            // the client has moved on to a new handle already
        }
    }
}
