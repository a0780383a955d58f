package io.coord.cli.demo;

import io.coord.Codec;
import io.coord.CodecException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;

/**
 * The job's plan as the coordinator keeps it in ZooKeeper ({@link DemoLayout#JOB}): which waves
 * of tasks exist and whether each was enqueued. A wave is first written as planned, then
 * enqueued in one transaction, then marked filled; a coordinator that takes over reads this and
 * carries on where the previous one stopped (see {@code Coordinator}).
 *
 * @param jobId the job's id, from {@code SequenceIds}
 * @param waves the waves planned so far, in order
 */
record Job(long jobId, List<Wave> waves) {
    Job {
        waves = List.copyOf(waves);
    }

    /** One task of the plan: its id (from {@code BlockIds}) and the amount it adds to the ledger. */
    record Planned(long id, long amount) {
    }

    /** One wave: its tasks, and whether they are in the queue. */
    record Wave(int number, List<Planned> tasks, boolean filled) {
        Wave {
            tasks = List.copyOf(tasks);
        }

        Wave asFilled() {
            return new Wave(number, tasks, true);
        }
    }

    /** What a queue task carries: the planned task and its wave. */
    record Payload(long id, int wave, long amount) {
    }

    Optional<Wave> wave(int number) {
        return waves.stream().filter(w -> w.number() == number).findFirst();
    }

    /** This plan with {@code wave} added or replacing the wave of the same number. */
    Job with(Wave wave) {
        List<Wave> next = new ArrayList<>(waves.stream().filter(w -> w.number() != wave.number()).toList());
        next.add(wave);
        next.sort((a, b) -> Integer.compare(a.number(), b.number()));
        return new Job(jobId, next);
    }

    int filledWaves() {
        return (int) waves.stream().filter(Wave::filled).count();
    }

    List<Planned> allTasks() {
        return waves.stream().flatMap(w -> w.tasks().stream()).toList();
    }

    /**
     * The amount of a task: drawn from the run's seed and the task's place in the plan, so a run
     * with the same {@code --seed} posts the same amounts (ids differ: they come from ZooKeeper).
     */
    static long amount(long seed, int wave, int index) {
        return 10 + new Random(seed * 1_000_003L + wave * 10_007L + index).nextInt(90);
    }

    byte[] encode() {
        try {
            return Codec.mapper().writeValueAsBytes(this);
        } catch (IOException e) {
            throw new CodecException("could not encode the demo job " + jobId, e);
        }
    }

    static Job decode(byte[] data) {
        try {
            return Codec.mapper().readValue(data, Job.class);
        } catch (IOException e) {
            throw new CodecException("the demo job node holds no valid plan: " + e.getMessage(), e);
        }
    }
}
