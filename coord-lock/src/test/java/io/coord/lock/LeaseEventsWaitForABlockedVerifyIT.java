package io.coord.lock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.LeaseState;
import io.coord.internal.Zk;
import io.coord.test.ClientProxy;
import io.coord.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * coord-core, found while testing the lock: {@code NodeLease} used to verify its node with a
 * blocking ZooKeeper call on the client's single event thread ({@code coord-events-N}). When the
 * connection went dark while such a call was in flight (a stall made the lease suspect, a reconnect,
 * a node event), the call sat in Curator's retry loop for up to the retry budget, and every other
 * lease event of that client — SUSPENDED → UNCERTAIN, session ended → LOST — waited behind it
 * (measured: LOST 9.4 s late). The invariant: a lease whose session has ended reports LOST
 * promptly, also while a confirming round trip is outstanding on a dead connection. Verification is
 * now a background request whose reply drives the lease, so nothing waits behind it.
 */
@Tag("fault")
class LeaseEventsWaitForABlockedVerifyIT {
    @RegisterExtension
    static final ZooKeeperExtension SERVER = ZooKeeperExtension.single();

    @Test
    void aLeaseWhoseSessionEndedIsLostPromptlyEvenWhileAVerifyWaitsOnADeadConnection() throws Exception {
        try (ClientProxy proxy = ClientProxy.to(SERVER.ensemble())) {
            CoordClient client = SERVER.newClient(b -> b.connectString(proxy.connectString()));
            LockLease lease = Locks.mutex(client, Locks.path("core", "events")).acquire(Duration.ofSeconds(5));
            LockTesting.awaitLeaseWatch(SERVER, lease);
            proxy.freeze();
            Zk.of(client).suspectAllLeases(); // what the stall monitor does: UNCERTAIN, then a verify round trip
            long sessionEnded = lease.session().ended().thenApply(s -> System.nanoTime())
                    .get(LockTesting.SESSION.multipliedBy(4).toMillis(), TimeUnit.MILLISECONDS);
            assertEquals(LeaseState.LOST, lease.ended().get(30, TimeUnit.SECONDS));
            long late = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sessionEnded);
            proxy.unfreeze();
            assertTrue(late < 1000, "the lease reported LOST " + late + " ms after its session ended");
        }
    }
}
