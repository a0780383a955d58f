package io.coord.spring.boot;

import io.coord.FencingToken;
import io.coord.Lease;

/**
 * What a running {@link LeaderOnly @LeaderOnly} or {@link CoordLocked @CoordLocked} job holds,
 * bound to the thread that runs it (not to threads the job starts itself).
 *
 * <pre>{@code
 * @Scheduled(fixedDelay = 60_000)
 * @LeaderOnly(election = "invoicing")
 * void sendInvoices() {
 *     for (Invoice invoice : pending()) {
 *         CoordJob.checkValid();                                   // stop once leadership is gone
 *         fence.enforce("invoices", CoordJob.token());             // the store refuses a deposed leader
 *         send(invoice);
 *     }
 * }
 * }</pre>
 *
 * Each accessor throws {@link IllegalStateException} when no guarded job runs on the calling thread.
 */
public final class CoordJob {
    /** The lease of the guarded run on this thread; set and restored by {@link CoordJobs} only. */
    static final ThreadLocal<Lease> CURRENT = new ThreadLocal<>();

    private CoordJob() {
    }

    /**
     * The fencing token of this run: the leadership's epoch or the lock lease's token. It is
     * greater than every token granted before it on the ensemble; hand it to each downstream
     * write ({@link io.coord.fence.FenceGuard}, a {@code WHERE token <= ?} update) so that a
     * write from a run that lost its lease is refused.
     */
    public static FencingToken token() {
        return lease("token()").token();
    }

    /**
     * Returns if this run's lease is still held (ACQUIRED, session connected); otherwise throws
     * {@link io.coord.LockLostException} naming the state. Call it before each step of protected work.
     */
    public static void checkValid() {
        lease("checkValid()").checkValid();
    }

    /** This run's lease itself, for guarded ZooKeeper writes ({@link Lease#guardedSetData}) and its state. */
    public static Lease lease() {
        return lease("lease()");
    }

    private static Lease lease(String call) {
        Lease lease = CURRENT.get();
        if (lease == null) {
            throw new IllegalStateException("CoordJob." + call + " was called on thread '" + Thread.currentThread().getName()
                    + "', where no @LeaderOnly or @CoordLocked job is running (the accessors are bound to the thread"
                    + " that runs the job, not to threads it starts)");
        }
        return lease;
    }
}
