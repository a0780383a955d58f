package io.coord.queue;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * A task node or dead letter that cannot be read as this queue's task: bytes that are not a task
 * record (a bad hand edit, a producer bug), or a record whose payload is not the queue's type.
 * Operator views list it beside the tasks that decode ({@link TaskList#undecodable()},
 * {@link QueueStats#undecodable()}) instead of failing; consumers dead-letter it with its bytes
 * unchanged, so it can be repaired and requeued.
 *
 * @param id    the node's name, e.g. {@code task-0000000042}
 * @param path  the node's full path, e.g. {@code /queues/jobs/dead/task-0000000042}
 * @param data  the node's bytes as read (a copy)
 * @param error why it cannot be decoded, naming the node
 */
public record UndecodableTask(TaskId id, String path, byte[] data, String error) {
    /** Bytes shown by {@link #toString()}; the rest is counted, not printed. */
    static final int SHOWN_BYTES = 200;

    public UndecodableTask {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(error, "error");
        data = data == null ? new byte[0] : data.clone();
    }

    @Override
    public byte[] data() {
        return data.clone();
    }

    /** The first {@link #SHOWN_BYTES} bytes as UTF-8 (invalid sequences replaced), with how many more there are. */
    public String preview() {
        String shown = new String(data, 0, Math.min(data.length, SHOWN_BYTES), StandardCharsets.UTF_8);
        return data.length <= SHOWN_BYTES ? shown : shown + "… [" + data.length + " bytes]";
    }

    // A record compares arrays by identity; two reads of the same bytes are the same entry.
    @Override
    public boolean equals(Object o) {
        return o instanceof UndecodableTask u && id.equals(u.id) && path.equals(u.path) && Arrays.equals(data, u.data)
                && error.equals(u.error);
    }

    @Override
    public int hashCode() {
        return Objects.hash(id, path, Arrays.hashCode(data), error);
    }

    @Override
    public String toString() {
        return "UndecodableTask[" + path + ", " + data.length + " bytes: " + preview() + ", error: " + error + "]";
    }
}
