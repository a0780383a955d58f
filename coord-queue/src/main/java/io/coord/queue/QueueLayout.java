package io.coord.queue;

import io.coord.CoordPath;

/**
 * Where a queue lives in ZooKeeper, and the node-name rules, in one place:
 * <pre>
 * /queues/{name}/tasks/task-0000000042          persistent-sequential: the task (JSON {@link TaskRecord})
 * /queues/{name}/claims/task-0000000042~9f3c…   ephemeral: one claim on that task (unique name per claim)
 * /queues/{name}/dead/task-0000000042           persistent: a dead letter (the task's record, with its last error)
 * /queues/{name}/keys/k-{key} | a-{uuid}        persistent: the task's idempotency key, deleted with the task
 * </pre>
 */
final class QueueLayout {
    static final String TASK_PREFIX = "task-";
    static final char CLAIM_SEPARATOR = '~';
    /** Keys given by the caller. */
    static final String USER_KEY_PREFIX = "k-";
    /** Keys Coord makes for unkeyed tasks, so that a retried transaction recognizes its own task. */
    static final String AUTO_KEY_PREFIX = "a-";

    final String name;
    final CoordPath root;
    final CoordPath tasks;
    final CoordPath claims;
    final CoordPath dead;
    final CoordPath keys;

    QueueLayout(String name) {
        this.name = CoordPath.validateName(name);
        this.root = CoordPath.of("queues", name);
        this.tasks = root.child("tasks");
        this.claims = root.child("claims");
        this.dead = root.child("dead");
        this.keys = root.child("keys");
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

    /** The claim node name for one claim of {@code taskName}: never reused, so a late delete can only hit our own claim. */
    static String claimName(String taskName, String unique) {
        return taskName + CLAIM_SEPARATOR + unique;
    }

    /** The task a claim node belongs to, or null if the name is not a claim's. */
    static String taskOfClaim(String claimName) {
        int at = claimName.indexOf(CLAIM_SEPARATOR);
        return at <= 0 ? null : claimName.substring(0, at);
    }

    static boolean isTaskName(String nodeName) {
        return nodeName.startsWith(TASK_PREFIX) && io.coord.internal.SequentialNodes.sequence(nodeName) >= 0
                && nodeName.indexOf(CLAIM_SEPARATOR) < 0;
    }
}
