package io.coord.queue;

import io.coord.CoordPath;
import io.coord.internal.SequentialNodes;

/**
 * A task's identity: its node name under the queue's {@code tasks} directory: {@code task-0000000042}
 * (a keyed task, or one of a batch), {@code task-{11 characters}-0000000042} (a single unkeyed task:
 * the enqueue's unique id), and in partition {@code i} of a partitioned queue the same after
 * {@code task-p{i}-}. The 10-digit suffix is the enqueue sequence, which orders tasks within a lane
 * of one partition. A dead letter keeps the id it had as a task; a requeued one gets a new id.
 */
public record TaskId(String name) implements Comparable<TaskId> {
    public TaskId {
        CoordPath.validateName(name);
        if (!name.startsWith(QueueLayout.TASK_PREFIX) || SequentialNodes.sequence(name) < 0) {
            throw new IllegalArgumentException("task id \"" + name + "\" is not of the form "
                    + QueueLayout.TASK_PREFIX + "<10-digit sequence>");
        }
    }

    /** The partition this id names ({@code task-p{i}-…}), or 0 for a task of an unpartitioned queue. */
    public int partition() {
        return Math.max(0, QueueLayout.partitionOf(name));
    }

    /** The enqueue sequence (the numeric suffix). */
    public long sequence() {
        return SequentialNodes.sequence(name);
    }

    @Override
    public int compareTo(TaskId other) {
        return Long.compare(sequence(), other.sequence());
    }

    @Override
    public String toString() {
        return name;
    }
}
