package io.coord.lock;

import io.coord.CoordClient;
import io.coord.test.LeaseContract;
import java.time.Duration;

/** The lease contract for a permit of {@link Locks#semaphore} (2 permits), released by {@code close()}. */
class SemaphoreLeaseContractIT extends LeaseContract {
    @Override
    protected Held acquire(CoordClient client, Duration timeout) throws Exception {
        LockLease lease = Locks.semaphore(client, Locks.path("contract", "permits"), 2).acquire(timeout);
        return new Held(lease, lease::close, null);
    }
}
