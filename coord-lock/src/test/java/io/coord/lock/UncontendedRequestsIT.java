package io.coord.lock;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.coord.CoordClient;
import io.coord.CoordPath;
import io.coord.LeaseState;
import io.coord.test.Awaits;
import io.coord.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An uncontended acquire + release sends the server exactly three requests: the create, the read
 * of the queue, the delete, as InterProcessMutex does (issue 18). The listing is not skipped:
 * nothing in the create's reply proves the node is first (a sequence number counts the changes
 * of one incarnation of the lock's container parent, and the reply does not say which), and it
 * costs no wait of its own (it rides behind the create). Counted by the server, per session; the
 * client's ticker stands still, so no lease outlives its own-node watch's grace however slow this
 * machine is (that watch would be a fourth request, sent only by leases held past the grace).
 */
class UncontendedRequestsIT {
    @RegisterExtension
    static final ZooKeeperExtension SERVER = ZooKeeperExtension.single();

    private static final CoordPath LOCK = Locks.path("payments", "acct-requests");
    private static final int CYCLES = 20;

    @Test
    void anUncontendedCycleSendsTheCreateTheListingAndTheDeleteOnly() throws Exception {
        AtomicLong ticker = new AtomicLong(1_000_000_000L);
        CoordClient client = SERVER.newClient(b -> b.stallFraction(0).ticker(ticker::get));
        DistributedLock lock = Locks.mutex(client, LOCK);
        Duration timeout = Awaits.scaled(Duration.ofSeconds(10));
        lock.acquire(timeout).close(); // the first acquire also makes the lock's parents
        long session = client.session().id();

        Map<Long, Long> before = ServerRequests.settled(SERVER);
        for (int i = 0; i < CYCLES; i++) {
            try (LockLease lease = lock.acquire(timeout)) {
                assertEquals(LeaseState.ACQUIRED, lease.state());
            }
        }
        Map<Long, Long> after = ServerRequests.settled(SERVER);

        assertEquals(3L * CYCLES, after.get(session) - before.get(session),
                "requests the server counted for " + CYCLES + " uncontended cycles (create, getChildren, delete each)");
    }
}
