package io.coord.chaos;

import io.coord.CoordException;
import io.coord.CoordSession;
import io.coord.membership.Group;
import io.coord.membership.GroupListener;
import io.coord.membership.GroupView;
import io.coord.membership.MemberInfo;
import io.coord.membership.Membership;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorWatcher;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;

/**
 * Worker side of the membership scenario: one member of group {@value #GROUP} (its id is the
 * worker's name) that is also an observer of the group, reporting every view it installs.
 * <pre>
 * W: JOINED &lt;czxid hex&gt;                      once joined
 * W: VIEW &lt;version hex&gt; &lt;id&gt;:&lt;czxid hex&gt;,...   (or "-" for none) every view this observer installs
 * W: NODELOST | REJOINED &lt;czxid hex&gt; | GAVEUP &lt;cause&gt;   its membership's moves
 * C: exit
 * </pre>
 * Argument 0 is the observer: {@code coord} reports coord-membership's {@link Group} views;
 * {@code naive} (the control) reports a view kept by a one-shot {@code getChildren} watch that is
 * re-armed on each child event and on nothing else: no re-read on reconnect, none on a new session.
 */
final class MembershipWorker implements WorkerLogic {
    static final String GROUP = "chaos";

    @Override
    public void run(WorkerContext ctx) throws InterruptedException {
        WorkerIo io = ctx.io();
        boolean naive = ctx.arg(0).equals("naive");
        ExecutorService events = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "chaos-membership-events");
            t.setDaemon(true);
            return t;
        });
        try (Group<String> group = Group.open(ctx.client(), GROUP, String.class)) {
            if (!naive) {
                group.addListener(new GroupListener<>() {
                    @Override
                    public void onViewChanged(GroupView<String> view) {
                        io.send(line(view));
                    }
                }, Runnable::run);
            }
            Membership<String> me = group.join(ctx.name(), ctx.name());
            me.addListener(new Membership.Listener() {
                @Override
                public void onNodeLost(Membership<?> m, CoordException cause) {
                    io.send("NODELOST");
                }

                @Override
                public void onRejoined(Membership<?> m, CoordSession session) {
                    io.send("REJOINED " + Long.toHexString(m.incarnation()));
                }

                @Override
                public void onLost(Membership<?> m, CoordException cause) {
                    io.send("GAVEUP " + cause.getClass().getSimpleName());
                }
            }, Runnable::run);
            io.send("JOINED " + Long.toHexString(me.incarnation()));
            if (naive) {
                new NaiveView(ctx.client().curator(), group.path().value(), io, events).arm();
            }
            while (true) {
                String cmd = io.next(Duration.ofHours(24));
                if (cmd.equals("exit")) {
                    return;
                }
                io.send("ERR fail unknown-command:" + cmd.replace(' ', '_'));
            }
        } finally {
            events.shutdownNow();
        }
    }

    static String line(GroupView<String> view) {
        Map<String, Long> members = new TreeMap<>();
        for (MemberInfo<String> m : view.members().values()) {
            members.put(m.id(), m.czxid());
        }
        return line(view.version(), members);
    }

    /** {@code VIEW <version hex> id:czxid,...}; parsed by {@link MembershipScenario}. */
    static String line(long version, Map<String, Long> members) {
        StringBuilder b = new StringBuilder("VIEW ").append(Long.toHexString(version)).append(' ');
        if (members.isEmpty()) {
            b.append('-');
        }
        String sep = "";
        for (Map.Entry<String, Long> e : new TreeMap<>(members).entrySet()) {
            b.append(sep).append(e.getKey()).append(':').append(Long.toHexString(e.getValue()));
            sep = ",";
        }
        return b.toString();
    }

    /**
     * The control's observer: the textbook mistake. A {@code getChildren} watch, re-armed (with a
     * re-read) only when it fires for a child change; a disconnect or session expiry is ignored, so
     * after an expiry the watch is gone and the view stays as it was, forever.
     */
    private record NaiveView(CuratorFramework curator, String path, WorkerIo io, ExecutorService events) implements CuratorWatcher {
        void arm() {
            try {
                Stat parent = new Stat();
                List<String> children = curator.getChildren().storingStatIn(parent).usingWatcher(this).forPath(path);
                Map<String, Long> members = new TreeMap<>();
                for (String c : children) {
                    Stat s = curator.checkExists().forPath(path + "/" + c);
                    if (s != null) {
                        members.put(c, s.getCzxid());
                    }
                }
                io.send(line(parent.getPzxid(), members));
            } catch (Exception e) {
                // naive: a failed read is simply the end of this observer's updates
            }
        }

        @Override
        public void process(WatchedEvent event) {
            if (event.getType() == Watcher.Event.EventType.NodeChildrenChanged) {
                events.execute(this::arm); // not on ZooKeeper's event thread
            }
        }
    }
}
