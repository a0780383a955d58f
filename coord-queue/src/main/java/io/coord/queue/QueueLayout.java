package io.coord.queue;

import io.coord.CoordPath;
import io.coord.ForeignNodesException;
import java.util.List;

/**
 * Where a queue lives in ZooKeeper, and the node-name rules, in one place:
 * <pre>
 * /queues/{name}/tasks/task-0000000042          persistent-sequential: the task (JSON {@link TaskRecord}), keyed or of a batch
 * /queues/{name}/tasks/task-{11 chars}-0000000043   an unkeyed task: its enqueue's unique id, to find it after a lost reply
 * /queues/{name}/claims/task-0000000042~9f3c…   ephemeral: one claim on that task (unique name per claim)
 * /queues/{name}/dead/task-0000000042           persistent: a dead letter (the task's record, with its last error)
 * /queues/{name}/keys/k-{key} | a-{uuid}        persistent: the task's idempotency key; a-… is deleted with the
 *                                               task, k-… becomes a completed-key record at completion
 * /queues/{name}/completed/c-0000000007         persistent-sequential: one remembered completion, in completion
 *                                               order ({@link KeyWindow})
 * </pre>
 * A partitioned queue ({@link QueueOptions#partitions()} N &gt; 1) records {@code partitions=N} in the
 * root's data and has this layout once per partition under {@code /queues/{name}/p{i}}, its task
 * names starting {@code task-p{i}-} ({@link #partition(int)}).
 */
final class QueueLayout {
    static final String TASK_PREFIX = "task-";
    static final char CLAIM_SEPARATOR = '~';
    /**
     * The name prefix of a single unkeyed task: {@code task-{11 characters}-}, ZooKeeper appends the
     * sequence. The 11 characters are 64 bits (URL-safe Base64): the next value of one JVM-wide
     * counter that starts at a random value ({@link java.security.SecureRandom}, drawn once). So
     * names are unique by construction among all queues and clients of one JVM, and across JVMs
     * two producers collide only if their counters' ranges overlap (about n / 2^64 for n
     * enqueues), as unlikely as Curator's protected-mode UUIDs; after a lost reply the enqueue
     * finds its own node by name, as protected mode does. A counter costs no entropy per task
     * (drawing 8 secure bytes per enqueue showed in the enqueue profile). 27 characters in all
     * (32 with a partition's {@code p{i}-}).
     */
    private static final java.util.concurrent.atomic.AtomicLong UNIQUE =
            new java.util.concurrent.atomic.AtomicLong(new java.security.SecureRandom().nextLong());
    private static final char[] URL_SAFE = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".toCharArray();

    String unkeyedPrefix() {
        return taskPrefix + unique(UNIQUE.getAndIncrement()) + "-";
    }

    /** {@code bits} as 11 URL-safe Base64 characters, most significant first (as the encoder writes 8 bytes, unpadded). */
    static String unique(long bits) {
        char[] out = new char[11];
        // 8 bytes = 64 bits = ten 6-bit groups and a last group of 4 bits shifted left by 2 (Base64's padding bits).
        long v = bits;
        out[10] = URL_SAFE[(int) ((v & 0xF) << 2)];
        v >>>= 4;
        for (int i = 9; i >= 0; i--) {
            out[i] = URL_SAFE[(int) (v & 0x3F)];
            v >>>= 6;
        }
        return new String(out);
    }

    /** Keys given by the caller. */
    static final String USER_KEY_PREFIX = "k-";
    /** Keys Coord makes for unkeyed tasks, so that a retried transaction recognizes its own task. */
    static final String AUTO_KEY_PREFIX = "a-";
    /** Entries of {@code completed/}, one per remembered completed key. */
    static final String COMPLETED_PREFIX = "c-";

    final String name;
    /** Where the queue's nodes are: {@code /queues/{name}}, or {@code /queues/{name}/p-{i}} for partition i. */
    final CoordPath root;
    /** The partition, or -1 for an unpartitioned queue. */
    final int partition;
    /** How this layout's task names start: {@code task-}, or {@code task-p{i}-} in partition i (so an id names its partition). */
    final String taskPrefix;
    final CoordPath tasks;
    final CoordPath claims;
    final CoordPath dead;
    final CoordPath keys;
    final CoordPath completed;

    QueueLayout(String name) {
        this(name, CoordPath.of("queues", CoordPath.validateName(name)), -1);
    }

    private QueueLayout(String name, CoordPath root, int partition) {
        this.name = CoordPath.validateName(name);
        this.root = root;
        this.partition = partition;
        this.taskPrefix = partition < 0 ? TASK_PREFIX : TASK_PREFIX + PARTITION_PREFIX + partition + "-";
        this.tasks = root.child("tasks");
        this.claims = root.child("claims");
        this.dead = root.child("dead");
        this.keys = root.child("keys");
        this.completed = root.child("completed");
    }

    /** Prefix of a partition's directory under the queue root, and of its tasks' names after {@code task-}. */
    static final String PARTITION_PREFIX = "p";

    /** The layout of partition {@code i} of this (unpartitioned-root) queue: {@code /queues/{name}/p{i}/…}. */
    QueueLayout partition(int i) {
        return new QueueLayout(name, root.child(PARTITION_PREFIX + i), i);
    }

    /** The partition a task name says ({@code task-p{i}-…}), or -1 if it names none. */
    static int partitionOf(String taskName) {
        String head = TASK_PREFIX + PARTITION_PREFIX;
        if (!taskName.startsWith(head)) {
            return -1;
        }
        int end = taskName.indexOf('-', head.length());
        if (end <= head.length() || end - head.length() > 3) {
            return -1;
        }
        for (int i = head.length(); i < end; i++) {
            if (!Character.isDigit(taskName.charAt(i))) {
                return -1;
            }
        }
        return Integer.parseInt(taskName.substring(head.length(), end));
    }

    /** Whether a child of a partitioned queue's root is one of its {@code count} partitions. */
    static boolean isPartitionDir(String nodeName, int count) {
        if (!nodeName.startsWith(PARTITION_PREFIX) || nodeName.length() < 2 || nodeName.length() > 4) {
            return false;
        }
        for (int i = 1; i < nodeName.length(); i++) {
            if (!Character.isDigit(nodeName.charAt(i))) {
                return false;
            }
        }
        int n = Integer.parseInt(nodeName.substring(1));
        return n < count && nodeName.equals(PARTITION_PREFIX + n);
    }

    CoordPath task(String taskName) {
        return tasks.child(taskName);
    }

    CoordPath claim(String claimName) {
        return claims.child(claimName);
    }

    CoordPath deadLetter(String taskName) {
        return dead.child(taskName);
    }

    CoordPath key(String keyNode) {
        return keys.child(keyNode);
    }

    CoordPath completedEntry(String entryName) {
        return completed.child(entryName);
    }

    /** The claim node name for one claim of {@code taskName}: never reused, so a late delete can only hit our own claim. */
    static String claimName(String taskName, String unique) {
        return taskName + CLAIM_SEPARATOR + unique;
    }

    /** The task a claim node belongs to, or null if the name is not a claim's. */
    static String taskOfClaim(String claimName) {
        int at = claimName.indexOf(CLAIM_SEPARATOR);
        return at <= 0 ? null : claimName.substring(0, at);
    }

    /** The queue root's own children. */
    static final List<String> ROOT_CHILDREN = List.of("tasks", "claims", "dead", "keys", "completed");
    /** What Curator's DistributedQueue (and its priority, delay and id variants) names its items, directly under its path. */
    static final String CURATOR_ITEM_PREFIX = "queue-";

    static boolean isRootChild(String nodeName) {
        return ROOT_CHILDREN.contains(nodeName);
    }

    /** Whether a child of the queue root is an item of Curator's DistributedQueue on the same path. */
    static boolean isCuratorItem(String nodeName) {
        return nodeName.startsWith(CURATOR_ITEM_PREFIX);
    }

    /** Whether a child of {@code claims/} is a claim: a task's name, the separator, something unique. */
    static boolean isClaimName(String nodeName) {
        String task = taskOfClaim(nodeName);
        return task != null && isTaskName(task) && nodeName.length() > task.length() + 1;
    }

    static boolean isKeyName(String nodeName) {
        return nodeName.length() > 2 && (nodeName.startsWith(USER_KEY_PREFIX) || nodeName.startsWith(AUTO_KEY_PREFIX));
    }

    /**
     * The refusal to open a queue whose path holds Curator DistributedQueue items: Coord's consumers
     * would never see them and Curator's never see Coord's tasks, so each side's producers would wait
     * on consumers that are not there. Names the path, the items and what to do.
     */
    static ForeignNodesException curatorItemsAt(QueueLayout layout, List<String> items) {
        String names = ForeignNodesException.listed(items);
        return new ForeignNodesException(layout.root + " holds " + items.size() + " item(s) of Curator's DistributedQueue ("
                + CURATOR_ITEM_PREFIX + "{seq}): " + names + ". The two layouts differ in kind (Coord keeps tasks/, claims/,"
                + " dead/ and keys/), so neither library would ever deliver the other's items; Coord will not open queue '"
                + layout.name + "' beside them. Drain the Curator queue (stop its producers, let its consumers finish) or give"
                + " the Coord queue another name (docs/MIGRATING.md, DistributedQueue)", layout.root, items);
    }

    static boolean isTaskName(String nodeName) {
        return nodeName.startsWith(TASK_PREFIX) && io.coord.internal.SequentialNodes.sequence(nodeName) >= 0
                && nodeName.indexOf(CLAIM_SEPARATOR) < 0;
    }
}
