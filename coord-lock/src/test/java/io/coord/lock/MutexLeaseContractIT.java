package io.coord.lock;

import io.coord.CoordClient;
import io.coord.test.LeaseContract;
import java.time.Duration;

/** The lease contract for a lock lease of {@link Locks#mutex}, released by {@code close()}. */
class MutexLeaseContractIT extends LeaseContract {
    @Override
    protected Held acquire(CoordClient client, Duration timeout) throws Exception {
        LockLease lease = Locks.mutex(client, Locks.path("contract", "mutex")).acquire(timeout);
        return new Held(lease, lease::close, null);
    }
}
