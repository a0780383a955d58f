package io.coord.chaos;

import io.coord.BarrierBrokenException;
import io.coord.CoordClient;
import io.coord.CoordSettings;
import io.coord.barrier.BarrierOptions;
import io.coord.barrier.BarrierSeat;
import io.coord.barrier.DoubleBarrier;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * A double-barrier member in its own JVM, driven by {@link BarrierScenario}. Besides answering
 * the controller, it leaves evidence in ZooKeeper whose creation zxids the controller compares:
 * right after {@code enter} returns it creates {@code {markers}/g{generation}/in-{member}};
 * right before calling {@code leave} it creates {@code pre-{member}} and right after {@code leave}
 * returns {@code out-{member}}. If anyone got through enter early, its {@code in-} marker was
 * created before some other member's seat; if anyone got through leave early, its {@code out-}
 * marker was created before some other member's {@code pre-} marker.
 *
 * <p>Lines printed: {@code READY}; {@code ENTERED gen seq seatToken inCzxid};
 * {@code LEFT gen preCzxid outCzxid}; {@code BROKEN enter|leave message};
 * {@code ERROR enter|leave message}. Commands: {@code enter}, {@code leave} (each runs in the
 * background, so the member keeps reading), stdin closing ends it.
 *
 * <p>Arguments: connect string, barrier name, parties, member id, session timeout ms, markers path,
 * enter/leave timeout ms.
 */
public final class BarrierMemberMain {
    private BarrierMemberMain() {
    }

    public static void main(String[] args) throws Exception {
        String connect = args[0];
        String name = args[1];
        int parties = Integer.parseInt(args[2]);
        String member = args[3];
        Duration session = Duration.ofMillis(Long.parseLong(args[4]));
        String markers = args[5];
        Duration timeout = Duration.ofMillis(Long.parseLong(args[6]));
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        AtomicReference<BarrierSeat> seat = new AtomicReference<>();
        try (CoordClient client = CoordClient.connect(CoordSettings.builder().connectString(connect)
                .sessionTimeout(session).connectionTimeout(Duration.ofSeconds(15)).build())) {
            DoubleBarrier barrier = DoubleBarrier.create(client, name, parties, BarrierOptions.builder().memberId(member).build());
            CuratorFramework curator = client.curator();
            out.println("READY");
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String line;
            while ((line = in.readLine()) != null) {
                switch (line.trim()) {
                    case "enter" -> background(out, "enter", () -> {
                        BarrierSeat s = barrier.enter(timeout);
                        seat.set(s);
                        long marker = marker(curator, markers + "/g" + s.generation() + "/in-" + member);
                        out.println("ENTERED " + s.generation() + " " + s.sequence() + " " + s.token().value() + " " + marker);
                    });
                    case "leave" -> background(out, "leave", () -> {
                        BarrierSeat s = seat.get();
                        long pre = marker(curator, markers + "/g" + s.generation() + "/pre-" + member);
                        s.leave(timeout);
                        long post = marker(curator, markers + "/g" + s.generation() + "/out-" + member);
                        out.println("LEFT " + s.generation() + " " + pre + " " + post);
                    });
                    default -> out.println("ERROR unknown command " + line);
                }
            }
        }
    }

    /** Creates the marker node (parents too) and returns its czxid; a retried create that finds it reads it. */
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

    private static void background(PrintStream out, String phase, Action action) {
        Thread t = new Thread(() -> {
            try {
                action.run();
            } catch (BarrierBrokenException e) {
                out.println("BROKEN " + phase + " " + oneLine(e.getMessage()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                out.println("ERROR " + phase + " interrupted");
            } catch (Exception e) {
                out.println("ERROR " + phase + " " + e.getClass().getSimpleName() + ": " + oneLine(e.getMessage()));
            }
        }, "chaos-member-" + phase);
        t.setDaemon(true);
        t.start();
    }

    private static String oneLine(String s) {
        return s == null ? "" : s.replace('\n', ' ').replace('\r', ' ');
    }
}
