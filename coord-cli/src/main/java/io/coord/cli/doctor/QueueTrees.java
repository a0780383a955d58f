package io.coord.cli.doctor;

import io.coord.CoordClient;
import io.coord.CoordPath;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.zookeeper.KeeperException;

/**
 * What the read-only tools (the doctor and the web console) check before they open a queue:
 * {@code TaskQueue.open} creates whatever directory of the queue is missing, as its producers and
 * consumers need, and a tool must not write. A queue is complete when every directory exists:
 * {@code tasks}, {@code claims}, {@code dead}, {@code keys} and {@code completed} under
 * {@code /queues/{name}}, or under each {@code /queues/{name}/p{i}} of a partitioned queue (its
 * root's data records {@code partitions=N}; see coord-queue's package-info).
 */
public final class QueueTrees {
    public static final CoordPath QUEUES = CoordPath.of("/queues");
    private static final List<String> DIRS = List.of("tasks", "claims", "dead", "keys", "completed");
    private static final String RECORD_PREFIX = "partitions=";

    private QueueTrees() {
    }

    /**
     * The missing directories of queue {@code name}, relative to its root ({@code p3/claims} for a
     * partition's); empty when the queue is complete and may be opened without writing.
     */
    public static List<String> missing(CoordClient client, String name) throws Exception {
        CoordPath root = QUEUES.child(name);
        int partitions = recordedPartitions(client, root);
        List<String> missing = new ArrayList<>();
        if (partitions <= 1) {
            addMissing(client, root, "", missing);
        } else {
            for (int i = 0; i < partitions; i++) {
                addMissing(client, root.child("p" + i), "p" + i + "/", missing);
            }
        }
        return missing;
    }

    private static int recordedPartitions(CoordClient client, CoordPath root) throws Exception {
        byte[] data;
        try {
            data = client.curator().getData().forPath(root.value());
        } catch (KeeperException.NoNodeException gone) {
            return 1;
        }
        String text = data == null ? "" : new String(data, StandardCharsets.UTF_8).trim();
        if (!text.startsWith(RECORD_PREFIX)) {
            return 1;
        }
        try {
            return Integer.parseInt(text.substring(RECORD_PREFIX.length()).trim());
        } catch (NumberFormatException bad) {
            return 1; // opening it reports the bad record by name
        }
    }

    private static void addMissing(CoordClient client, CoordPath dir, String prefix, List<String> missing) throws Exception {
        List<String> have;
        try {
            have = client.curator().getChildren().forPath(dir.value());
        } catch (KeeperException.NoNodeException gone) {
            have = List.of();
        }
        for (String d : DIRS) {
            if (!have.contains(d)) {
                missing.add(prefix + d);
            }
        }
    }
}
