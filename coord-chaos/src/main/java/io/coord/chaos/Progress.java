package io.coord.chaos;

import io.coord.test.History;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Throughput of acknowledged operations in the fault-free warm-up and outside the fault windows.
 * A window here lasts from injection until healed plus {@code settle} ({@link ChaosContext#SETTLE}), the
 * time clients need to reconnect or start a new session; everything after the warm-up that is not
 * in such a window is "outside". The floor (see {@link #FLOOR_FRACTION}) is a share of the warm-up
 * rate, as etcd's robustness suite does with its MinimalQPS: a run that stalled is a failed run.
 */
public record Progress(double warmup, double outside) {
    /** Outside the fault windows the run must keep at least this share of its warm-up rate. */
    public static final double FLOOR_FRACTION = 0.5;

    public double floor() {
        return warmup * FLOOR_FRACTION;
    }

    public boolean ok() {
        return warmup > 0 && !(outside < floor());
    }

    /**
     * Acknowledgements per second of the run, and the fault windows as {@code [start-end name]}
     * (seconds from the first invocation): the timeline behind the figures, for diagnosis.
     */
    static String timeline(History history) {
        List<History.Op> ops = history.ops();
        if (ops.isEmpty()) {
            return "(no operations)";
        }
        long first = ops.stream().mapToLong(History.Op::invokeNanos).min().orElseThrow();
        long[] acks = ops.stream().filter(o -> o.outcome() == History.Outcome.OK).mapToLong(History.Op::completeNanos).toArray();
        int seconds = (int) ((java.util.Arrays.stream(acks).max().orElse(first) - first) / 1_000_000_000L) + 1;
        int[] perSecond = new int[seconds];
        for (long t : acks) {
            perSecond[(int) ((t - first) / 1_000_000_000L)]++;
        }
        StringBuilder b = new StringBuilder("acks/s=");
        for (int i = 0; i < seconds; i++) {
            b.append(i == 0 ? "" : ",").append(perSecond[i]);
        }
        for (History.Window w : history.windows()) {
            b.append(String.format(" [%.1f-%.1f %s]", (w.startNanos() - first) / 1e9, (w.endNanos() - first) / 1e9, w.name().replace(' ', '_')));
        }
        return b.toString();
    }

    static Progress of(History history, Duration settle) {
        List<History.Op> ops = history.ops();
        long[] acks = ops.stream().filter(o -> o.outcome() == History.Outcome.OK).mapToLong(History.Op::completeNanos).sorted().toArray();
        if (acks.length == 0) {
            return new Progress(0, 0);
        }
        long first = ops.stream().mapToLong(History.Op::invokeNanos).min().orElseThrow();
        long last = acks[acks.length - 1];
        List<History.Window> ws = new ArrayList<>(history.windows());
        if (ws.isEmpty()) {
            double r = acks.length / Math.max(1e-9, (last - first) / 1e9);
            return new Progress(r, r);
        }
        ws.sort(Comparator.comparingLong(History.Window::startNanos));
        long warmEnd = ws.get(0).startNanos();
        // The warm-up rate is counted from the first acknowledgement, not the first invocation:
        // a freshly started JVM's first call (class loading, JIT) would otherwise set the floor low.
        long warmAcks = 0;
        for (long t : acks) {
            if (t > acks[0] && t <= warmEnd) {
                warmAcks++;
            }
        }
        double warm = warmEnd <= acks[0] ? 0 : warmAcks / ((warmEnd - acks[0]) / 1e9);
        // merge [start, end + settle] windows, clipped to the run
        List<long[]> merged = new ArrayList<>();
        for (History.Window w : ws) {
            long s = w.startNanos();
            long e = w.endNanos() + settle.toNanos();
            if (!merged.isEmpty() && s <= merged.get(merged.size() - 1)[1]) {
                merged.get(merged.size() - 1)[1] = Math.max(merged.get(merged.size() - 1)[1], e);
            } else {
                merged.add(new long[] {s, e});
            }
        }
        long outsideNanos = 0;
        long cursor = warmEnd;
        for (long[] m : merged) {
            outsideNanos += Math.max(0, Math.min(m[0], last) - cursor);
            cursor = Math.max(cursor, m[1]);
        }
        outsideNanos += Math.max(0, last - cursor);
        long outsideAcks = 0;
        for (long t : acks) {
            if (t <= warmEnd) {
                continue;
            }
            boolean in = false;
            for (long[] m : merged) {
                if (t >= m[0] && t <= m[1]) {
                    in = true;
                    break;
                }
            }
            if (!in) {
                outsideAcks++;
            }
        }
        double outside = outsideNanos < 500_000_000L ? Double.NaN : outsideAcks / (outsideNanos / 1e9);
        return new Progress(warm, outside);
    }
}
