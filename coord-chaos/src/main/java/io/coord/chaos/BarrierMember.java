package io.coord.chaos;

import io.coord.BarrierBrokenException;
import io.coord.CoordClient;
import io.coord.barrier.BarrierOptions;
import io.coord.barrier.BarrierSeat;
import io.coord.barrier.DoubleBarrier;
import io.coord.test.Faults;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.barriers.DistributedDoubleBarrier;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.data.Stat;

/**
 * Worker side of the barrier scenario: one member of one double barrier (member id = worker
 * name), Coord's {@link DoubleBarrier} or, for the control run, Curator's
 * {@link DistributedDoubleBarrier}. Besides answering the controller it leaves evidence whose
 * creation zxids the controller compares: right after {@code enter} returns it creates
 * {@code {markers}/g{generation}/in-{member}}, right before calling {@code leave} {@code pre-{member}},
 * and right after {@code leave} returns {@code out-{member}}. Whoever got through enter early
 * created its {@code in-} marker before some other member's seat; whoever got through leave early,
 * its {@code out-} marker before some other member's {@code pre-} marker.
 * <pre>
 * C: enter &lt;id&gt; &lt;round&gt;  W: ENTERED &lt;id&gt; &lt;generation&gt; &lt;seq&gt; &lt;seat czxid&gt; &lt;in czxid&gt; | BROKEN &lt;id&gt; &lt;why&gt; | ERROR &lt;id&gt; &lt;why&gt;
 * C: leave &lt;id&gt;          W: LEFT &lt;id&gt; &lt;generation&gt; &lt;pre czxid&gt; &lt;out czxid&gt;         | BROKEN &lt;id&gt; &lt;why&gt; | ERROR &lt;id&gt; &lt;why&gt;
 * C: spurious &lt;id&gt;       W: WOKE &lt;id&gt;   (F11: watch events that did not happen, then a connection flap)
 * C: exit
 * </pre>
 * Every answer carries the command's id, so the controller never books a late answer to one
 * command as the answer to another. {@code enter} and {@code leave} run in the background, so the
 * member keeps reading commands. Arguments: barrier name, parties, markers path, enter/leave
 * timeout in ms, and {@code coord} or {@code curator}. Curator's barrier has no generations: the
 * controller's round (+1) stands for one, and a {@code false} (timed out) answer is reported as
 * BROKEN; its seat token is not known (0).
 */
final class BarrierMember implements WorkerLogic {
    /** Where the control's Curator barrier lives (in the scenario's namespace). */
    static final String CURATOR_PATH = "/curator-barrier";

    /** One member's barrier: enter, leave, and the paths a spurious event may name. */
    private interface Member {
        /** Enters; the generation entered, its seat's sequence and token. */
        long[] enter(long round, Duration timeout) throws Exception;

        long generation();

        void leave(Duration timeout) throws Exception;

        /** The paths (without the namespace) whose events a waiter might take for progress. */
        List<String> watchedPaths();

        /** Gives up the seat held (if any) without leaving: the member can enter the next round. */
        void abandon();
    }

    @Override
    public void run(WorkerContext ctx) throws InterruptedException {
        String name = ctx.arg(0);
        int parties = Integer.parseInt(ctx.arg(1));
        String markers = ctx.arg(2);
        Duration timeout = Duration.ofMillis(Long.parseLong(ctx.arg(3)));
        boolean curator = "curator".equals(ctx.arg(4));
        WorkerIo io = ctx.io();
        CoordClient client = ctx.client();
        CuratorFramework zk = client.curator();
        Member barrier = curator ? new CuratorMember(zk, parties) : new CoordMember(client, name, parties, ctx.name());
        String member = ctx.name();
        while (true) {
            String[] cmd = io.next(Duration.ofHours(24)).split(" ");
            String id = cmd.length > 1 ? cmd[1] : "-";
            switch (cmd[0]) {
                case "enter" -> background(io, id, () -> {
                    long[] in = barrier.enter(Long.parseLong(cmd[2]), timeout);
                    long marker = markerOrAbandon(zk, markers + "/g" + in[0] + "/in-" + member, timeout, barrier);
                    io.send("ENTERED " + id + " " + in[0] + " " + in[1] + " " + in[2] + " " + marker);
                });
                case "leave" -> background(io, id, () -> {
                    long g = barrier.generation();
                    long pre = markerOrAbandon(zk, markers + "/g" + g + "/pre-" + member, timeout, barrier);
                    barrier.leave(timeout);
                    long out = marker(zk, markers + "/g" + g + "/out-" + member, timeout);
                    io.send("LEFT " + id + " " + g + " " + pre + " " + out);
                });
                case "spurious" -> {
                    spurious(client, barrier.watchedPaths());
                    io.send("WOKE " + id);
                }
                case "exit" -> {
                    return;
                }
                default -> io.send("ERROR " + id + " unknown command " + String.join(" ", cmd));
            }
        }
    }

    /**
     * F11: every event a waiter could take for progress, although nothing happened (queued into
     * the client's own event thread: node events on the paths it watches, then a Disconnected /
     * SyncConnected flap while the real connection stays up).
     */
    private static void spurious(CoordClient client, List<String> paths) {
        org.apache.zookeeper.ZooKeeper h;
        try {
            h = client.curator().getZookeeperClient().getZooKeeper();
        } catch (Exception e) {
            return; // between handles: nothing to wake
        }
        String ns = client.settings().namespace() == null ? "" : "/" + client.settings().namespace();
        for (String p : paths) {
            for (EventType t : List.of(EventType.NodeCreated, EventType.NodeDataChanged, EventType.NodeChildrenChanged, EventType.NodeDeleted)) {
                h.getTestable().queueEvent(new WatchedEvent(t, KeeperState.SyncConnected, ns + p));
            }
        }
        Faults.spuriousFlap(client);
    }

    /** Coord's double barrier. */
    private static final class CoordMember implements Member {
        private final DoubleBarrier barrier;
        private final String root;
        private final AtomicReference<BarrierSeat> seat = new AtomicReference<>();

        CoordMember(CoordClient client, String name, int parties, String memberId) {
            this.barrier = DoubleBarrier.create(client, name, parties, BarrierOptions.builder().memberId(memberId).build());
            this.root = "/barriers/" + name;
        }

        @Override
        public long[] enter(long round, Duration timeout) throws Exception {
            BarrierSeat s = barrier.enter(timeout);
            seat.set(s);
            return new long[] {s.generation(), s.sequence(), s.token().value()};
        }

        @Override
        public long generation() {
            return held().generation();
        }

        @Override
        public void leave(Duration timeout) throws Exception {
            held().leave(timeout);
        }

        @Override
        public void abandon() {
            BarrierSeat s = seat.get();
            if (s != null) {
                s.close();
            }
        }

        private BarrierSeat held() {
            BarrierSeat s = seat.get();
            if (s == null) {
                throw new IllegalStateException("leave without a seat");
            }
            return s;
        }

        @Override
        public List<String> watchedPaths() {
            // The generation of the seat held (waiting in leave) and the next one (waiting in enter).
            BarrierSeat s = seat.get();
            long last = s == null ? 0 : s.generation();
            List<String> paths = new java.util.ArrayList<>(List.of(root));
            for (long n = Math.max(1, last); n <= last + 1; n++) {
                String g = root + "/" + String.format("%010d", n);
                paths.addAll(List.of(g, g + "/members", g + "/ready", g + "/done", g + "/broken"));
            }
            return paths;
        }
    }

    /** The control: Curator's DistributedDoubleBarrier, a new one per round (its instances are single-use). */
    private static final class CuratorMember implements Member {
        private final CuratorFramework zk;
        private final int parties;
        private volatile DistributedDoubleBarrier barrier;
        private volatile long generation;

        CuratorMember(CuratorFramework zk, int parties) {
            this.zk = zk;
            this.parties = parties;
        }

        @Override
        public long[] enter(long round, Duration timeout) throws Exception {
            DistributedDoubleBarrier b = new DistributedDoubleBarrier(zk, CURATOR_PATH, parties);
            barrier = b;
            generation = round + 1;
            if (!b.enter(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new BarrierBrokenException("Curator's enter timed out after " + timeout);
            }
            return new long[] {generation, 0, 0};
        }

        @Override
        public long generation() {
            return generation;
        }

        @Override
        public void leave(Duration timeout) throws Exception {
            if (!barrier.leave(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new BarrierBrokenException("Curator's leave timed out after " + timeout);
            }
        }

        @Override
        public List<String> watchedPaths() {
            return List.of(CURATOR_PATH + "/ready", CURATOR_PATH);
        }

        @Override
        public void abandon() {
            // a fresh DistributedDoubleBarrier per round: nothing carries over
        }
    }

    /**
     * {@link #marker}, or, if it cannot be written, the seat given up before the failure is
     * reported: a member that kept its seat could never enter again ("still in generation N").
     */
    private static long markerOrAbandon(CuratorFramework curator, String path, Duration bound, Member barrier) throws Exception {
        try {
            return marker(curator, path, bound);
        } catch (Exception e) {
            barrier.abandon();
            throw e;
        }
    }

    /**
     * Creates the marker (parents too) and returns its czxid; a retried create that finds it reads
     * it. A failed write (the request timed out, the session ended on a starved machine) is tried
     * again, for at most {@code bound}.
     */
    private static long marker(CuratorFramework curator, String path, Duration bound) throws Exception {
        long deadline = System.nanoTime() + bound.toNanos();
        while (true) {
            try {
                Stat stat = new Stat();
                try {
                    curator.create().creatingParentsIfNeeded().storingStatIn(stat).forPath(path);
                    return stat.getCzxid();
                } catch (KeeperException.NodeExistsException e) {
                    return curator.checkExists().forPath(path).getCzxid();
                }
            } catch (KeeperException e) {
                if (System.nanoTime() - deadline >= 0) {
                    throw e;
                }
                TimeUnit.MILLISECONDS.sleep(100); // a transient failure: try again, bounded by the deadline
            }
        }
    }

    @FunctionalInterface
    private interface Action {
        void run() throws Exception;
    }

    private static void background(WorkerIo io, String id, Action action) {
        Thread t = new Thread(() -> {
            try {
                action.run();
            } catch (BarrierBrokenException e) {
                io.send("BROKEN " + id + " " + oneLine(e.getMessage()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                io.send("ERROR " + id + " interrupted");
            } catch (Exception e) {
                io.send("ERROR " + id + " " + e.getClass().getSimpleName() + ": " + oneLine(e.getMessage()));
            }
        }, "chaos-member-" + id);
        t.setDaemon(true);
        t.start();
    }

    private static String oneLine(String s) {
        return s == null ? "" : s.replace('\n', ' ').replace('\r', ' ');
    }
}
