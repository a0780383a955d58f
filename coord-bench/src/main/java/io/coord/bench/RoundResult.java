package io.coord.bench;

/**
 * What one round of one side measured.
 *
 * @param opsPerSecond operations (or pairs) per second over the whole round
 * @param p50Ms        median per-operation latency, 0 where latencies were not recorded
 * @param p99Ms        99th percentile per-operation latency, 0 where not recorded
 */
record RoundResult(double opsPerSecond, double p50Ms, double p99Ms) {
    @Override
    public String toString() {
        String rate = Table.number(opsPerSecond) + "/s";
        return p50Ms == 0 && p99Ms == 0 ? rate
                : rate + " p50 " + Table.number(p50Ms) + " ms p99 " + Table.number(p99Ms) + " ms";
    }

    static RoundResult of(int ops, long elapsedNanos, Latencies latencies) {
        double rate = elapsedNanos <= 0 ? 0 : ops / (elapsedNanos / 1e9);
        return latencies == null ? new RoundResult(rate, 0, 0)
                : new RoundResult(rate, latencies.percentileMs(0.50), latencies.percentileMs(0.99));
    }
}
