package io.coord.chaos;

import io.coord.CoordClient;
import io.coord.naming.BlockIds;
import io.coord.naming.IdOptions;
import io.coord.naming.SequenceIds;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;

/**
 * Worker side of the naming scenario: a batch of IDs per command.
 * <pre>
 * C: seq &lt;n&gt; | block &lt;n&gt; | naive &lt;n&gt;   W: IDS &lt;id&gt;... [ERR info|fail &lt;exception&gt;]
 * C: exit
 * </pre>
 * The answer lists the IDs in the order they were handed out; an error ends the batch early.
 * {@code seq} is coord-naming's {@link SequenceIds} "chaos", {@code block} its {@link BlockIds}
 * "chaos" with blocks of {@value #BLOCK} (small, so reservations happen often, under the faults),
 * {@code naive} the control's counter: read {@link #NAIVE}, write it back plus one, no version check.
 */
final class NamingWorker implements WorkerLogic {
    static final int BLOCK = 20;
    static final String NAIVE = "/naive-counter";

    @Override
    public void run(WorkerContext ctx) throws InterruptedException {
        WorkerIo io = ctx.io();
        IdOptions options = IdOptions.builder().blockSize(BLOCK).timeout(Duration.ofSeconds(30)).build();
        SequenceIds seq = SequenceIds.open(ctx.client(), "chaos", options);
        try (BlockIds block = BlockIds.open(ctx.client(), "chaos", options)) {
            while (true) {
                String[] cmd = io.next(Duration.ofHours(24)).split(" ");
                if (cmd[0].equals("exit")) {
                    return;
                }
                int n = cmd.length > 1 ? Integer.parseInt(cmd[1]) : 1;
                StringBuilder b = new StringBuilder("IDS");
                try {
                    for (int i = 0; i < n; i++) {
                        long id = switch (cmd[0]) {
                            case "seq" -> seq.next();
                            case "block" -> block.next();
                            case "naive" -> naive(ctx.client());
                            default -> throw new IllegalArgumentException("unknown command " + cmd[0]);
                        };
                        b.append(' ').append(id);
                    }
                } catch (RuntimeException e) {
                    b.append(" ERR ").append(LockWorker.outcome(e)).append(' ').append(e.getClass().getSimpleName());
                }
                io.send(b.toString());
            }
        }
    }

    /** The naive counter: read, add one, write back unconditionally; what the control shows to be unsafe. */
    private static long naive(CoordClient client) {
        try {
            CuratorFramework c = client.curator();
            if (c.checkExists().forPath(NAIVE) == null) {
                try {
                    c.create().forPath(NAIVE, "0".getBytes(StandardCharsets.UTF_8));
                } catch (KeeperException.NodeExistsException raced) {
                    // another client created it first
                }
            }
            long next = Long.parseLong(new String(c.getData().forPath(NAIVE), StandardCharsets.UTF_8)) + 1;
            c.setData().forPath(NAIVE, Long.toString(next).getBytes(StandardCharsets.UTF_8));
            return next;
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
