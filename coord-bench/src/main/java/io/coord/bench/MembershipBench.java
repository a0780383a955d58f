package io.coord.bench;

import io.coord.CoordClient;
import io.coord.membership.Group;
import io.coord.membership.GroupListener;
import io.coord.membership.GroupView;
import io.coord.membership.MemberInfo;
import io.coord.membership.Membership;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.apache.curator.framework.recipes.nodes.GroupMember;

/**
 * {@code membership.leave}: the time from a member leaving until every one of
 * {@value #OBSERVERS} observers (each on its own client) has seen it, per leave; p50 and p99.
 *
 * <ul>
 *   <li>ours: each observer is a {@link Group}; "seen" is its listener's {@code onLeft}. The member
 *       leaves with {@link Membership#leave()}.</li>
 *   <li>peer: each observer is a Curator {@link GroupMember} (which has no listener), polled through
 *       its cache ({@code getCurrentMembers()}) by one thread every {@value #POLL_MICROS} µs;
 *       "seen" is the first poll without the member. The member leaves by closing its own
 *       {@code GroupMember}.</li>
 * </ul>
 * Both sides use the same clients; between leaves the member joins again and every observer is
 * waited for (not timed), so each leave starts from the same state.
 */
final class MembershipBench implements Benchmark {
    static final String NAME = "membership.leave";
    static final String PEER = "curator-GroupMember-polled";
    static final int OBSERVERS = 20;
    static final int DEFAULT_OPS = 40;
    static final long POLL_MICROS = 100;
    private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(30);
    private static final String LEAVER = "leaver";
    private static final String PEER_PATH = "/bench/membership/curator";

    record Meta(String host) {
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "time from a member leaving until all " + OBSERVERS + " observers see it (p50, p99); peer: Curator GroupMember"
                + " caches polled every " + POLL_MICROS + " us";
    }

    @Override
    public List<Figure> run(BenchContext ctx) throws InterruptedException {
        int n = ctx.ops(DEFAULT_OPS);
        List<CoordClient> clients = new ArrayList<>();
        List<Group<Meta>> groups = new ArrayList<>();
        List<GroupMember> peers = new ArrayList<>();
        try {
            for (int i = 0; i <= OBSERVERS; i++) {
                clients.add(ctx.newCoordClient());
            }
            CoordClient leaverClient = clients.get(OBSERVERS);
            Ours ours = new Ours();
            for (int i = 0; i < OBSERVERS; i++) {
                Group<Meta> g = Group.open(clients.get(i), "bench-members", Meta.class);
                int observer = i;
                g.addListener(new GroupListener<>() {
                    @Override
                    public void onLeft(MemberInfo<Meta> member, GroupView<Meta> view) {
                        ours.seen(observer, member.id());
                    }
                }, Runnable::run); // on the group's own thread: the time seen is the time told
                groups.add(g);
            }
            Group<Meta> leaverGroup = Group.open(leaverClient, "bench-members", Meta.class);
            groups.add(leaverGroup);
            for (int i = 0; i < OBSERVERS; i++) {
                GroupMember peer = new GroupMember(clients.get(i).curator(), PEER_PATH, "observer-" + i,
                        "{}".getBytes(StandardCharsets.UTF_8));
                peer.start();
                peers.add(peer);
            }
            BenchContext.Paired<RoundResult> r = ctx.alternate(
                    round -> ours.round(n, leaverGroup, groups.subList(0, OBSERVERS)),
                    round -> peerRound(n, leaverClient, peers));
            return List.of(Figures.p50(NAME, "allObservers.p50", r, PEER), Figures.p99(NAME, "allObservers.p99", r, PEER));
        } finally {
            peers.forEach(GroupMember::close);
            groups.forEach(Group::close);
            clients.forEach(CoordClient::close);
        }
    }

    /** Our side: listeners stamp the time each observer is told. */
    private static final class Ours {
        private final AtomicLongArray seenAt = new AtomicLongArray(OBSERVERS);
        private volatile CountDownLatch all = new CountDownLatch(0);

        void seen(int observer, String id) {
            if (id.equals(LEAVER) && seenAt.compareAndSet(observer, 0, System.nanoTime())) {
                all.countDown();
            }
        }

        RoundResult round(int n, Group<Meta> leaverGroup, List<Group<Meta>> observers) throws InterruptedException {
            Latencies latencies = new Latencies(n);
            long roundStart = System.nanoTime();
            for (int op = 0; op < n; op++) {
                Membership<Meta> m = leaverGroup.join(LEAVER, new Meta("10.0.0.1"));
                await("all observers see the join", () -> observers.stream().allMatch(g -> g.view().contains(LEAVER)));
                for (int i = 0; i < OBSERVERS; i++) {
                    seenAt.set(i, 0);
                }
                CountDownLatch latch = new CountDownLatch(OBSERVERS);
                all = latch;
                long start = System.nanoTime();
                m.leave();
                if (!latch.await(WAIT_NANOS, TimeUnit.NANOSECONDS)) {
                    throw new IllegalStateException("not every observer saw the leave within 30 s");
                }
                long last = 0;
                for (int i = 0; i < OBSERVERS; i++) {
                    last = Math.max(last, seenAt.get(i));
                }
                latencies.add(last - start);
            }
            return RoundResult.of(n, System.nanoTime() - roundStart, latencies);
        }
    }

    /** The peer: one thread polls every observer's cache until none shows the member. */
    private static RoundResult peerRound(int n, CoordClient leaverClient, List<GroupMember> observers) throws InterruptedException {
        Latencies latencies = new Latencies(n);
        long roundStart = System.nanoTime();
        long[] seenAt = new long[observers.size()];
        for (int op = 0; op < n; op++) {
            GroupMember leaver = new GroupMember(leaverClient.curator(), PEER_PATH, LEAVER, "{}".getBytes(StandardCharsets.UTF_8));
            leaver.start();
            await("all caches see the join", () -> observers.stream().allMatch(g -> g.getCurrentMembers().containsKey(LEAVER)));
            java.util.Arrays.fill(seenAt, 0);
            long start = System.nanoTime();
            leaver.close();
            int remaining = observers.size();
            long deadline = start + WAIT_NANOS;
            while (remaining > 0) {
                for (int i = 0; i < seenAt.length; i++) {
                    if (seenAt[i] == 0 && !observers.get(i).getCurrentMembers().containsKey(LEAVER)) {
                        seenAt[i] = System.nanoTime();
                        remaining--;
                    }
                }
                if (remaining > 0) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("not every GroupMember cache lost the member within 30 s");
                    }
                    LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(POLL_MICROS));
                }
            }
            long last = 0;
            for (long t : seenAt) {
                last = Math.max(last, t);
            }
            latencies.add(last - start);
        }
        return RoundResult.of(n, System.nanoTime() - roundStart, latencies);
    }

    /** Untimed set-up waits between measured leaves, bounded. */
    static void await(String what, BooleanSupplier done) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT_NANOS;
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("timed out: " + what);
            }
            if (Thread.interrupted()) {
                throw new InterruptedException("interrupted waiting until " + what);
            }
            LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(200));
        }
    }
}
