package io.coord.lock;

import io.coord.CoordPath;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.recipes.locks.Lease;

/**
 * A {@link Semaphore} with the shape of Curator 5.9's {@code InterProcessSemaphoreV2}, so code
 * written for it switches by changing the line that creates the semaphore: {@code acquire} waits
 * for one lease (or {@code qty}, all or none), the timed forms return {@code null} when not granted
 * in time, {@code returnLease}/{@code returnAll} or {@link Lease#close()} give leases back. As
 * V2 does, a waiter whose session ends while it waits starts again on the new session, as often
 * as the Curator client's retry policy allows (within the timeout); the native
 * {@link Semaphore#acquire} fails instead. Leases belong to no thread: any thread may return them.
 *
 * <p>Every lease handed out is a {@link CoordLease}: its {@link CoordLease#lockLease()} has the
 * fencing token and the loss signal.
 */
public final class CuratorSemaphore {
    /** A lease of this view: Curator's {@link Lease}, and the Coord lease behind it. */
    public interface CoordLease extends Lease {
        /** The Coord lease: fencing token, state (LOST for good when the session ends), listeners. */
        LockLease lockLease();
    }

    private final ZkSemaphore semaphore;

    CuratorSemaphore(ZkSemaphore semaphore) {
        this.semaphore = semaphore;
    }

    /** Waits, without a bound, for one lease. */
    public CoordLease acquire() throws Exception {
        return one(-1).orElseThrow(() -> new IllegalStateException("unbounded acquire of semaphore " + semaphore.path()
                + " returned without a lease"));
    }

    /** Waits, without a bound, for {@code qty} leases: all of them, or none (those taken are returned on failure). */
    public Collection<Lease> acquire(int qty) throws Exception {
        return many(qty, -1);
    }

    /** One lease within {@code time}, or {@code null} if none was granted in time. */
    public CoordLease acquire(long time, TimeUnit unit) throws Exception {
        return one(nanos(time, unit)).orElse(null);
    }

    /**
     * {@code qty} leases within {@code time} in all, or {@code null} if they were not all granted
     * in time (those taken meanwhile are returned).
     */
    public Collection<Lease> acquire(int qty, long time, TimeUnit unit) throws Exception {
        return many(qty, nanos(time, unit));
    }

    /** Gives a lease back (closes it); never throws, as V2's does not. */
    public void returnLease(Lease lease) {
        if (lease == null) {
            return;
        }
        try {
            lease.close();
        } catch (Exception e) {
            // closeQuietly, as V2: the lease's own close logs what went wrong
        }
    }

    public void returnAll(Collection<Lease> leases) {
        for (Lease lease : leases) {
            returnLease(lease);
        }
    }

    /** The names of the lease nodes now in {@code leases/} (holders, and a client being admitted). */
    public Collection<String> getParticipantNodes() throws Exception {
        CoordPath leases = semaphore.path().child(SemaphoreLayout.LEASES);
        return semaphore.zk().curator().getChildren().forPath(leases.value());
    }

    /** The semaphore this is a view of. */
    public Semaphore semaphore() {
        return semaphore;
    }

    private Optional<CoordLease> one(long timeoutNanos) throws InterruptedException {
        return AcrossSessions.acquire(semaphore.zk(), semaphore.path(), semaphore::acquireNanos, timeoutNanos)
                .map(lease -> new ViewLease(lease, semaphore));
    }

    private Collection<Lease> many(int qty, long timeoutNanos) throws InterruptedException {
        if (qty < 1) {
            throw new IllegalArgumentException("qty must be at least 1, got " + qty + " (semaphore " + semaphore.path() + ")");
        }
        long start = System.nanoTime();
        List<Lease> taken = new ArrayList<>(qty);
        boolean done = false;
        try {
            while (taken.size() < qty) {
                long left = timeoutNanos < 0 ? -1 : Math.max(0, timeoutNanos - (System.nanoTime() - start));
                Optional<CoordLease> next = one(left);
                if (next.isEmpty()) {
                    return null; // V2's answer to "not in time"; the finally returns what we took
                }
                taken.add(next.get());
            }
            done = true;
            return List.copyOf(taken);
        } finally {
            if (!done) {
                returnAll(taken);
            }
        }
    }

    private static long nanos(long time, TimeUnit unit) {
        if (unit == null) {
            throw new IllegalArgumentException("unit must not be null (time " + time + ")");
        }
        return Math.max(0, unit.toNanos(time));
    }

    private record ViewLease(LockLease lockLease, ZkSemaphore semaphore) implements CoordLease {
        @Override
        public void close() {
            lockLease.close();
        }

        @Override
        public byte[] getData() throws Exception {
            return semaphore.zk().curator().getData().forPath(lockLease.token().node().value());
        }

        @Override
        public String getNodeName() {
            return lockLease.token().node().name();
        }
    }

    @Override
    public String toString() {
        return "CuratorSemaphore[" + semaphore.path() + ", " + semaphore.permits() + " permits]";
    }
}
