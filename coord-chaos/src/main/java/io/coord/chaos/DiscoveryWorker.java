package io.coord.chaos;

import io.coord.naming.Announcement;
import io.coord.naming.Discovery;
import io.coord.naming.Endpoint;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;

/**
 * Worker side of the discovery scenario: one JVM hosting several instances of service
 * {@value #SERVICE}, registering and closing them on the controller's command.
 * <pre>
 * C: up &lt;id&gt;      W: OK up &lt;id&gt;    (or ERR info|fail &lt;id&gt; &lt;exception&gt;)
 * C: down &lt;id&gt;    W: OK down &lt;id&gt;
 * C: exit
 * W: NEWSESSION &lt;wall ms&gt;   (unsolicited, on every new ZooKeeper session after the first)
 * </pre>
 * Argument 0 is the mode: {@code coord} registers through coord-naming's {@link Discovery} (Curator
 * re-registers every instance on a new session); {@code plain} (the control) creates the same
 * ephemeral node once and never again, so an instance lost with its session stays lost.
 */
final class DiscoveryWorker implements WorkerLogic {
    static final String SERVICE = "svc.chaos";
    /** Where coord-naming keeps the instances of {@link #SERVICE} (namespace-relative). */
    static final String INSTANCES = "/services/chaos/svc/_instances";

    @Override
    public void run(WorkerContext ctx) throws InterruptedException {
        WorkerIo io = ctx.io();
        boolean plain = ctx.arg(0).equals("plain");
        ctx.client().onNewSession(s -> io.send("NEWSESSION " + System.currentTimeMillis()), Runnable::run);
        CuratorFramework curator = ctx.client().curator();
        Map<String, Announcement> up = new HashMap<>();
        try (Discovery discovery = Discovery.open(ctx.client())) {
            while (true) {
                String cmd = io.next(Duration.ofHours(24));
                if (cmd.equals("exit")) {
                    return;
                }
                String[] p = cmd.split(" ");
                if (p.length != 2) {
                    io.send("ERR fail ? unknown-command:" + cmd.replace(' ', '_'));
                    continue;
                }
                String id = p[1];
                try {
                    switch (p[0]) {
                        case "up" -> {
                            if (plain) {
                                curator.create().creatingParentContainersIfNeeded().withMode(CreateMode.EPHEMERAL)
                                        .forPath(INSTANCES + "/" + id, id.getBytes(StandardCharsets.UTF_8));
                            } else {
                                up.put(id, discovery.register(Endpoint.builder(SERVICE, id).address("127.0.0.1").port(8080).build()));
                            }
                            io.send("OK up " + id);
                        }
                        case "down" -> {
                            if (plain) {
                                try {
                                    curator.delete().forPath(INSTANCES + "/" + id);
                                } catch (KeeperException.NoNodeException gone) {
                                    // its session already took it
                                }
                            } else {
                                Announcement a = up.remove(id);
                                if (a != null) {
                                    a.close();
                                }
                            }
                            io.send("OK down " + id);
                        }
                        default -> io.send("ERR fail " + id + " unknown-command:" + p[0]);
                    }
                } catch (InterruptedException e) {
                    throw e;
                } catch (Exception e) {
                    io.send("ERR " + LockWorker.outcome(e) + " " + id + " " + e.getClass().getSimpleName());
                }
            }
        }
    }
}
