package io.coord.chaos;

import io.coord.CoordClient;
import io.coord.CoordSettings;
import io.coord.CoordTimeoutException;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.apache.zookeeper.ZooKeeper;

/**
 * The main class of every chaos worker JVM. Arguments: scenario, connect string (the worker's
 * proxy), namespace, requested session timeout in ms, worker name, then the scenario's own.
 *
 * <p>Protocol lines it prints besides the scenario's own:
 * <ul>
 *   <li>{@code READY <negotiated session timeout ms>} once connected;
 *   <li>{@code SESSION <id hex> <password hex>} on the first and on every new session, so the
 *       controller can expire it (fault F2: a second handle joins the session and closes it).
 * </ul>
 * Exit code 0 after the scenario returned, 3 if the controller went away, 1 on an error (its
 * stack trace goes to stderr, which the controller keeps in a file).
 */
public final class ChaosWorker {
    /** How long (ms) a worker may keep retrying its first connect. */
    static final String START_PROPERTY = "coord.chaos.startMs";

    private ChaosWorker() {
    }

    public static void main(String[] args) {
        if (args.length < 5) {
            System.err.println("usage: ChaosWorker <scenario> <connect> <namespace> <sessionMs> <name> [args...], got "
                    + Arrays.toString(args));
            System.exit(2);
        }
        WorkerIo io = new WorkerIo();
        CoordSettings settings = ChaosAcl.secured(CoordSettings.builder()).connectString(args[1]).namespace(args[2])
                .sessionTimeout(Duration.ofMillis(Long.parseLong(args[3])))
                .connectionTimeout(Duration.ofSeconds(15)).build();
        int code = 0;
        try (CoordClient client = connect(settings)) {
            client.onNewSession(s -> reportSession(io, client), Runnable::run);
            io.send("READY " + client.negotiatedSessionTimeout().toMillis());
            reportSession(io, client);
            WorkerLogic logic = Scenarios.worker(args[0]);
            logic.run(new WorkerContext(args[4], client, io, List.of(args).subList(5, args.length)));
        } catch (WorkerIo.ControllerGoneException e) {
            code = 3;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            code = 1;
        } catch (RuntimeException | Error e) {
            e.printStackTrace();
            code = 1;
        }
        System.out.flush();
        // Non-daemon threads of a recipe must not keep a finished worker alive.
        Runtime.getRuntime().halt(code);
    }

    /**
     * Connects, retrying a timed-out connect until {@value #START_PROPERTY} ms (default 15 s) have
     * passed, as long as the controller waits for it: a starting JVM on a loaded machine (more so
     * under libfaketime, F12) can miss its first connection. The connection timeout itself stays
     * 15 s, since it also bounds every operation during the faults.
     */
    private static CoordClient connect(CoordSettings settings) throws InterruptedException {
        long deadline = System.nanoTime() + Long.getLong(START_PROPERTY, 15_000) * 1_000_000;
        while (true) {
            try {
                return CoordClient.connect(settings);
            } catch (CoordTimeoutException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                System.err.println("connect timed out, retrying: " + e.getMessage());
            }
        }
    }

    private static void reportSession(WorkerIo io, CoordClient client) {
        try {
            ZooKeeper zk = client.curator().getZookeeperClient().getZooKeeper();
            long id = zk.getSessionId();
            if (id != 0) {
                io.send("SESSION " + Long.toHexString(id) + " " + HexFormat.of().formatHex(zk.getSessionPasswd()));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            // no handle right now: the next session report will come with the next session
        }
    }
}
