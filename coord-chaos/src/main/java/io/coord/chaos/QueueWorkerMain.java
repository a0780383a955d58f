package io.coord.chaos;

import io.coord.Codec;
import io.coord.ConnectionLostException;
import io.coord.CoordClient;
import io.coord.CoordSettings;
import io.coord.queue.ClaimLostException;
import io.coord.queue.QueueOptions;
import io.coord.queue.TaskClaim;
import io.coord.queue.TaskQueue;
import io.coord.queue.TaskWorker;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.zookeeper.CreateMode;

/**
 * A queue worker in its own JVM, driven by {@link QueueScenario}: one consumer thread that claims
 * a task, tells the controller ({@code START task key token}), "works" for a few milliseconds and
 * completes the task together with a completion record {@code {records}/{task}-{seq}} in the same
 * transaction, so a second accepted completion of one task would leave a second record.
 *
 * <p>Lines printed: {@code READY}; {@code START task key token}; {@code HELD task} (the task is
 * held, see below); {@code DONE task key token}; {@code LOST task key token} (the completion was
 * refused because the claim is gone: a stale claimant); {@code FAILED task key} (a poison task's
 * handler failed on purpose); {@code ERROR task message}.
 *
 * <p>Commands: {@code hold} — the next task claimed is held after {@code START} until {@code go}
 * (so the controller can kill or pause this worker while it is certainly mid-task); {@code go};
 * stdin closing ends the worker.
 *
 * <p>Arguments: connect string, queue name, records path, worker name, session timeout ms, work ms.
 */
public final class QueueWorkerMain {
    private QueueWorkerMain() {
    }

    /** Options both sides use: quick retries, so poison tasks reach the dead letters within the run. */
    static QueueOptions options(String consumerName) {
        return QueueOptions.builder().consumerName(consumerName).maxRetries(QueueScenario.MAX_RETRIES)
                .backoff(Duration.ofMillis(50), Duration.ofMillis(200)).shutdownGrace(Duration.ofSeconds(2)).build();
    }

    public static void main(String[] args) throws Exception {
        String connect = args[0];
        String queueName = args[1];
        String records = args[2];
        String name = args[3];
        Duration session = Duration.ofMillis(Long.parseLong(args[4]));
        int workMs = Integer.parseInt(args[5]);
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        AtomicBoolean holdNext = new AtomicBoolean();
        Semaphore go = new Semaphore(0);
        try (CoordClient client = CoordClient.connect(CoordSettings.builder().connectString(connect)
                .sessionTimeout(session).connectionTimeout(Duration.ofSeconds(15)).build());
                TaskQueue<QueueJob> queue = TaskQueue.open(client, queueName, Codec.json(QueueJob.class), options(name))) {
            TaskWorker.Handler<QueueJob> handler = claim -> handle(client, records, name, claim, workMs, holdNext, go, out);
            try (TaskWorker worker = queue.work(1, handler)) {
                out.println("READY");
                BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
                String line;
                while ((line = in.readLine()) != null) {
                    switch (line.trim()) {
                        case "hold" -> holdNext.set(true);
                        case "go" -> go.release();
                        default -> out.println("UNKNOWN " + line);
                    }
                }
                worker.shutdown(Duration.ofSeconds(2));
            }
        }
    }

    private static void handle(CoordClient client, String records, String name, TaskClaim<QueueJob> claim, int workMs,
                               AtomicBoolean holdNext, Semaphore go, PrintStream out) throws Exception {
        String task = claim.id().name();
        String key = claim.payload().key();
        long token = claim.token().value();
        out.println("START " + task + " " + key + " " + token);
        if (holdNext.compareAndSet(true, false)) {
            out.println("HELD " + task);
            // The controller kills or pauses us now; if it lets us go instead, carry on (bounded).
            if (!go.tryAcquire(60, TimeUnit.SECONDS)) {
                out.println("ERROR " + task + " no go within 60 s");
            }
        } else if (workMs > 0) {
            Thread.sleep(ThreadLocalRandom.current().nextInt(workMs + 1)); // the "work"
        }
        if (claim.payload().poison()) {
            out.println("FAILED " + task + " " + key);
            throw new IllegalStateException("poison task " + key + " fails on purpose");
        }
        byte[] data = (key + " " + token + " " + name).getBytes(StandardCharsets.UTF_8);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            try {
                claim.completeWith(List.of(client.curator().transactionOp().create().withMode(CreateMode.PERSISTENT_SEQUENTIAL)
                        .forPath(records + "/" + task + "-", data)));
                out.println("DONE " + task + " " + key + " " + token);
                return;
            } catch (ClaimLostException lost) {
                out.println("LOST " + task + " " + key + " " + token);
                throw lost; // nothing changed; the task is someone else's now
            } catch (ConnectionLostException indeterminate) {
                // Indeterminate: the same call again recognizes an earlier commit (our claim node is still there).
                if (System.nanoTime() > deadline) {
                    out.println("ERROR " + task + " completion still indeterminate after 20 s: " + indeterminate.getMessage());
                    throw indeterminate;
                }
            }
        }
    }
}
