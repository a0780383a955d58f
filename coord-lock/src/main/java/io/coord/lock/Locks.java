package io.coord.lock;

import io.coord.CoordClient;
import io.coord.CoordPath;
import io.coord.internal.Zk;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Where locks come from: a fair reentrant {@linkplain #mutex lock}, a {@linkplain #readWrite
 * read-write lock} and a {@linkplain #semaphore semaphore}, all fenced and loss-aware; the
 * {@linkplain #path lock path} helper; and {@linkplain #inspect inspection}.
 *
 * <pre>{@code
 * DistributedLock lock = Locks.mutex(client, Locks.path("orders", "42"));
 * try (LockLease lease = lock.acquire(Duration.ofSeconds(5))) {
 *     lease.guardedSetData(orderPath, bytes);   // commits only while we hold the lock
 * }
 * }</pre>
 *
 * Works on a client from {@link CoordClient#connect} or {@link CoordClient#wrap}.
 */
public final class Locks {
    /** The root of {@link #path}. */
    public static final CoordPath ROOT = CoordPath.of("/locks");

    private Locks() {
    }

    /**
     * {@code /locks/{domain}/{resource}}. Each part is exactly one path segment, validated: an
     * empty part, a {@code /} inside one, {@code .} or {@code ..} fail with
     * {@link io.coord.InvalidNameException} quoting it, so {@code /locks/order//123} can never
     * silently name a second lock.
     */
    public static CoordPath path(String domain, String resource) {
        return ROOT.child(domain).child(resource);
    }

    public static DistributedLock mutex(CoordClient client, CoordPath path) {
        return mutex(client, path, LockOptions.defaults());
    }

    public static DistributedLock mutex(CoordClient client, CoordPath path, LockOptions options) {
        return new ZkMutex(queue(client, path, options));
    }

    public static ReadWriteLock readWrite(CoordClient client, CoordPath path) {
        return readWrite(client, path, LockOptions.defaults());
    }

    public static ReadWriteLock readWrite(CoordClient client, CoordPath path, LockOptions options) {
        return new ZkReadWriteLock(queue(client, path, options));
    }

    /**
     * A semaphore of {@code permits} (at least 1; every user of {@code path} must give the same
     * number: the first acquire records it in the path's node, another count is refused at acquire).
     * Curator's InterProcessSemaphoreV2 on the same path shares it (V2 does not compare counts).
     */
    public static Semaphore semaphore(CoordClient client, CoordPath path, int permits) {
        return semaphore(client, path, permits, LockOptions.defaults());
    }

    public static Semaphore semaphore(CoordClient client, CoordPath path, int permits, LockOptions options) {
        if (permits < 1) {
            throw new IllegalArgumentException("a semaphore needs at least 1 permit, got " + permits);
        }
        Objects.requireNonNull(path, "path");
        // The gate of InterProcessSemaphoreV2's layout (SemaphoreLayout): a mutex at path/locks.
        return new ZkSemaphore(queue(client, path.child(SemaphoreLayout.LOCKS), options), path, permits);
    }

    /** Who holds the lock at {@code path} and who waits, in queue order; empty lists if nobody. */
    public static LockInfo inspect(CoordClient client, CoordPath path) throws InterruptedException {
        Objects.requireNonNull(path, "path");
        return new LockInspector(Zk.of(client)).inspect(path);
    }

    /** Every lock (a node with lock, read or write children, or a semaphore's leases/) at or under {@code prefix}. */
    public static List<LockInfo> list(CoordClient client, CoordPath prefix) throws InterruptedException {
        Objects.requireNonNull(prefix, "prefix");
        return new LockInspector(Zk.of(client)).list(prefix);
    }

    private static ZkLockQueue queue(CoordClient client, CoordPath path, LockOptions options) {
        Objects.requireNonNull(client, "client");
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(options, "options");
        return new ZkLockQueue(client, path, options);
    }

    /** A timeout as nanoseconds; negative or null is an error naming it. */
    static long nanos(Duration timeout) {
        if (timeout == null || timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must be >= 0, got " + timeout);
        }
        try {
            return timeout.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE / 2; // centuries: effectively unbounded, still a bound
        }
    }
}
