package io.coord.test;

import io.coord.ConnectionLostException;
import io.coord.CoordTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.apache.zookeeper.KeeperException;

/**
 * The history of a fault run, kept by the controlling test (not by the processes under test), in
 * the manner of Jepsen and etcd's robustness suite.
 *
 * <p>Each operation is {@linkplain #invoke invoked} (time taken before the request goes out) and
 * then completed once: {@link Handle#ok}, {@link Handle#fail} (it certainly did not happen) or
 * {@link Handle#info} (indeterminate: it may or may not have happened). {@link #classify} decides
 * between the last two for an exception: a lost connection or a timeout is <em>never</em> a
 * failure, because the write may have been applied before the reply was lost (measured here
 * during leader kills: two operations threw yet committed).
 *
 * <p>Times are this JVM's {@link System#nanoTime()}; a child process's clock is not comparable by
 * specification, so the controller records both ends. Thread-safe.
 */
public final class History {
    /** How an operation ended. */
    public enum Outcome {
        /** Acknowledged: it happened. */
        OK,
        /** Definitely did not happen. */
        FAIL,
        /** Indeterminate: may or may not have happened. */
        INFO,
        /** Not completed yet (treated as {@link #INFO} by the checkers). */
        PENDING
    }

    /**
     * One operation. Times are nanoTime of the controller; {@code completeNanos} is 0 while pending.
     */
    public record Op(long index, String process, String op, Object value, long invokeNanos, long completeNanos,
                     Outcome outcome, Object result, Throwable error) {
    }

    /** Counts by outcome. */
    public record Counts(long ok, long fail, long info, long pending) {
        public long total() {
            return ok + fail + info + pending;
        }
    }

    /** A named interval of the run during which a fault was applied. */
    public record Window(String name, long startNanos, long endNanos) {
    }

    private final LongSupplier clock;
    private final AtomicLong nextIndex = new AtomicLong();
    private final List<Op> completed = Collections.synchronizedList(new ArrayList<>());
    private final Set<Handle> pending = Collections.synchronizedSet(new HashSet<>());
    private final List<Window> windows = Collections.synchronizedList(new ArrayList<>());

    public History() {
        this(System::nanoTime);
    }

    /** For tests of the checkers: a controllable clock. */
    History(LongSupplier clock) {
        this.clock = clock;
    }

    /** Records the invocation of {@code op} by {@code process} with {@code value}; complete the handle once. */
    public Handle invoke(String process, String op, Object value) {
        Objects.requireNonNull(process, "process");
        Objects.requireNonNull(op, "op");
        Handle h = new Handle(nextIndex.getAndIncrement(), process, op, value, clock.getAsLong());
        pending.add(h);
        return h;
    }

    /** The completion side of one invocation. Exactly one of its methods may be called, once. */
    public final class Handle {
        private final long index;
        private final String process;
        private final String op;
        private final Object value;
        private final long invokeNanos;
        private final AtomicBoolean done = new AtomicBoolean();

        private Handle(long index, String process, String op, Object value, long invokeNanos) {
            this.index = index;
            this.process = process;
            this.op = op;
            this.value = value;
            this.invokeNanos = invokeNanos;
        }

        public void ok(Object result) {
            complete(Outcome.OK, result, null);
        }

        /** The operation certainly did not take effect (e.g. a version conflict). */
        public void fail(Throwable error) {
            complete(Outcome.FAIL, null, error);
        }

        /** The operation may or may not have taken effect. */
        public void info(Throwable error) {
            complete(Outcome.INFO, null, error);
        }

        /** Completes with the outcome {@link History#classify} gives {@code error}. */
        public void failed(Throwable error) {
            complete(classify(error), null, error);
        }

        private void complete(Outcome outcome, Object result, Throwable error) {
            long now = clock.getAsLong();
            if (!done.compareAndSet(false, true)) {
                throw new IllegalStateException("operation " + index + " (" + process + " " + op + " " + value + ") was already completed");
            }
            completed.add(new Op(index, process, op, value, invokeNanos, now, outcome, result, error));
            pending.remove(this);
        }
    }

    /**
     * {@link Outcome#INFO} for errors after which the operation may have been applied — a lost
     * connection ({@link ConnectionLostException}, {@link KeeperException.ConnectionLossException}),
     * a timeout ({@link KeeperException.OperationTimeoutException},
     * {@link KeeperException.RequestTimeoutException}, {@link CoordTimeoutException},
     * {@link TimeoutException}) anywhere in the cause chain — and {@link Outcome#FAIL} for the rest.
     */
    public static Outcome classify(Throwable error) {
        Set<Throwable> seen = new HashSet<>();
        for (Throwable t = error; t != null && seen.add(t); t = t.getCause()) {
            if (t instanceof ConnectionLostException
                    || t instanceof CoordTimeoutException
                    || t instanceof TimeoutException
                    || t instanceof KeeperException.ConnectionLossException
                    || t instanceof KeeperException.OperationTimeoutException
                    || t instanceof KeeperException.RequestTimeoutException) {
                return Outcome.INFO;
            }
        }
        return Outcome.FAIL;
    }

    /** Marks the start of a fault window; close the returned handle when the fault is healed. */
    public FaultWindow fault(String name) {
        return new FaultWindow(name, clock.getAsLong());
    }

    /** An open fault window. */
    public final class FaultWindow implements AutoCloseable {
        private final String name;
        private final long start;
        private final AtomicBoolean closed = new AtomicBoolean();

        private FaultWindow(String name, long start) {
            this.name = name;
            this.start = start;
        }

        @Override
        public void close() {
            if (closed.compareAndSet(false, true)) {
                windows.add(new Window(name, start, clock.getAsLong()));
            }
        }
    }

    /** Every operation: completed ones in completion order, then the pending ones (outcome PENDING). */
    public List<Op> ops() {
        List<Op> all;
        synchronized (completed) {
            all = new ArrayList<>(completed);
        }
        synchronized (pending) {
            for (Handle h : pending) {
                all.add(new Op(h.index, h.process, h.op, h.value, h.invokeNanos, 0, Outcome.PENDING, null, null));
            }
        }
        return all;
    }

    public List<Window> windows() {
        synchronized (windows) {
            return List.copyOf(windows);
        }
    }

    public Counts counts() {
        return counts(null);
    }

    /** Counts for operations named {@code op} (all operations if null). */
    public Counts counts(String op) {
        long ok = 0, fail = 0, info = 0, pend = 0;
        for (Op o : ops()) {
            if (op != null && !op.equals(o.op())) {
                continue;
            }
            switch (o.outcome()) {
                case OK -> ok++;
                case FAIL -> fail++;
                case INFO -> info++;
                case PENDING -> pend++;
            }
        }
        return new Counts(ok, fail, info, pend);
    }

    /**
     * Result of {@link #checkCounter}: a counter incremented by {@code op} must end within
     * [acknowledged, acknowledged + indeterminate].
     */
    public record CounterCheck(long acknowledged, long indeterminate, long observed) {
        public boolean valid() {
            return observed >= acknowledged && observed <= acknowledged + indeterminate;
        }

        /** Lost increments: acknowledged ones missing from the final value. */
        public long lost() {
            return Math.max(0, acknowledged - observed);
        }

        public void assertValid() {
            if (!valid()) {
                throw new AssertionError("counter ended at " + observed + ", outside [" + acknowledged + ", "
                        + (acknowledged + indeterminate) + "] (acknowledged " + acknowledged + ", indeterminate " + indeterminate + ")");
            }
        }
    }

    /** Checks a counter incremented once by each {@code op} against its final value. */
    public CounterCheck checkCounter(String op, long finalValue) {
        Counts c = counts(op);
        return new CounterCheck(c.ok(), c.info() + c.pending(), finalValue);
    }

    /**
     * Result of {@link #checkSet}: {@code lost} are acknowledged writes absent at the end,
     * {@code invented} are present values nobody wrote, {@code failedButPresent} are values whose
     * write was reported as definitely failed, {@code indeterminatePresent} counts indeterminate
     * writes that did take effect (allowed).
     */
    public record SetCheck(Set<Object> lost, Set<Object> invented, Set<Object> failedButPresent, long indeterminatePresent) {
        public boolean valid() {
            return lost.isEmpty() && invented.isEmpty() && failedButPresent.isEmpty();
        }

        public void assertValid() {
            if (!valid()) {
                throw new AssertionError("history check failed: lost " + lost + ", invented " + invented
                        + ", failed writes present " + failedButPresent);
            }
        }
    }

    /**
     * "Nothing lost, nothing invented" for writes named {@code writeOp} (their value is what they
     * add): every acknowledged value must be in {@code finalValues}, every final value must have been
     * written by some invocation, and no definitely-failed write may be present.
     */
    public SetCheck checkSet(String writeOp, Collection<?> finalValues) {
        Set<Object> present = new HashSet<>(finalValues);
        Set<Object> acknowledged = new HashSet<>();
        Set<Object> failed = new HashSet<>();
        Set<Object> written = new HashSet<>();
        Set<Object> indeterminate = new HashSet<>();
        for (Op o : ops()) {
            if (!writeOp.equals(o.op())) {
                continue;
            }
            written.add(o.value());
            switch (o.outcome()) {
                case OK -> acknowledged.add(o.value());
                case FAIL -> failed.add(o.value());
                case INFO, PENDING -> indeterminate.add(o.value());
            }
        }
        Set<Object> lost = new HashSet<>(acknowledged);
        lost.removeAll(present);
        Set<Object> invented = new HashSet<>(present);
        invented.removeAll(written);
        Set<Object> failedPresent = new HashSet<>(failed);
        failedPresent.retainAll(present);
        failedPresent.removeAll(acknowledged); // the same value also written successfully elsewhere
        failedPresent.removeAll(indeterminate);
        long indetPresent = indeterminate.stream().filter(present::contains).count();
        return new SetCheck(lost, invented, failedPresent, indetPresent);
    }

    /**
     * Acknowledged operations per second before the first fault window, inside fault windows, and
     * after the last one. {@code NaN} for a segment of zero length.
     */
    public record Throughput(double before, double during, double after, long faults) {
        /**
         * Fails if any segment that exists made less progress than its floor (ops/s): a run that
         * stalled is a failed run, not a pass.
         */
        public void assertAtLeast(double beforeFloor, double duringFloor, double afterFloor) {
            List<String> bad = new ArrayList<>();
            check(bad, "before", before, beforeFloor);
            check(bad, "during", during, duringFloor);
            check(bad, "after", after, afterFloor);
            if (!bad.isEmpty()) {
                throw new AssertionError("too little progress: " + String.join(", ", bad) + " (" + this + ")");
            }
        }

        private static void check(List<String> bad, String name, double rate, double floor) {
            if (!Double.isNaN(rate) && rate < floor) {
                bad.add(String.format("%s %.1f ops/s < %.1f", name, rate, floor));
            }
        }
    }

    /** Throughput of acknowledged operations named {@code op} (all if null) around the fault windows. */
    public Throughput throughput(String op) {
        List<Op> all = ops();
        List<Window> ws = windows();
        if (all.isEmpty()) {
            return new Throughput(0, ws.isEmpty() ? Double.NaN : 0, Double.NaN, ws.size());
        }
        long first = all.stream().mapToLong(Op::invokeNanos).min().orElseThrow();
        long last = all.stream().mapToLong(o -> o.completeNanos() == 0 ? o.invokeNanos() : o.completeNanos()).max().orElseThrow();
        if (ws.isEmpty()) {
            return new Throughput(rate(all, op, List.of(new long[] {first, last}), true), Double.NaN, Double.NaN, 0);
        }
        long firstFault = ws.stream().mapToLong(Window::startNanos).min().orElseThrow();
        long lastFault = ws.stream().mapToLong(Window::endNanos).max().orElseThrow();
        List<long[]> during = new ArrayList<>();
        for (Window w : ws) {
            during.add(new long[] {w.startNanos(), w.endNanos()});
        }
        return new Throughput(rate(all, op, List.of(new long[] {first, firstFault}), true), rate(all, op, during, false),
                rate(all, op, List.of(new long[] {lastFault, last}), false), ws.size());
    }

    /**
     * Acks per second inside {@code intervals}; an ack on a boundary belongs to the segment that
     * ends there, so none is counted twice ({@code closedStart} only for the first segment).
     */
    private static double rate(List<Op> all, String op, List<long[]> intervals, boolean closedStart) {
        long nanos = 0;
        long count = 0;
        for (long[] in : intervals) {
            nanos += Math.max(0, in[1] - in[0]);
        }
        if (nanos == 0) {
            return Double.NaN;
        }
        for (Op o : all) {
            if (o.outcome() != Outcome.OK || (op != null && !op.equals(o.op()))) {
                continue;
            }
            for (long[] in : intervals) {
                long t = o.completeNanos();
                if ((t > in[0] || (closedStart && t == in[0])) && t <= in[1]) {
                    count++;
                    break;
                }
            }
        }
        return count / (nanos / 1e9);
    }

    /** The longest time between two consecutive acknowledgements (a stall), for measured figures. */
    public Duration longestGapBetweenAcks() {
        long[] acks = ops().stream().filter(o -> o.outcome() == Outcome.OK).mapToLong(Op::completeNanos).sorted().toArray();
        long gap = 0;
        for (int i = 1; i < acks.length; i++) {
            gap = Math.max(gap, acks[i] - acks[i - 1]);
        }
        return Duration.ofNanos(gap);
    }
}
