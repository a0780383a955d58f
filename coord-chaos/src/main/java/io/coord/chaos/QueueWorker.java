package io.coord.chaos;

import io.coord.Codec;
import io.coord.ConnectionLostException;
import io.coord.CoordClient;
import io.coord.queue.ClaimLostException;
import io.coord.queue.OutcomeUnknownException;
import io.coord.queue.QueueOptions;
import io.coord.queue.TaskClaim;
import io.coord.queue.TaskId;
import io.coord.queue.TaskQueue;
import io.coord.queue.TaskSpec;
import io.coord.queue.TaskWorker;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.zookeeper.CreateMode;

/**
 * Worker side of the queue scenario, in one of two roles (argument 0).
 *
 * <p>{@code producer} (argument 1: queue name): enqueues on command, with the key as the
 * idempotency key, and answers with the outcome; the controller retries an indeterminate one.
 * <pre>
 * C: enqueue &lt;key&gt; &lt;poison&gt;   W: OK &lt;key&gt; &lt;task&gt; | INFO &lt;key&gt; &lt;error&gt; | FAIL &lt;key&gt; &lt;error&gt;
 * C: exit
 * </pre>
 *
 * <p>{@code consumer} (arguments 1-3: queue name, records path, longest work in ms): one consumer
 * thread that claims a task, tells the controller, "works" for a few milliseconds and completes
 * the task together with a completion record {@code {records}/{task}-{seq}} in the same
 * transaction, so a second accepted completion of one task would leave a second record.
 * <pre>
 * W: START &lt;task&gt; &lt;key&gt; &lt;token&gt; &lt;deliveries&gt;   claimed, about to work (deliveries: claims of
 *                                  the task so far, this one included; 1 is its first)
 * W: HELD &lt;task&gt;                  the task is held (after C: hold) until C: go
 * W: DONE &lt;task&gt; &lt;key&gt; &lt;token&gt;    completed (record written in the same transaction)
 * W: LOST &lt;task&gt; &lt;key&gt; &lt;token&gt;    ending (complete or fail) refused: the claim is gone (a stale claimant)
 * W: UNKNOWN &lt;task&gt; &lt;key&gt; &lt;token&gt; the completion's answer was lost and its session ended: it may have committed
 * W: FAILED &lt;task&gt; &lt;key&gt;          a poison task failed on purpose (its fail() accepted)
 * W: ERROR &lt;task&gt; &lt;message&gt;
 * C: hold | go | exit
 * </pre>
 * Argument 4, {@code checked} or {@code unchecked}: the control's consumers write the completion
 * record without the claim check and ignore a lost claim.
 * {@code hold} makes the next task wait after {@code START} until {@code go}, so the controller
 * can kill or pause this worker while it certainly holds a task.
 */
final class QueueWorker implements WorkerLogic {
    /** Options both sides use: quick retries, so poison tasks reach the dead letters within the run. */
    static QueueOptions options(String consumerName) {
        return QueueOptions.builder().consumerName(consumerName).maxRetries(QueueScenario.MAX_RETRIES)
                .backoff(Duration.ofMillis(50), Duration.ofMillis(200)).shutdownGrace(Duration.ofSeconds(2)).build();
    }

    @Override
    public void run(WorkerContext ctx) throws InterruptedException {
        if ("producer".equals(ctx.arg(0))) {
            produce(ctx);
        } else {
            consume(ctx);
        }
    }

    private static void produce(WorkerContext ctx) throws InterruptedException {
        WorkerIo io = ctx.io();
        try (TaskQueue<QueueJob> queue = TaskQueue.open(ctx.client(), ctx.arg(1), Codec.json(QueueJob.class), options(ctx.name()))) {
            while (true) {
                String cmd = io.next(Duration.ofHours(24));
                String[] f = cmd.split(" ");
                switch (f[0]) {
                    case "enqueue" -> {
                        String key = f[1];
                        try {
                            TaskId id = queue.enqueue(new QueueJob(key, Boolean.parseBoolean(f[2])), TaskSpec.defaults().idempotencyKey(key));
                            io.send("OK " + key + " " + id.name());
                        } catch (RuntimeException e) {
                            io.send(LockWorker.outcome(e).toUpperCase(java.util.Locale.ROOT) + " " + key + " " + e.getClass().getSimpleName());
                        }
                    }
                    case "exit" -> {
                        return;
                    }
                    default -> io.send("FAIL - unknown-command " + cmd);
                }
            }
        }
    }

    private static void consume(WorkerContext ctx) throws InterruptedException {
        String queueName = ctx.arg(1);
        String records = ctx.arg(2);
        int workMs = Integer.parseInt(ctx.arg(3));
        boolean checked = !"unchecked".equals(ctx.arg(4));
        AtomicBoolean holdNext = new AtomicBoolean();
        Semaphore go = new Semaphore(0);
        WorkerIo io = ctx.io();
        try (TaskQueue<QueueJob> queue = TaskQueue.open(ctx.client(), queueName, Codec.json(QueueJob.class), options(ctx.name()));
                TaskWorker worker = queue.work(1, claim -> handle(ctx.client(), records, ctx.name(), claim, workMs, checked, holdNext, go, io))) {
            while (true) {
                String cmd = io.next(Duration.ofHours(24));
                switch (cmd) {
                    case "hold" -> holdNext.set(true);
                    case "go" -> go.release();
                    case "exit" -> {
                        worker.shutdown(Duration.ofSeconds(2));
                        return;
                    }
                    default -> io.send("ERROR - unknown command " + cmd);
                }
            }
        }
    }

    private static void handle(CoordClient client, String records, String name, TaskClaim<QueueJob> claim, int workMs,
                               boolean checked, AtomicBoolean holdNext, Semaphore go, WorkerIo io) throws Exception {
        String task = claim.id().name();
        String key = claim.payload().key();
        long token = claim.token().value();
        io.send("START " + task + " " + key + " " + token + " " + claim.deliveries());
        if (holdNext.compareAndSet(true, false)) {
            io.send("HELD " + task);
            // The controller kills or pauses us now; once it lets us go, carry on (bounded).
            if (!go.tryAcquire(60, TimeUnit.SECONDS)) {
                io.send("ERROR " + task + " no go within 60 s");
            }
        } else if (workMs > 0) {
            Thread.sleep(ThreadLocalRandom.current().nextInt(workMs + 1)); // the "work"
        }
        if (claim.payload().poison()) {
            // The handler records the failure itself rather than throwing for TaskWorker to do it:
            // a fail() refused because a fault ended the claim (an expiry during the "work") is then
            // reported, and the book counts the redelivery as interrupted. Thrown, it ended in
            // TaskWorker's log and the extra start looked unexplained (seed 7640819121966).
            end(claim, io, task, key, token, "FAILED " + task + " " + key,
                    () -> claim.fail("poison task " + key + " fails on purpose"));
            return;
        }
        byte[] data = (key + " " + token + " " + name).getBytes(StandardCharsets.UTF_8);
        if (!checked) {
            // The control: the completion record is written on its own, not behind check(claimNode), and a
            // lost claim is shrugged off, so a stale claimant's completion is accepted.
            client.curator().create().withMode(CreateMode.PERSISTENT_SEQUENTIAL).forPath(records + "/" + task + "-", data);
            try {
                claim.complete();
            } catch (RuntimeException ignored) {
                // a lost claim, a lost connection: the unchecked worker believes its work is done either way
            }
            io.send("DONE " + task + " " + key + " " + token);
            return;
        }
        end(claim, io, task, key, token, "DONE " + task + " " + key + " " + token,
                () -> claim.completeWith(List.of(client.curator().transactionOp().create().withMode(CreateMode.PERSISTENT_SEQUENTIAL)
                        .forPath(records + "/" + task + "-", data))));
    }

    /** An ending that may throw what the queue's endings throw (Curator's op builders declare Exception). */
    private interface Ending {
        void run() throws Exception;
    }

    /** Ends the claim, tries again while the outcome is indeterminate, and reports how it ended. */
    private static void end(TaskClaim<QueueJob> claim, WorkerIo io, String task, String key, long token, String success,
                            Ending ending) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            try {
                ending.run();
                io.send(success);
                return;
            } catch (ClaimLostException lost) {
                io.send("LOST " + task + " " + key + " " + token);
                throw lost; // nothing changed; the task is someone else's now
            } catch (OutcomeUnknownException unknown) {
                io.send("UNKNOWN " + task + " " + key + " " + token);
                throw unknown; // committed or not, the claim is over: its session ended
            } catch (ConnectionLostException indeterminate) {
                // The same call again recognizes an earlier commit (our claim node is still there).
                if (System.nanoTime() > deadline) {
                    io.send("ERROR " + task + " ending still indeterminate after 20 s");
                    throw indeterminate;
                }
            } catch (RuntimeException other) {
                // Any other failure would otherwise end the handler silently: say what it was.
                io.send("ERROR " + task + " ending failed: " + other.getClass().getName() + ": "
                        + String.valueOf(other.getMessage()).replace('\n', ' '));
                throw other;
            }
        }
    }
}
