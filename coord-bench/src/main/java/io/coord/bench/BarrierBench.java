package io.coord.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.coord.CoordClient;
import io.coord.barrier.BarrierOptions;
import io.coord.barrier.BarrierSeat;
import io.coord.barrier.DoubleBarrier;
import io.coord.bench.BenchContext.Paired;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.ToDoubleFunction;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.barriers.DistributedDoubleBarrier;

/**
 * {@code barrier.double}: how long a double barrier takes to let everyone through once the last
 * member arrives, for 16 and 32 members (the system property {@value #SIZES_PROPERTY} sets other
 * counts, e.g. "4,32,128" for the scale curve), each on its own client. A cycle: all members but one call
 * {@code enter} and block; once they all wait (read from the server), the last member calls
 * {@code enter}; the figure is the time from that call until every member has returned. The same
 * for {@code leave}. Reported: the median and the maximum over all cycles of all rounds.
 *
 * <p>Ours: {@link DoubleBarrier}, one object per member reused cycle after cycle on one name (each
 * cycle is a new generation). Peer: Curator's {@code DistributedDoubleBarrier} on the same Curator
 * clients (every Coord client owns one), on a fresh path every cycle (reusing one path across
 * rounds is where its known races are).
 *
 * <p>Besides the times, each window's cost as the server counted it (not noisy): the requests it
 * received from the last member and from the others ({@code cons}), and the watch notifications
 * it sent ({@code mntr}), from just before the last member's call until all returned. Both sides
 * run on the same clients, measured the same way.
 *
 * <p>What differs: in enter, our last arrival makes 4 requests (a look at the root and the seats,
 * one transaction taking its seat with READY, and its seat lease's watch), Curator's 4 (two of
 * them creates, each a disk sync); our N-1 waiters return on the decision node's data-change event
 * with the server's zxid (a server fact, issue 18; until then each read the decision first, one
 * round trip: the fix for Curator's early return on a spurious wake-up, GH-1290), as Curator's
 * return on the event. That node is each waiter's one watch (one event each, as Curator's; until
 * the second pass of issue 18 each also got the root's change). In leave, ours is 3 requests for the
 * last and one read per waiter, Curator's about 2 per member. With every member and the server
 * in this one JVM on a small machine, the N-1 reads and their thread wake-ups are what the enter
 * figures mostly show.
 */
final class BarrierBench implements Benchmark {
    static final String NAME = "barrier.double";
    static final String PEER = "curator";
    /** The member counts, comma-separated (the scale curve runs "4,32,128"); each member is its own client. */
    static final String SIZES_PROPERTY = "coord.bench.barrier.sizes";
    static final String SIZES_DEFAULT = "16,32";
    /** Cycles per round and side; {@code --ops} sets it, up to {@value #MAX_CYCLES}. */
    static final int DEFAULT_CYCLES = 3;
    /** A cycle is 2 x 16..32 barrier passages and two settles of the others: {@code --ops 20} must not mean 20 of them. */
    static final int MAX_CYCLES = 5;
    private static final Duration WAIT = Duration.ofSeconds(60);
    /**
     * After the server shows every other member waiting, this much more before the last one
     * arrives, both sides alike: the figure is the release, not the tail of the others' arrival
     * (their watches, leases, JIT and GC work), which otherwise spills into it on a loaded machine.
     */
    private static final long SETTLE_MS = 250;
    private static final ObjectMapper JSON = new ObjectMapper();

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "double barrier, last member's enter (or leave) until all are released, " + sizes()
                + " members; peer: Curator DistributedDoubleBarrier";
    }

    /** The member counts from {@value #SIZES_PROPERTY}; a bad value fails naming it. */
    static List<Integer> sizes() {
        String value = System.getProperty(SIZES_PROPERTY, SIZES_DEFAULT);
        List<Integer> sizes = new ArrayList<>();
        for (String part : value.split(",")) {
            int n;
            try {
                n = Integer.parseInt(part.trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(SIZES_PROPERTY + " must be comma-separated member counts in 2.."
                        + DoubleBarrier.MAX_PARTIES + ", got \"" + value + "\" (\"" + part.trim() + "\" is not a number)");
            }
            if (n < 2 || n > DoubleBarrier.MAX_PARTIES) {
                throw new IllegalArgumentException(SIZES_PROPERTY + " must be comma-separated member counts in 2.."
                        + DoubleBarrier.MAX_PARTIES + ", got \"" + value + "\" (" + n + " is out of range)");
            }
            sizes.add(n);
        }
        return sizes;
    }

    /** One side of the comparison: N members, each on its own client. */
    private interface Side extends AutoCloseable {
        /** Prepares cycle {@code cycle} (a fresh path for the peer). */
        void cycle(int cycle);

        void enter(int member) throws Exception;

        void leave(int member) throws Exception;

        /** Whether the server shows {@code count} members waiting in enter (excluding the last). */
        boolean entered(int count) throws Exception;

        /** Whether the server shows every member but the last one waiting in leave. */
        boolean leftButLast(int count) throws Exception;

        @Override
        void close();
    }

    /**
     * One measured window (from the last member's call until all returned): its time, the requests
     * the server received in it from the last member and from the others, and the watch
     * notifications it sent.
     */
    record Window(double ms, long lastRequests, long otherRequests, long watchEvents) {
        long requests() {
            return lastRequests + otherRequests;
        }
    }

    /** The windows of one round of one side, cycle by cycle. */
    record Cycles(List<Window> enter, List<Window> leave) {
        Cycles {
            enter = List.copyOf(enter);
            leave = List.copyOf(leave);
        }

        @Override
        public String toString() {
            return "enter " + show(enter) + ", leave " + show(leave);
        }

        private static String show(List<Window> w) {
            return w.stream().map(x -> String.format(Locale.ROOT, "%.1f ms/%d+%d req/%d ev", x.ms(), x.lastRequests(),
                    x.otherRequests(), x.watchEvents())).toList().toString();
        }
    }

    @Override
    public List<Figure> run(BenchContext ctx) throws InterruptedException {
        int cycles = Math.min(MAX_CYCLES, ctx.ops(DEFAULT_CYCLES));
        List<Figure> figures = new ArrayList<>();
        for (int n : sizes()) {
            ExecutorService pool = Executors.newFixedThreadPool(n, r -> {
                Thread t = new Thread(r, "bench-barrier-member");
                t.setDaemon(true);
                return t;
            });
            try (Ours ours = new Ours(ctx, n); Peer peer = new Peer(ours.clients, n)) {
                Counting counting = new Counting(new ServerCounters(ctx.connectString()),
                        ours.clients.stream().map(c -> ServerCounters.session(c.curator())).toList());
                Paired<Cycles> r = ctx.alternate(
                        round -> cycles(pool, ours, counting, n, cycles, round),
                        round -> cycles(pool, peer, counting, n, cycles, round));
                for (boolean enter : new boolean[] {true, false}) {
                    String phase = (enter ? "enter." : "leave.") + n;
                    figures.add(figure(phase + ".p50", "ms", r, enter, Window::ms, false));
                    figures.add(figure(phase + ".max", "ms", r, enter, Window::ms, true));
                    figures.add(figure(phase + ".requests", "requests", r, enter, w -> w.requests(), false));
                    figures.add(figure(phase + ".requests.last", "requests", r, enter, w -> w.lastRequests(), false));
                    figures.add(figure(phase + ".watchEvents", "events", r, enter, w -> w.watchEvents(), false));
                }
            } finally {
                pool.shutdownNow();
                pool.awaitTermination(10, TimeUnit.SECONDS);
            }
        }
        return figures;
    }

    private static Figure figure(String metric, String unit, Paired<Cycles> r, boolean enter, ToDoubleFunction<Window> f, boolean max) {
        return Figure.lower(NAME, metric, unit, summary(r.ours(), enter, f, max), summary(r.peer(), enter, f, max), PEER);
    }

    /** The median (or the maximum) over every cycle of every round. */
    private static double summary(List<Cycles> rounds, boolean enter, ToDoubleFunction<Window> f, boolean max) {
        List<Double> all = new ArrayList<>();
        for (Cycles c : rounds) {
            for (Window w : enter ? c.enter() : c.leave()) {
                all.add(f.applyAsDouble(w));
            }
        }
        return max ? Collections.max(all) : Stats.median(all, Double::doubleValue);
    }

    /** The server's counters, and the sessions of the members (the same clients serve both sides; the last member is the last). */
    private record Counting(ServerCounters server, List<Long> sessions) {
        long last() {
            return sessions.get(sessions.size() - 1);
        }

        List<Long> others() {
            return sessions.subList(0, sessions.size() - 1);
        }
    }

    private static Cycles cycles(ExecutorService pool, Side side, Counting counting, int n, int cycles, int round)
            throws InterruptedException {
        List<Window> enter = new ArrayList<>();
        List<Window> leave = new ArrayList<>();
        for (int c = 0; c < cycles; c++) {
            side.cycle((round + 1) * 1000 + c);
            enter.add(phase(pool, side, counting, n, true));
            leave.add(phase(pool, side, counting, n, false));
        }
        return new Cycles(enter, leave);
    }

    /**
     * One phase: n-1 members block, then the last arrives; the time from its call until all
     * returned, and what the server counted from just before that call until just after.
     */
    private static Window phase(ExecutorService pool, Side side, Counting counting, int n, boolean enter) throws InterruptedException {
        long[] released = new long[n];
        List<Future<?>> others = new ArrayList<>();
        for (int m = 0; m < n - 1; m++) {
            int member = m;
            others.add(pool.submit(() -> {
                if (enter) {
                    side.enter(member);
                } else {
                    side.leave(member);
                }
                released[member] = System.nanoTime();
                return null;
            }));
        }
        awaitServer(enter ? side::entered : side::leftButLast, n - 1, others);
        Thread.sleep(SETTLE_MS); // the schedule: let the last waiter settle into its wait
        ServerCounters.Reading before = counting.server().read();
        long start = System.nanoTime();
        try {
            if (enter) {
                side.enter(n - 1);
            } else {
                side.leave(n - 1);
            }
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("the last member's " + (enter ? "enter" : "leave") + " failed: " + e, e);
        }
        released[n - 1] = System.nanoTime();
        for (Future<?> f : others) {
            try {
                f.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                throw new IllegalStateException("a member's " + (enter ? "enter" : "leave") + " failed: " + e.getCause(), e.getCause());
            } catch (TimeoutException e) {
                throw new IllegalStateException("a member was not released within " + WAIT);
            }
        }
        long last = Arrays.stream(released).max().orElseThrow();
        ServerCounters.Reading after = counting.server().read();
        return new Window((last - start) / 1e6, after.requests(before, counting.last()), after.requests(before, counting.others()),
                after.watchEvents(before));
    }

    @FunctionalInterface
    private interface Probe {
        boolean holds(int count) throws Exception;
    }

    private static void awaitServer(Probe probe, int count, List<Future<?>> members) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (true) {
            try {
                if (probe.holds(count)) {
                    return;
                }
            } catch (InterruptedException e) {
                throw e;
            } catch (Exception e) {
                // not there yet (a node not created yet): poll again
            }
            for (Future<?> f : members) {
                if (f.isDone()) {
                    try {
                        f.get();
                    } catch (ExecutionException e) {
                        throw new IllegalStateException("a member failed while the others gathered: " + e.getCause(), e.getCause());
                    }
                }
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("the members did not all block within " + WAIT);
            }
            Thread.sleep(5);
        }
    }

    /** Coord's double barrier: one member object per client, one name, a generation per cycle. */
    private static final class Ours implements Side {
        private final String name;
        final List<CoordClient> clients = new ArrayList<>();
        private final List<DoubleBarrier> members = new ArrayList<>();
        private final BarrierSeat[] seats;
        private final CuratorFramework admin;

        Ours(BenchContext ctx, int n) throws InterruptedException {
            this.name = "bench-" + n;
            this.seats = new BarrierSeat[n];
            for (int i = 0; i < n; i++) {
                CoordClient client = ctx.newCoordClient();
                clients.add(client);
                members.add(DoubleBarrier.create(client, name, n, BarrierOptions.builder().memberId("member-" + i).build()));
            }
            admin = clients.get(0).curator();
        }

        @Override
        public void cycle(int cycle) {
            // one name for all cycles: each enter after a finished round opens the next generation
        }

        @Override
        public void enter(int member) throws Exception {
            seats[member] = members.get(member).enter(WAIT);
        }

        @Override
        public void leave(int member) throws Exception {
            seats[member].leave(WAIT);
        }

        /** The current generation's members node, if the generation is open. */
        private String openMembers() throws Exception {
            var record = JSON.readTree(admin.getData().forPath("/barriers/" + name));
            if (!"OPEN".equals(record.get("phase").asText()) && !"READY".equals(record.get("phase").asText())) {
                return null;
            }
            return "/barriers/" + name + "/" + String.format("%010d", record.get("generation").asLong()) + "/members";
        }

        @Override
        public boolean entered(int count) throws Exception {
            String members = openMembers();
            return members != null && admin.getChildren().forPath(members).stream().filter(c -> c.startsWith("m-")).count() >= count;
        }

        @Override
        public boolean leftButLast(int count) throws Exception {
            String members = openMembers();
            return members != null && admin.getChildren().forPath(members).stream().filter(c -> c.startsWith("left-")).count() >= count;
        }

        @Override
        public void close() {
            for (BarrierSeat seat : seats) {
                if (seat != null) {
                    seat.close();
                }
            }
            clients.forEach(CoordClient::close);
        }
    }

    /** Curator's DistributedDoubleBarrier: a fresh path per cycle, plain Curator clients. */
    private static final class Peer implements Side {
        private static final Field OUR_PATH = ourPathField();
        private final int n;
        private final List<CuratorFramework> clients = new ArrayList<>();
        private final DistributedDoubleBarrier[] members;
        private String path;

        /**
         * On the same Curator clients as ours (each {@link CoordClient} owns a plain
         * {@code CuratorFramework}): identical connections and settings, and within the server's
         * limit of 60 connections from one address.
         */
        Peer(List<CoordClient> coordClients, int n) {
            this.n = n;
            this.members = new DistributedDoubleBarrier[n];
            coordClients.forEach(c -> clients.add(c.curator()));
        }

        private static Field ourPathField() {
            try {
                Field f = DistributedDoubleBarrier.class.getDeclaredField("ourPath");
                f.setAccessible(true);
                return f;
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("Curator's DistributedDoubleBarrier has no ourPath field any more", e);
            }
        }

        @Override
        public void cycle(int cycle) {
            path = "/bench/barrier/curator-" + n + "/c" + cycle;
            for (int i = 0; i < n; i++) {
                members[i] = new DistributedDoubleBarrier(clients.get(i), path, n);
            }
        }

        @Override
        public void enter(int member) throws Exception {
            if (!members[member].enter(WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("Curator enter timed out");
            }
        }

        @Override
        public void leave(int member) throws Exception {
            if (!members[member].leave(WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("Curator leave timed out");
            }
        }

        private List<String> seats() throws Exception {
            List<String> children = new ArrayList<>(clients.get(0).getChildren().forPath(path));
            children.remove("ready");
            Collections.sort(children);
            return children;
        }

        @Override
        public boolean entered(int count) throws Exception {
            return seats().size() >= count;
        }

        /**
         * Curator's leavers delete their node and wait, except the lowest, which keeps its node
         * until it is alone: all but the last are waiting when only the last member's node (and
         * the lowest, if that is another member) remain.
         */
        @Override
        public boolean leftButLast(int count) throws Exception {
            String last = ((String) OUR_PATH.get(members[n - 1]));
            last = last.substring(last.lastIndexOf('/') + 1);
            List<String> seats = seats();
            return seats.contains(last) && (seats.size() == 1 || (seats.size() == 2 && !seats.get(0).equals(last)));
        }

        @Override
        public void close() {
            // the clients belong to ours
        }
    }
}
