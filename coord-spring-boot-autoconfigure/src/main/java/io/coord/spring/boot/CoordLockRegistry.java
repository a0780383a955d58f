package io.coord.spring.boot;

import io.coord.CoordClient;
import io.coord.CoordPath;
import io.coord.InvalidNameException;
import io.coord.lock.JucLock;
import io.coord.lock.Locks;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * A Spring Integration {@link LockRegistry} of Coord mutexes: {@code obtain(key)} is the
 * {@link java.util.concurrent.locks.Lock} view ({@link io.coord.lock.DistributedLock#asLock()}) of
 * {@code /locks/{domain}/{key}}. Holds belong to threads and are reentrant, as with Spring
 * Integration's own registries; the hold's fencing token and loss signal are
 * {@code ((JucLock) lock).heldByCurrentThread()}.
 *
 * <p>One lock object per key for the registry's life (coord-lock's rule: share one object per
 * path in a process); a key is one path segment ({@code key.toString()}), and a key that is not
 * one ({@code "a/b"}, empty, {@code ".."}) is refused naming it.
 */
final class CoordLockRegistry implements LockRegistry<JucLock> {
    private final CoordClient client;
    private final String domain;
    private final Map<String, JucLock> locks = new ConcurrentHashMap<>();

    CoordLockRegistry(CoordClient client, String domain) {
        this.client = client;
        this.domain = domain;
        Locks.path(domain, "probe"); // a bad domain fails when the registry is made
    }

    @Override
    public JucLock obtain(Object lockKey) {
        String key = String.valueOf(lockKey);
        return locks.computeIfAbsent(key, k -> Locks.mutex(client, path(k)).asLock());
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
