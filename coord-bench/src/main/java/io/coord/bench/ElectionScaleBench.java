package io.coord.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code election.scale}: failover with N candidates, each its own client and session, as a new
 * user would run them, for N in {@value #SIZES_DEFAULT} ({@value #SIZES_PROPERTY} overrides;
 * {@code ./coord bench --scale election} runs 5, 50 and 500). Per size and side: the N candidates
 * join one after another; then each op closes the leader ({@code Election.close()}, the peer's
 * {@code LeaderLatch.close()}) and times until the next leader's callback starts; the one that
 * left joins again at the back of the line, untimed, and the next op waits until all N are in line.
 * One side's N clients at a time ({@link BenchContext#oneSideAtATime}). Peer: Curator LeaderLatch.
 */
final class ElectionScaleBench implements Benchmark {
    static final String NAME = "election.scale";
    static final String SIZES_PROPERTY = "coord.bench.election.candidates";
    static final String SIZES_DEFAULT = "5,50";
    static final int DEFAULT_OPS = 5;
    private static final String PEER = "curator-LeaderLatch";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "failover (leader closes -> next leader's callback) with " + sizes() + " candidates, each its own client;"
                + " peer: Curator LeaderLatch";
    }

    static List<Integer> sizes() {
        return Sizes.of(SIZES_PROPERTY, SIZES_DEFAULT, 2);
    }

    @Override
    public List<Figure> run(BenchContext ctx) throws InterruptedException {
        int ops = ctx.ops(DEFAULT_OPS);
        List<Figure> figures = new ArrayList<>();
        for (int n : sizes()) {
            BenchContext.Paired<RoundResult> r = ctx.<LeaderPairs.Pair, RoundResult>oneSideAtATime(
                    () -> new LeaderPairs.Ours(ctx, "scale-ours-" + n, n),
                    () -> new LeaderPairs.Peer(ctx, LeaderPairs.path("scale-peer-" + n), n),
                    (pair, round) -> ElectionFailoverBench.failovers(pair, ops, true));
            figures.add(Figures.p50(NAME, "failover.p50.n" + n, r, PEER));
            figures.add(Figures.p99(NAME, "failover.p99.n" + n, r, PEER));
        }
        return figures;
    }
}
