package io.coord.bench;

import io.coord.bench.BenchContext.Paired;

/** Turns paired round results into figures: the median over rounds of each side. */
final class Figures {
    /** The peer of the limits benchmarks: ZooKeeper's own client, no Curator, no Coord. */
    static final String RAW_ZOOKEEPER = "raw-zookeeper";

    private Figures() {
    }

    static Figure rate(String bench, String metric, String unit, Paired<RoundResult> r, String peerName) {
        return Figure.higher(bench, metric, unit,
                Stats.median(r.ours(), RoundResult::opsPerSecond), Stats.median(r.peer(), RoundResult::opsPerSecond), peerName);
    }

    static Figure p50(String bench, String metric, Paired<RoundResult> r, String peerName) {
        return Figure.lower(bench, metric, "ms",
                Stats.median(r.ours(), RoundResult::p50Ms), Stats.median(r.peer(), RoundResult::p50Ms), peerName);
    }

    static Figure p99(String bench, String metric, Paired<RoundResult> r, String peerName) {
        return Figure.lower(bench, metric, "ms",
                Stats.median(r.ours(), RoundResult::p99Ms), Stats.median(r.peer(), RoundResult::p99Ms), peerName);
    }
}
