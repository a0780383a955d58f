package io.coord.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Collectors;

/**
 * A fault schedule, computed up front from the seed: which faults, in which order, at which
 * earliest time after the start of the run, against which worker ({@code pick} modulo the number
 * of workers). The runner applies them one at a time, never two at once, each no earlier than its
 * time and at least {@link #MIN_GAP} after the previous one was healed.
 */
public record FaultPlan(List<Fault> faults) {
    /** One scheduled fault. */
    public record Fault(FaultKind kind, long atMillis, int pick) {
        @Override
        public String toString() {
            return kind + "@" + atMillis + "ms#" + pick;
        }
    }

    /** Fault-free time at the start, whose rate is the throughput reference. */
    public static final Duration WARMUP = Duration.ofSeconds(4);
    /** Quiet time after each healed fault, so progress between faults can be measured. */
    public static final Duration MIN_GAP = Duration.ofMillis(2500);

    public FaultPlan {
        faults = List.copyOf(faults);
    }

    /**
     * Adds the faults no recipe met before the reliability matrix's CI tier (lock and election take
     * them): F7 (ZooKeeper leader paused) and F9 (one server partitioned) in every profile, F8
     * (quorum loss past the session) and F12 (wall-clock step) in the CI tier and longer, being
     * slow to set up and to heal.
     */
    static void addServerAndClockFaults(Map<FaultKind, Integer> counts, Profile p) {
        counts.put(FaultKind.PAUSE_ZK_LEADER, p.faults(1, 1));
        counts.put(FaultKind.PARTITION_ZK, p.faults(1, 1));
        counts.put(FaultKind.LOSE_QUORUM, p.faults(0, 1));
        counts.put(FaultKind.CLOCK_STEP, p.faults(0, 1));
    }

    /**
     * {@code counts} of each kind, shuffled by {@code rng}, spread evenly with jitter over
     * {@code [WARMUP, length)}.
     */
    public static FaultPlan of(Random rng, Duration length, Map<FaultKind, Integer> counts) {
        List<FaultKind> kinds = new ArrayList<>();
        // A fixed iteration order, so the shuffle below depends on the seed only.
        EnumMap<FaultKind, Integer> ordered = new EnumMap<>(FaultKind.class);
        ordered.putAll(counts);
        ordered.forEach((k, n) -> {
            if (n < 0) {
                throw new IllegalArgumentException("fault count for " + k + " must be >= 0, got " + n);
            }
            kinds.addAll(Collections.nCopies(n, k));
        });
        Collections.shuffle(kinds, rng);
        long start = WARMUP.toMillis();
        long span = Math.max(1, length.toMillis() - start);
        long slot = kinds.isEmpty() ? span : span / kinds.size();
        List<Fault> faults = new ArrayList<>();
        for (int i = 0; i < kinds.size(); i++) {
            long at = start + i * slot + (long) (rng.nextDouble() * slot * 0.3);
            faults.add(new Fault(kinds.get(i), at, rng.nextInt(1 << 16)));
        }
        return new FaultPlan(faults);
    }

    public int size() {
        return faults.size();
    }

    @Override
    public String toString() {
        return faults.stream().map(Fault::toString).collect(Collectors.joining(", ", "[", "]"));
    }
}
