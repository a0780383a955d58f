package io.coord.queue;

import java.util.AbstractList;
import java.util.List;

/**
 * An operator listing ({@link TaskQueue#tasks()}, {@link TaskQueue#deadLetters()}): the tasks that
 * decode, in the listing's order, as a {@code List<Task<T>>}, and the nodes that do not in
 * {@link #undecodable()}, by sequence. One bad node never makes the listing fail.
 */
public final class TaskList<T> extends AbstractList<Task<T>> {
    private final List<Task<T>> tasks;
    private final List<UndecodableTask> undecodable;

    public TaskList(List<Task<T>> tasks, List<UndecodableTask> undecodable) {
        this.tasks = List.copyOf(tasks);
        this.undecodable = List.copyOf(undecodable);
    }

    /** The nodes of this listing that cannot be read as this queue's tasks, with their bytes and why. */
    public List<UndecodableTask> undecodable() {
        return undecodable;
    }

    @Override
    public Task<T> get(int index) {
        return tasks.get(index);
    }

    @Override
    public int size() {
        return tasks.size();
    }

    @Override
    public String toString() {
        return undecodable.isEmpty() ? tasks.toString() : tasks + " and undecodable " + undecodable;
    }
}
