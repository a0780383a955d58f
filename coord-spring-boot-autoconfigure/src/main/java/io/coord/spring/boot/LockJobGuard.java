package io.coord.spring.boot;

import io.coord.CoordClient;
import io.coord.lock.DistributedLock;
import io.coord.lock.LockLease;
import io.coord.lock.Locks;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@link CoordLocked @CoordLocked}: each run tries {@code /locks/jobs/{name}} and owns the lease
 * it gets (released when the run ends). One lock object per name, as the lock's contract asks.
 */
final class LockJobGuard implements JobGuard {
    /** Where job locks live: {@code /locks/jobs/{name}}. */
    static final String DOMAIN = "jobs";

    private final CoordClient client;
    private final Map<String, DistributedLock> locks = new ConcurrentHashMap<>();

    LockJobGuard(CoordClient client) {
        this.client = client;
    }

    @Override
    public JobSpec.Mode mode() {
        return JobSpec.Mode.LOCK;
    }

    @Override
    public void start(Set<String> names) {
        // Nothing to join: a lock is asked for run by run.
    }

    @Override
    public Admission enter(JobSpec spec) throws InterruptedException {
        DistributedLock lock = locks.computeIfAbsent(spec.name(), n -> Locks.mutex(client, Locks.path(DOMAIN, n)));
        Optional<LockLease> lease = spec.waitFor().isZero() ? lock.tryAcquire() : lock.tryAcquire(spec.waitFor());
        if (lease.isEmpty()) {
            return new Refused("lock " + lock.path() + " is held by another holder"
                    + (spec.waitFor().isZero() ? "" : " (waited " + spec.waitFor() + ")"));
        }
        return new Admitted(lease.get(), true);
    }

    @Override
    public void stop() {
        locks.clear(); // each run released its own lease
    }
}
