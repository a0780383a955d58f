package io.coord.queue;

import io.coord.CoordPath;
import io.coord.internal.SequentialNodes;

/**
 * A task's identity: its node name under {@code /queues/{name}/tasks}, e.g.
 * {@code task-0000000042}. The 10-digit suffix is the enqueue sequence, which orders tasks
 * within a lane. A dead letter keeps the id it had as a task; a requeued one gets a new id.
 */
public record TaskId(String name) implements Comparable<TaskId> {
    public TaskId {
        CoordPath.validateName(name);
        if (!name.startsWith(QueueLayout.TASK_PREFIX) || SequentialNodes.sequence(name) < 0) {
            throw new IllegalArgumentException("task id \"" + name + "\" is not of the form "
                    + QueueLayout.TASK_PREFIX + "<10-digit sequence>");
        }
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
