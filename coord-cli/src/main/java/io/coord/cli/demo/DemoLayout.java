package io.coord.cli.demo;

import io.coord.CoordPath;
import io.coord.config.ConfigKey;
import io.coord.lock.Locks;
import java.time.Duration;
import java.util.List;

/**
 * The names the demo's controller and workers share: one place, so the two sides cannot drift
 * apart. Everything lives under the run's own namespace ({@code coord-demo-<run>}), so a run
 * against a real ensemble ({@code --connect}) touches nothing else and is removed at the end.
 */
final class DemoLayout {
    /** Membership: every worker joins this group. */
    static final String GROUP = "demo-workers";
    /** Discovery: every worker registers one instance of this service. */
    static final String SERVICE = "workers.demo";
    /** Election: the coordinator is the leader of this election. */
    static final String ELECTION = "demo-coordinator";
    /** The task queue the coordinator fills. */
    static final String QUEUE = "demo-tasks";
    /** SequenceIds: one id per job. */
    static final String JOB_IDS = "demo-jobs";
    /** BlockIds: one id per task. */
    static final String TASK_IDS = "demo-tasks";
    /** Double barriers: everyone starts together; the survivors finish together. */
    static final String START_BARRIER = "demo-start";
    static final String FINISH_BARRIER = "demo-finish";
    /** The lock every ledger write is made under. */
    static final CoordPath LEDGER_LOCK = Locks.path("demo", "ledger");
    /** The fence resource of the ledger (the controller's {@link io.coord.fence.FenceGuard}). */
    static final String LEDGER = "ledger";
    /** The job's plan, written by the coordinator under its leadership (guarded writes). */
    static final CoordPath JOB = CoordPath.of("/demo/job");
    /** How many of the job's waves the admin has released (a number): the coordinator fills a wave once it is released. */
    static final CoordPath RELEASED = CoordPath.of("/demo/released");
    /** One node per completed task, created in the same transaction as the completion. */
    static final CoordPath DONE = CoordPath.of("/demo/done");
    /** The config value every worker hot-reloads: how many tasks it claims per lock hold. */
    static final ConfigKey<Integer> BATCH_SIZE = ConfigKey.of("demo", "batch.size", Integer.class)
            .withDefault(1)
            .withValidator(v -> v >= 1 && v <= 20 ? List.of() : List.of("batch.size must be within 1..20, got " + v));

    /**
     * How long the controller and each worker wait for their first connection. Generous: the
     * controller connects while up to 16 worker JVMs boot on the same cores, and they all connect
     * at once; only the first connection waits this long, faults are timed by the session timeout.
     */
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(60);

    private DemoLayout() {
    }

    static String hex(long value) {
        return "0x" + Long.toHexString(value);
    }
}
