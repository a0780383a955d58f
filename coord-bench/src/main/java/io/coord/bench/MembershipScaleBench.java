package io.coord.bench;

import io.coord.CoordClient;
import io.coord.membership.Group;
import io.coord.membership.GroupListener;
import io.coord.membership.GroupView;
import io.coord.membership.MemberInfo;
import io.coord.membership.Membership;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.nodes.GroupMember;
import org.apache.curator.retry.ExponentialBackoffRetry;

/**
 * {@code membership.scale}: a group of N members, each its own client and session (and each an
 * observer of the others), as a new user would run it, for N in {@value #SIZES_DEFAULT} (the
 * system property {@value #SIZES_PROPERTY} overrides). Per round and side: set up N members, then
 * {@code ops} times member 0 leaves and joins again, timing leave→seen and join→seen by all N-1
 * others (the last one to see it), then close all N one after another, timed (teardown).
 *
 * <ul>
 *   <li>ours: {@link Group} and {@link Membership} per client; "seen" is the observer's listener
 *       ({@code onLeft}/{@code onJoined}, run on the group's thread).</li>
 *   <li>peer: Curator {@link GroupMember} per Curator client, with no listener API, so one thread
 *       polls the caches of the observers that have not seen it yet every {@value #POLL_MICROS} µs.</li>
 * </ul>
 * Sides run one after the other (never both fleets at once: 500 clients each), alternating which
 * goes first per round.
 */
final class MembershipScaleBench implements Benchmark {
    static final String NAME = "membership.scale";
    static final String PEER = MembershipBench.PEER;
    static final String SIZES_PROPERTY = "coord.bench.membership.sizes";
    static final String SIZES_DEFAULT = "10,100,500";
    static final int DEFAULT_OPS = 10;
    static final int MAX_ROUNDS = 3;
    static final long POLL_MICROS = MembershipBench.POLL_MICROS;
    private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(60);
    private static final String GROUP = "bench-scale";
    private static final String PEER_PATH = "/bench/membership-scale/curator";

    record Meta(String host) {
    }

    /** One side's round: leave→seen and join→seen latencies, and the seconds closing all N took. */
    private record Side(RoundResult leave, RoundResult join, double teardownSeconds) {
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "groups of " + sizes() + " members, each its own client: leave and join seen by all (p50), teardown time;"
                + " peer: Curator GroupMember caches polled every " + POLL_MICROS + " us";
    }

    static List<Integer> sizes() {
        return Sizes.of(SIZES_PROPERTY, SIZES_DEFAULT, 2);
    }

    @Override
    public List<Figure> run(BenchContext ctx) throws InterruptedException {
        int ops = ctx.ops(DEFAULT_OPS);
        int rounds = Math.min(ctx.rounds(), MAX_ROUNDS);
        List<Figure> figures = new ArrayList<>();
        for (int n : sizes()) {
            List<Side> ours = new ArrayList<>();
            List<Side> peer = new ArrayList<>();
            for (int round = 0; round < rounds; round++) {
                if (round % 2 == 0) {
                    ours.add(ours(ctx, n, ops));
                    peer.add(peer(ctx, n, ops));
                } else {
                    peer.add(peer(ctx, n, ops));
                    ours.add(ours(ctx, n, ops));
                }
                ctx.progress("  " + NAME + " " + n + " round " + (round + 1) + ": ours " + ours.get(round) + " | peer " + peer.get(round));
            }
            figures.add(Figure.lower(NAME, "leave." + n + ".p50", "ms", Stats.median(ours, s -> s.leave().p50Ms()),
                    Stats.median(peer, s -> s.leave().p50Ms()), PEER));
            figures.add(Figure.lower(NAME, "join." + n + ".p50", "ms", Stats.median(ours, s -> s.join().p50Ms()),
                    Stats.median(peer, s -> s.join().p50Ms()), PEER));
            figures.add(Figure.lower(NAME, "teardown." + n, "s", Stats.median(ours, Side::teardownSeconds),
                    Stats.median(peer, Side::teardownSeconds), PEER));
        }
        return figures;
    }

    private static Side ours(BenchContext ctx, int n, int ops) throws InterruptedException {
        List<CoordClient> clients = new ArrayList<>();
        List<Group<Meta>> groups = new ArrayList<>();
        List<Membership<Meta>> members = new ArrayList<>();
        AtomicLongArray leftAt = new AtomicLongArray(n);
        AtomicLongArray joinedAt = new AtomicLongArray(n);
        CountDownLatch[] latch = {new CountDownLatch(0)};
        boolean closed = false;
        try {
            for (int i = 0; i < n; i++) {
                CoordClient c = ctx.newCoordClient();
                clients.add(c);
                Group<Meta> g = Group.open(c, GROUP, Meta.class);
                groups.add(g);
                members.add(g.join("m" + i, new Meta("10.0.0." + i)));
            }
            for (int i = 1; i < n; i++) {
                int observer = i;
                groups.get(i).addListener(new GroupListener<>() {
                    @Override
                    public void onLeft(MemberInfo<Meta> m, GroupView<Meta> view) {
                        stamp(leftAt, observer, m.id(), latch[0]);
                    }

                    @Override
                    public void onJoined(MemberInfo<Meta> m, GroupView<Meta> view) {
                        stamp(joinedAt, observer, m.id(), latch[0]);
                    }
                }, Runnable::run);
            }
            await("all see " + n + " members", () -> groups.stream().allMatch(g -> g.view().size() == n));
            Latencies leaves = new Latencies(ops);
            Latencies joins = new Latencies(ops);
            long t0 = System.nanoTime();
            for (int op = 0; op < ops; op++) {
                reset(leftAt, joinedAt);
                latch[0] = new CountDownLatch(n - 1);
                long start = System.nanoTime();
                members.get(0).leave();
                leaves.add(awaitAll(latch[0], leftAt) - start);
                reset(leftAt, joinedAt);
                latch[0] = new CountDownLatch(n - 1);
                start = System.nanoTime();
                members.set(0, groups.get(0).join("m0", new Meta("10.0.0.0")));
                joins.add(awaitAll(latch[0], joinedAt) - start);
            }
            closed = true;
            return side(ops, System.nanoTime() - t0, leaves, joins, () -> closeAll(groups, clients));
        } finally {
            if (!closed) {
                closeAll(groups, clients);
            }
        }
    }

    /** The round's figures, after timing {@code teardown} (closing all N, one after the other). */
    private static Side side(int ops, long elapsed, Latencies leaves, Latencies joins, Runnable teardown) {
        long start = System.nanoTime();
        teardown.run();
        double seconds = (System.nanoTime() - start) / 1e9;
        return new Side(RoundResult.of(ops, elapsed, leaves), RoundResult.of(ops, elapsed, joins), seconds);
    }

    private static void closeAll(List<Group<Meta>> groups, List<CoordClient> clients) {
        closePairs(groups, clients, Group::close, CoordClient::close);
    }

    /** Closes member i, then its client, one after the other, as a fleet going down would. */
    private static <A, B> void closePairs(List<A> members, List<B> clients, java.util.function.Consumer<A> closeMember,
            java.util.function.Consumer<B> closeClient) {
        for (int i = 0; i < clients.size(); i++) {
            if (i < members.size()) {
                closeMember.accept(members.get(i));
            }
            closeClient.accept(clients.get(i));
        }
    }

    private static void stamp(AtomicLongArray at, int observer, String id, CountDownLatch latch) {
        if (id.equals("m0") && at.compareAndSet(observer, 0, System.nanoTime())) {
            latch.countDown();
        }
    }

    private static void reset(AtomicLongArray... arrays) {
        for (AtomicLongArray a : arrays) {
            for (int i = 0; i < a.length(); i++) {
                a.set(i, 0);
            }
        }
    }

    private static long awaitAll(CountDownLatch latch, AtomicLongArray at) throws InterruptedException {
        if (!latch.await(WAIT_NANOS, TimeUnit.NANOSECONDS)) {
            throw new IllegalStateException("not every observer saw member 0 move within 60 s");
        }
        long last = 0;
        for (int i = 1; i < at.length(); i++) {
            last = Math.max(last, at.get(i));
        }
        return last;
    }

    private static Side peer(BenchContext ctx, int n, int ops) throws InterruptedException {
        List<CuratorFramework> clients = new ArrayList<>();
        List<GroupMember> members = new ArrayList<>();
        boolean closed = false;
        try {
            for (int i = 0; i < n; i++) {
                CuratorFramework c = CuratorFrameworkFactory.newClient(ctx.connectString(), 10_000, 10_000,
                        new ExponentialBackoffRetry(100, 3));
                clients.add(c);
                c.start();
                if (!c.blockUntilConnected(30, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("a Curator client did not connect within 30 s");
                }
                GroupMember m = new GroupMember(c, PEER_PATH, "m" + i, "{}".getBytes(StandardCharsets.UTF_8));
                m.start();
                members.add(m);
            }
            List<GroupMember> observers = members.subList(1, n);
            await("all caches see " + n + " members", () -> members.stream().allMatch(m -> m.getCurrentMembers().size() == n));
            Latencies leaves = new Latencies(ops);
            Latencies joins = new Latencies(ops);
            long t0 = System.nanoTime();
            for (int op = 0; op < ops; op++) {
                long start = System.nanoTime();
                members.get(0).close();
                leaves.add(poll(observers, false) - start);
                GroupMember again = new GroupMember(clients.get(0), PEER_PATH, "m0", "{}".getBytes(StandardCharsets.UTF_8));
                start = System.nanoTime();
                again.start();
                members.set(0, again);
                joins.add(poll(observers, true) - start);
            }
            closed = true;
            return side(ops, System.nanoTime() - t0, leaves, joins, () -> closePeers(members, clients));
        } finally {
            if (!closed) {
                closePeers(members, clients);
            }
        }
    }

    private static void closePeers(List<GroupMember> members, List<CuratorFramework> clients) {
        closePairs(members, clients, GroupMember::close, CuratorFramework::close);
    }

    /** Polls the caches that have not seen member 0 {@code present} (or absent) yet; returns when the last did. */
    private static long poll(List<GroupMember> observers, boolean present) throws InterruptedException {
        long[] seenAt = new long[observers.size()];
        int remaining = observers.size();
        long deadline = System.nanoTime() + WAIT_NANOS;
        while (remaining > 0) {
            for (int i = 0; i < seenAt.length; i++) {
                if (seenAt[i] == 0 && observers.get(i).getCurrentMembers().containsKey("m0") == present) {
                    seenAt[i] = System.nanoTime();
                    remaining--;
                }
            }
            if (remaining > 0) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("not every GroupMember cache saw member 0 move within 60 s");
                }
                if (Thread.interrupted()) {
                    throw new InterruptedException("interrupted polling GroupMember caches");
                }
                LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(POLL_MICROS));
            }
        }
        return Arrays.stream(seenAt).max().orElse(0);
    }
    private static void await(String what, BooleanSupplier done) throws InterruptedException {
        MembershipBench.await(what, done);
    }
}
