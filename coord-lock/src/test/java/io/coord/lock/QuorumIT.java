package io.coord.lock;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordPath;
import io.coord.test.Faults;
import io.coord.test.ZooKeeperExtension;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** On a three-server ensemble: a leader change between holders does not send tokens back. */
@Tag("fault")
class QuorumIT {
    @RegisterExtension
    static final ZooKeeperExtension SERVER = ZooKeeperExtension.quorum();

    @Test
    void tokensKeepGrowingAcrossALeaderChange() throws Exception {
        CoordPath lock = Locks.path("quorum", "r");
        LockLease first = Locks.mutex(SERVER.newClient(), lock).acquire(Duration.ofSeconds(10));
        first.close();
        Faults.killLeader(SERVER.ensemble());
        SERVER.ensemble().awaitLeader(30_000);
        try (LockLease second = Locks.mutex(SERVER.newClient(), lock).acquire(Duration.ofSeconds(30))) {
            assertTrue(second.token().isNewerThan(first.token()), first.token() + " then " + second.token());
        }
    }
}
