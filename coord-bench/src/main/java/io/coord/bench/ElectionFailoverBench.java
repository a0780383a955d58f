package io.coord.bench;

import io.coord.bench.BenchContext.Paired;
import java.util.List;

/**
 * {@code election.failover}: how long after the leader leaves the next leader's callback runs.
 * Two candidates on two clients; each op makes the current leader leave and times until the other
 * one's callback starts. Ours: coord-election's leader task ({@code resign()}, and in a second
 * pass closing the {@code Election}); the peer: Curator's {@code LeaderLatch} ({@code close()} →
 * the other latch's {@code isLeader()}). The one that left joins again between ops, untimed, with
 * a new handle on both sides.
 */
final class ElectionFailoverBench implements Benchmark {
    static final String NAME = "election.failover";
    static final int DEFAULT_OPS = 40;
    private static final String PEER = "curator-LeaderLatch";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "leader leaves (resign / close) -> next leader's callback; peer: Curator LeaderLatch close -> isLeader";
    }

    @Override
    public List<Figure> run(BenchContext ctx) throws InterruptedException {
        int n = ctx.ops(DEFAULT_OPS);
        try (LeaderPairs.Pair ours = new LeaderPairs.Ours(ctx, "failover-ours");
             LeaderPairs.Pair peer = new LeaderPairs.Peer(ctx, LeaderPairs.path("failover-peer"))) {
            Paired<RoundResult> resign = ctx.alternate(round -> failovers(ours, n, false), round -> failovers(peer, n, false));
            Paired<RoundResult> close = ctx.alternate(round -> failovers(ours, n, true), round -> failovers(peer, n, true));
            return List.of(
                    Figures.p50(NAME, "resign.p50", resign, PEER),
                    Figures.p99(NAME, "resign.p99", resign, PEER),
                    Figures.p50(NAME, "close.p50", close, PEER),
                    Figures.p99(NAME, "close.p99", close, PEER));
        }
    }

    static RoundResult failovers(LeaderPairs.Pair pair, int n, boolean close) throws InterruptedException {
        Latencies latencies = new Latencies(n);
        long timed = 0;
        for (int i = 0; i < n; i++) {
            pair.awaitBothInLine();
            LeaderPairs.Started leader = pair.leader();
            long t0 = System.nanoTime();
            pair.leave(leader, close);
            LeaderPairs.Started next = pair.next();
            long took = next.atNanos() - t0;
            latencies.add(took);
            timed += took;
            pair.rejoin(leader);
        }
        return RoundResult.of(n, timed, latencies);
    }
}
