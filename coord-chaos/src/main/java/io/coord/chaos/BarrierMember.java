package io.coord.chaos;

import io.coord.BarrierBrokenException;
import io.coord.barrier.BarrierOptions;
import io.coord.barrier.BarrierSeat;
import io.coord.barrier.DoubleBarrier;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * Worker side of the barrier scenario: one member of one double barrier (member id = worker
 * name). Besides answering the controller it leaves evidence whose creation zxids the controller
 * compares: right after {@code enter} returns it creates {@code {markers}/g{generation}/in-{member}},
 * right before calling {@code leave} {@code pre-{member}}, and right after {@code leave} returns
 * {@code out-{member}}. Whoever got through enter early created its {@code in-} marker before some
 * other member's seat; whoever got through leave early, its {@code out-} marker before some other
 * member's {@code pre-} marker.
 * <pre>
 * C: enter   W: ENTERED &lt;generation&gt; &lt;seq&gt; &lt;seat czxid&gt; &lt;in czxid&gt;   | BROKEN enter &lt;why&gt; | ERROR enter &lt;why&gt;
 * C: leave   W: LEFT &lt;generation&gt; &lt;pre czxid&gt; &lt;out czxid&gt;          | BROKEN leave &lt;why&gt; | ERROR leave &lt;why&gt;
 * C: exit
 * </pre>
 * {@code enter} and {@code leave} run in the background, so the member keeps reading commands.
 * Arguments: barrier name, parties, markers path, enter/leave timeout in ms.
 */
final class BarrierMember implements WorkerLogic {
    @Override
    public void run(WorkerContext ctx) throws InterruptedException {
        String name = ctx.arg(0);
        int parties = Integer.parseInt(ctx.arg(1));
        String markers = ctx.arg(2);
        Duration timeout = Duration.ofMillis(Long.parseLong(ctx.arg(3)));
        String member = ctx.name();
        WorkerIo io = ctx.io();
        CuratorFramework curator = ctx.client().curator();
        DoubleBarrier barrier = DoubleBarrier.create(ctx.client(), name, parties, BarrierOptions.builder().memberId(member).build());
        AtomicReference<BarrierSeat> seat = new AtomicReference<>();
        while (true) {
            String cmd = io.next(Duration.ofHours(24));
            switch (cmd) {
                case "enter" -> background(io, "enter", () -> {
                    BarrierSeat s = barrier.enter(timeout);
                    seat.set(s);
                    long in = marker(curator, markers + "/g" + s.generation() + "/in-" + member);
                    io.send("ENTERED " + s.generation() + " " + s.sequence() + " " + s.token().value() + " " + in);
                });
                case "leave" -> background(io, "leave", () -> {
                    BarrierSeat s = seat.get();
                    if (s == null) {
                        throw new IllegalStateException("leave without a seat");
                    }
                    long pre = marker(curator, markers + "/g" + s.generation() + "/pre-" + member);
                    s.leave(timeout);
                    long out = marker(curator, markers + "/g" + s.generation() + "/out-" + member);
                    io.send("LEFT " + s.generation() + " " + pre + " " + out);
                });
                case "exit" -> {
                    return;
                }
                default -> io.send("ERROR - unknown command " + cmd);
            }
        }
    }

    /** Creates the marker (parents too) and returns its czxid; a retried create that finds it reads it. */
    private static long marker(CuratorFramework curator, String path) throws Exception {
        Stat stat = new Stat();
        try {
            curator.create().creatingParentsIfNeeded().storingStatIn(stat).forPath(path);
            return stat.getCzxid();
        } catch (KeeperException.NodeExistsException e) {
            return curator.checkExists().forPath(path).getCzxid();
        }
    }

    @FunctionalInterface
    private interface Action {
        void run() throws Exception;
    }

    private static void background(WorkerIo io, String phase, Action action) {
        Thread t = new Thread(() -> {
            try {
                action.run();
            } catch (BarrierBrokenException e) {
                io.send("BROKEN " + phase + " " + oneLine(e.getMessage()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                io.send("ERROR " + phase + " interrupted");
            } catch (Exception e) {
                io.send("ERROR " + phase + " " + e.getClass().getSimpleName() + ": " + oneLine(e.getMessage()));
            }
        }, "chaos-member-" + phase);
        t.setDaemon(true);
        t.start();
    }

    private static String oneLine(String s) {
        return s == null ? "" : s.replace('\n', ' ').replace('\r', ' ');
    }
}
