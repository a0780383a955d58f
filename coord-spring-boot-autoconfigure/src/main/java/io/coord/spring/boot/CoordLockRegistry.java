package io.coord.spring.boot;

import io.coord.CoordClient;
import io.coord.CoordPath;
import io.coord.InvalidNameException;
import io.coord.lock.DistributedLock;
import io.coord.lock.JucLock;
import io.coord.lock.Locks;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.springframework.integration.support.locks.ExpirableLockRegistry;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * A Spring Integration {@link LockRegistry} of Coord mutexes: {@code obtain(key)} is the
 * {@link java.util.concurrent.locks.Lock} view ({@link io.coord.lock.DistributedLock#asLock()}) of
 * {@code /locks/{domain}/{key}}. Holds belong to threads and are reentrant, as with Spring
 * Integration's own registries; the hold's fencing token and loss signal are
 * {@code ((JucLock) lock).heldByCurrentThread()}.
 *
 * <p>One lock object per key (coord-lock's rule: share one object per path in a process) until
 * {@link #expireUnusedOlderThan} drops it; a key is one path segment ({@code key.toString()}),
 * and a key that is not one ({@code "a/b"}, empty, {@code ".."}) is refused naming it.
 */
final class CoordLockRegistry implements ExpirableLockRegistry<JucLock> {
    /** A key's lock and when it was last obtained (this registry's clock, milliseconds). */
    private record Entry(DistributedLock lock, JucLock view, long lastUsed) {
        Entry touched(long now) {
            return new Entry(lock, view, now);
        }
    }

    private final CoordClient client;
    private final String domain;
    private final LongSupplier clock;
    private final Map<String, Entry> locks = new ConcurrentHashMap<>();

    CoordLockRegistry(CoordClient client, String domain) {
        this(client, domain, System::currentTimeMillis);
    }

    CoordLockRegistry(CoordClient client, String domain, LongSupplier clock) {
        this.client = client;
        this.domain = domain;
        this.clock = clock;
        Locks.path(domain, "probe"); // a bad domain fails when the registry is made
    }

    @Override
    public JucLock obtain(Object lockKey) {
        String key = String.valueOf(lockKey);
        long now = clock.getAsLong();
        // compute, not computeIfAbsent: the touch is atomic with expireUnusedOlderThan's removal of the key
        return locks.compute(key, (k, e) -> {
            if (e != null) {
                return e.touched(now);
            }
            DistributedLock lock = Locks.mutex(client, path(k));
            return new Entry(lock, lock.asLock(), now);
        }).view();
    }

    /**
     * Forgets the lock object of each key last {@linkplain #obtain obtained} more than
     * {@code age} milliseconds ago and held by no thread of this process now (as Spring's
     * {@code ZookeeperLockRegistry} does), so that a registry of many keys does not keep them all
     * for the application's life. A dropped object keeps working for whoever still has it:
     * exclusion is ZooKeeper's, not the object's; but an object obtained and left unlocked for
     * longer than {@code age} is no longer the one {@code obtain} returns, so obtain again rather
     * than keep lock objects around. Nothing is deleted in ZooKeeper: a lock node with no holder
     * and no waiter costs nothing.
     */
    @Override
    public void expireUnusedOlderThan(long age) {
        long cutoff = clock.getAsLong() - age;
        for (String key : locks.keySet()) {
            locks.computeIfPresent(key, (k, e) ->
                    e.lastUsed() < cutoff && !e.lock().asInterProcessLock().isAcquiredInThisProcess() ? null : e);
        }
    }

    private CoordPath path(String key) {
        try {
            return Locks.path(domain, key);
        } catch (InvalidNameException e) {
            throw new IllegalArgumentException("lock key \"" + key + "\" cannot name a Coord lock under /locks/" + domain
                    + ": it must be one path segment (" + e.getMessage() + ")", e);
        }
    }

    @Override
    public String toString() {
        return "CoordLockRegistry[/locks/" + domain + ", " + locks.size() + " keys]";
    }
}
