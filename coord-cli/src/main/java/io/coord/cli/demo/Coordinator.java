package io.coord.cli.demo;

import io.coord.CoordClient;
import io.coord.cli.demo.Job.Payload;
import io.coord.cli.demo.Job.Planned;
import io.coord.cli.demo.Job.Wave;
import io.coord.election.Leadership;
import io.coord.naming.BlockIds;
import io.coord.naming.IdOptions;
import io.coord.naming.SequenceIds;
import io.coord.queue.Task;
import io.coord.queue.TaskQueue;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.zookeeper.KeeperException;

/**
 * What the elected coordinator does while it leads (a {@link io.coord.election.LeaderTask}): it
 * plans the job's waves, takes each task's id from {@link BlockIds} (the job's from
 * {@link SequenceIds}), fills the queue one wave at a time, each once the admin has released it
 * ({@link DemoLayout#RELEASED}: the controller's script releases a wave when its fault needs
 * fresh tasks), and then keeps leading until it is interrupted.
 *
 * <p>Every write to the plan is a guarded write of the leadership (it commits only while the
 * leader's node exists), so a coordinator that lost its leadership cannot change the plan. The
 * steps are written so that a new coordinator can take over after any of them: a wave is written
 * as planned before it is enqueued (in one transaction, all or nothing), and marked filled after.
 * A new coordinator that finds a wave planned but not filled looks for its tasks in the queue and
 * among the done markers: finding any means the enqueue committed.
 */
final class Coordinator {
    private final CoordClient client;
    private final TaskQueue<Payload> queue;
    private final Wire wire;
    private final long seed;
    private final int[] waveSizes;

    Coordinator(CoordClient client, TaskQueue<Payload> queue, Wire wire, long seed, int[] waveSizes) {
        this.client = client;
        this.queue = queue;
        this.wire = wire;
        this.seed = seed;
        this.waveSizes = waveSizes.clone();
    }

    void lead(Leadership leadership) throws InterruptedException {
        wire.emit("LEADER", "epoch", DemoLayout.hex(leadership.epoch().value()));
        Job job = read().orElse(null);
        if (job == null) {
            long jobId = SequenceIds.open(client, DemoLayout.JOB_IDS).next();
            job = new Job(jobId, List.of());
            leadership.guardedTransaction(List.of(createOp(job)));
            wire.emit("JOB", "job", jobId, "waves", waveSizes.length);
        } else {
            wire.emit("RESUME", "job", job.jobId(), "filled", job.filledWaves(), "waves", waveSizes.length);
        }
        try (BlockIds ids = BlockIds.open(client, DemoLayout.TASK_IDS, IdOptions.builder().blockSize(16).build())) {
            for (int number = 1; number <= waveSizes.length; number++) {
                Optional<Wave> existing = job.wave(number);
                if (existing.isPresent() && existing.get().filled()) {
                    continue;
                }
                awaitReleased(number, leadership);
                Wave wave;
                if (existing.isPresent() && enqueued(existing.get())) {
                    wave = existing.get(); // the previous coordinator's enqueue did commit
                } else {
                    if (existing.isPresent()) {
                        wave = existing.get();
                    } else {
                        wave = plan(ids, number);
                        job = job.with(wave);
                        leadership.guardedSetData(DemoLayout.JOB, job.encode());
                    }
                    int w = wave.number();
                    queue.enqueueAll(wave.tasks().stream().map(t -> new Payload(t.id(), w, t.amount())).toList());
                }
                job = job.with(wave.asFilled());
                leadership.guardedSetData(DemoLayout.JOB, job.encode());
                List<Planned> tasks = wave.tasks();
                wire.emit("FILLED", "wave", wave.number(), "tasks", tasks.size(), "first", tasks.get(0).id(),
                        "last", tasks.get(tasks.size() - 1).id(), "job", job.jobId());
            }
        }
        wire.emit("ALL_FILLED", "job", job.jobId());
        new CountDownLatch(1).await(); // lead (and be fenced by our epoch) until interrupted
    }

    private Wave plan(BlockIds ids, int number) throws InterruptedException {
        List<Planned> tasks = new ArrayList<>();
        for (int i = 0; i < waveSizes[number - 1]; i++) {
            tasks.add(new Planned(ids.next(), Job.amount(seed, number, i)));
        }
        return new Wave(number, tasks, false);
    }

    /** Whether any task of {@code wave} is in the queue or done: the all-or-nothing enqueue committed. */
    private boolean enqueued(Wave wave) throws InterruptedException {
        Set<Long> ids = new HashSet<>();
        wave.tasks().forEach(t -> ids.add(t.id()));
        for (Task<Payload> task : queue.tasks()) {
            if (ids.contains(task.payload().id())) {
                return true;
            }
        }
        // Read after the queue: a task that left the queue meanwhile has its done marker by now.
        return doneIds().stream().anyMatch(ids::contains);
    }

    /**
     * Waits until the admin has released wave {@code number}; the leadership is checked each round.
     * Not until the previous wave is done: a worker the script stops while it holds a task of that
     * wave would keep it from ever being done.
     */
    private void awaitReleased(int number, Leadership leadership) throws InterruptedException {
        while (true) {
            leadership.checkValid();
            if (released() >= number) {
                return;
            }
            // A poll, not a watch: a release is rare and a new coordinator must not miss one.
            TimeUnit.MILLISECONDS.sleep(200);
        }
    }

    private int released() throws InterruptedException {
        try {
            return Integer.parseInt(new String(client.curator().getData().forPath(DemoLayout.RELEASED.value()), StandardCharsets.UTF_8));
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("could not read " + DemoLayout.RELEASED + ": " + e.getMessage(), e);
        }
    }

    private Set<Long> doneIds() throws InterruptedException {
        try {
            Set<Long> done = new HashSet<>();
            for (String name : client.curator().getChildren().forPath(DemoLayout.DONE.value())) {
                done.add(Long.parseLong(name));
            }
            return done;
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("could not list " + DemoLayout.DONE + ": " + e.getMessage(), e);
        }
    }

    private CuratorOp createOp(Job job) {
        try {
            return client.curator().transactionOp().create().forPath(DemoLayout.JOB.value(), job.encode());
        } catch (Exception e) {
            throw new IllegalStateException("could not build the create of " + DemoLayout.JOB, e);
        }
    }

    private Optional<Job> read() throws InterruptedException {
        try {
            return Optional.of(Job.decode(client.curator().getData().forPath(DemoLayout.JOB.value())));
        } catch (KeeperException.NoNodeException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("could not read " + DemoLayout.JOB + ": " + e.getMessage(), e);
        }
    }
}
