package io.coord.chaos;

import io.coord.naming.BlockIds;
import io.coord.naming.IdOptions;
import io.coord.naming.SequenceIds;
import java.time.Duration;

/**
 * Worker side of the naming scenario: one ID per command.
 * <pre>
 * C: seq | block        W: ID &lt;n&gt;  (or ERR info|fail &lt;exception&gt;)
 * C: exit
 * </pre>
 * {@code seq} is coord-naming's {@link SequenceIds} "chaos", {@code block} its {@link BlockIds}
 * "chaos" with blocks of {@value #BLOCK} (small, so reservations happen often, under the faults).
 */
final class NamingWorker implements WorkerLogic {
    static final int BLOCK = 20;

    @Override
    public void run(WorkerContext ctx) throws InterruptedException {
        WorkerIo io = ctx.io();
        IdOptions options = IdOptions.builder().blockSize(BLOCK).timeout(Duration.ofSeconds(30)).build();
        SequenceIds seq = SequenceIds.open(ctx.client(), "chaos", options);
        try (BlockIds block = BlockIds.open(ctx.client(), "chaos", options)) {
            while (true) {
                String cmd = io.next(Duration.ofHours(24));
                try {
                    switch (cmd) {
                        case "exit" -> {
                            return;
                        }
                        case "seq" -> io.send("ID " + seq.next());
                        case "block" -> io.send("ID " + block.next());
                        default -> io.send("ERR fail unknown-command:" + cmd);
                    }
                } catch (RuntimeException e) {
                    io.send("ERR " + LockWorker.outcome(e) + " " + e.getClass().getSimpleName());
                }
            }
        }
    }
}
