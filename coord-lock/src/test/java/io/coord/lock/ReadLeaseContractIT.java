package io.coord.lock;

import io.coord.CoordClient;
import io.coord.test.LeaseContract;
import java.time.Duration;

/** The lease contract for a read lease of {@link Locks#readWrite}, released by {@code close()}. */
class ReadLeaseContractIT extends LeaseContract {
    @Override
    protected Held acquire(CoordClient client, Duration timeout) throws Exception {
        LockLease lease = Locks.readWrite(client, Locks.path("contract", "rw")).readLock().acquire(timeout);
        return new Held(lease, lease::close, null);
    }
}
