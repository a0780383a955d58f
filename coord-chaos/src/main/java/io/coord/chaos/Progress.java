package io.coord.chaos;

import io.coord.test.History;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Predicate;

/**
 * Throughput of acknowledged operations in the fault-free warm-up, outside the fault windows, and
 * inside the windows of faults the recipe can ride out (a cut-off or pause of one of several
 * workers, a follower kill that leaves a quorum). A window here lasts from injection until healed
 * plus {@code settle} ({@link ChaosContext#SETTLE}), the time clients need to reconnect or start a
 * new session; everything after the warm-up that is not in such a window is "outside". The floor
 * (see {@link #FLOOR_FRACTION}) is a share of the warm-up rate, as etcd's robustness suite does
 * with its MinimalQPS: a run that stalled is a failed run, and so is a run that left too little
 * time outside its windows to tell ({@link #MIN_OUTSIDE}).
 *
 * @param warmup         acknowledgements per second before the first fault
 * @param outside        per second outside every window; NaN if there was less than {@link #MIN_OUTSIDE} of it
 * @param inside         per second inside the windows of faults the recipe can ride out; NaN if
 *                       none (or less than {@link #MIN_INSIDE} of them), then it is not checked
 * @param outsideSeconds how much time was outside the windows
 */
public record Progress(double warmup, double outside, double inside, double outsideSeconds) {
    /** Outside (and inside ridable) fault windows the run must keep at least this share of its warm-up rate. */
    public static final double FLOOR_FRACTION = 0.5;
    /** Less time than this outside the windows and the floor cannot be checked: the run fails. */
    public static final Duration MIN_OUTSIDE = Duration.ofSeconds(2);
    /** Less time than this in ridable windows and the inside rate is not checked. */
    public static final Duration MIN_INSIDE = Duration.ofSeconds(1);

    /** No inside figure: the figures of a scenario that checks the floor outside the windows only. */
    public Progress(double warmup, double outside) {
        this(warmup, outside, Double.NaN, Double.isNaN(outside) ? 0 : Double.POSITIVE_INFINITY);
    }

    public double floor() {
        return warmup * FLOOR_FRACTION;
    }

    /** Whether the floor held outside the windows (which must have lasted long enough) and inside ridable ones. */
    public boolean ok() {
        return warmup > 0 && outside >= floor() && (Double.isNaN(inside) || inside >= floor());
    }

    /** Why {@link #ok()} is false; empty if it is true. */
    public List<String> problems() {
        List<String> p = new ArrayList<>();
        if (!(warmup > 0)) {
            p.add("no progress in the warm-up");
        } else if (Double.isNaN(outside)) {
            p.add(String.format("only %.1f s outside fault windows (< %d s): the throughput floor cannot be checked",
                    outsideSeconds, MIN_OUTSIDE.toSeconds()));
        } else if (outside < floor()) {
            p.add(String.format("too little progress outside fault windows: %.1f/s < floor %.1f/s", outside, floor()));
        }
        if (warmup > 0 && !Double.isNaN(inside) && inside < floor()) {
            p.add(String.format("too little progress inside the fault windows the recipe can ride out: %.1f/s < floor %.1f/s",
                    inside, floor()));
        }
        return p;
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

    /** The floor outside the windows only. */
    static Progress of(History history, Duration settle) {
        return of(history, settle, w -> false);
    }

    /**
     * The figures of {@code history}; windows {@code ridable} accepts are faults the recipe can
     * make progress through, and the floor holds inside them too (where several overlap once
     * extended by {@code settle}, all of them must be ridable).
     */
    static Progress of(History history, Duration settle, Predicate<History.Window> ridable) {
        return of(history.ops(), history.windows(), settle, ridable);
    }

    /** The figures of {@code ops} against fault windows {@code windows}: see {@link #of(History, Duration, Predicate)}. */
    static Progress of(List<History.Op> ops, List<History.Window> windows, Duration settle, Predicate<History.Window> ridable) {
        long[] acks = ops.stream().filter(o -> o.outcome() == History.Outcome.OK).mapToLong(History.Op::completeNanos).sorted().toArray();
        if (acks.length == 0) {
            return new Progress(0, 0, Double.NaN, 0);
        }
        long first = ops.stream().mapToLong(History.Op::invokeNanos).min().orElseThrow();
        long last = acks[acks.length - 1];
        List<History.Window> ws = new ArrayList<>(windows);
        if (ws.isEmpty()) {
            double r = acks.length / Math.max(1e-9, (last - first) / 1e9);
            return new Progress(r, r, Double.NaN, (last - first) / 1e9);
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
        // merge [start, end + settle] windows, clipped to the run; {start, end, ridable ? 1 : 0}
        List<long[]> merged = new ArrayList<>();
        for (History.Window w : ws) {
            long s = w.startNanos();
            long e = w.endNanos() + settle.toNanos();
            long ok = ridable.test(w) ? 1 : 0;
            long[] tail = merged.isEmpty() ? null : merged.get(merged.size() - 1);
            if (tail != null && s <= tail[1]) {
                tail[1] = Math.max(tail[1], e);
                tail[2] &= ok;
            } else {
                merged.add(new long[] {s, e, ok});
            }
        }
        long outsideNanos = 0;
        long insideNanos = 0;
        long cursor = warmEnd;
        for (long[] m : merged) {
            outsideNanos += Math.max(0, Math.min(m[0], last) - cursor);
            cursor = Math.max(cursor, m[1]);
            if (m[2] == 1) {
                insideNanos += Math.max(0, Math.min(m[1], last) - m[0]);
            }
        }
        outsideNanos += Math.max(0, last - cursor);
        long outsideAcks = 0;
        long insideAcks = 0;
        for (long t : acks) {
            if (t <= warmEnd) {
                continue;
            }
            long[] in = null;
            for (long[] m : merged) {
                if (t >= m[0] && t <= m[1]) {
                    in = m;
                    break;
                }
            }
            if (in == null) {
                outsideAcks++;
            } else if (in[2] == 1) {
                insideAcks++;
            }
        }
        double outside = outsideNanos < MIN_OUTSIDE.toNanos() ? Double.NaN : outsideAcks / (outsideNanos / 1e9);
        double inside = insideNanos < MIN_INSIDE.toNanos() ? Double.NaN : insideAcks / (insideNanos / 1e9);
        return new Progress(warm, outside, inside, outsideNanos / 1e9);
    }
}
