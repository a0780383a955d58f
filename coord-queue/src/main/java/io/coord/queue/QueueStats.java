package io.coord.queue;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * What an operator wants to know about a queue, read in one pass ({@link TaskQueue#stats()}).
 *
 * @param queue            the queue's name
 * @param pending          tasks ready to be claimed now
 * @param waiting          pending tasks not yet ready (delayed, or waiting out a retry backoff)
 * @param processing       claimed tasks with their claim's owner and age, oldest claim first
 * @param dead             dead letters
 * @param oldestPendingAge how long the oldest ready task has been waiting since it was enqueued
 *                         (zero when none is ready)
 * @param depthCap         the cap on pending + processing tasks
 * @param foreign          nodes in the queue's directories that are not the queue's (a typo'd child,
 *                         another tool's node), by path under the queue's root, e.g. {@code tasks/oops}:
 *                         the queue ignores them (each is logged at WARN once) and lists them here
 * @param undecodable      task nodes that cannot be read as this queue's tasks (bytes that are not a
 *                         task, or a payload not of the queue's type), with their bytes and why; a
 *                         consumer dead-letters each one as it reads it. Counted in {@link #depth()},
 *                         not in the other counts
 */
public record QueueStats(String queue, int pending, int waiting, List<Processing> processing, int dead,
                         Duration oldestPendingAge, int depthCap, List<String> foreign,
                         List<UndecodableTask> undecodable) {
    /** One claimed task: who holds it and for how long. */
    public record Processing(TaskId task, String owner, Duration age, int attempts) {
        public Processing {
            Objects.requireNonNull(task, "task");
            Objects.requireNonNull(owner, "owner");
            Objects.requireNonNull(age, "age");
        }
    }

    public QueueStats {
        Objects.requireNonNull(queue, "queue");
        processing = List.copyOf(processing);
        foreign = List.copyOf(foreign);
        undecodable = List.copyOf(undecodable);
        Objects.requireNonNull(oldestPendingAge, "oldestPendingAge");
        if (pending < 0 || waiting < 0 || dead < 0) {
            throw new IllegalArgumentException("counts must be >= 0: pending " + pending + ", waiting " + waiting + ", dead " + dead);
        }
    }

    /** Stats of a queue whose task nodes all decode. */
    public QueueStats(String queue, int pending, int waiting, List<Processing> processing, int dead,
                      Duration oldestPendingAge, int depthCap, List<String> foreign) {
        this(queue, pending, waiting, processing, dead, oldestPendingAge, depthCap, foreign, List.of());
    }

    /** Stats of a queue whose directories hold only its own nodes, all decodable. */
    public QueueStats(String queue, int pending, int waiting, List<Processing> processing, int dead,
                      Duration oldestPendingAge, int depthCap) {
        this(queue, pending, waiting, processing, dead, oldestPendingAge, depthCap, List.of(), List.of());
    }

    /** Tasks in the queue: pending, waiting, processing and undecodable (what the depth cap counts). */
    public int depth() {
        return pending + waiting + processing.size() + undecodable.size();
    }
}
