package io.coord.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.CoordPath;
import io.coord.CoordSettings;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link WatchArmer}'s grace, decided by the client's ticker alone: a lease that ended within the
 * grace never sends its own-node watch, and one alive past it does (the watch shows on the
 * server). The ticker moves only when the test moves it, so however long the real sweeps take on
 * a loaded machine, the outcome is the ticker's; real time only bounds the waits for a sweep to
 * have run ({@code -Dcoord.test.timing} stretches them). The stall monitor is off: only the armer
 * reads this ticker.
 */
class WatchArmerGraceIT {
    private static final CoordPath PARENT = CoordPath.of("/armer/resource");
    private static final AtomicInteger NS = new AtomicInteger();
    @RegisterExtension
    static final ServerProbe SERVER = new ServerProbe();
    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final String namespace = "armer" + NS.incrementAndGet();
    private CoordClient client;
    private Zk zk;

    @BeforeEach
    void connect() throws InterruptedException {
        client = CoordClient.connect(CoordSettings.builder().connectString(SERVER.connectString()).namespace(namespace)
                .sessionTimeout(Duration.ofSeconds(3)).stallFraction(0).ticker(now::get).build());
        zk = Zk.of(client);
    }

    @AfterEach
    void close() {
        client.close();
    }

    @Test
    void aLeaseEndedWithinTheGraceNeverSendsItsWatch() throws Exception {
        NodeLease lease = newLease();
        lease.close();
        assertTrue(lease.state().isTerminal(), "released: " + lease.state());
        assertEquals(1, zk.watchArmer().pending(), "queued until the ticker says its grace is over");
        now.addAndGet(WatchArmer.GRACE.toNanos());
        ServerProbe.until("a sweep took the due lease off the queue", () -> zk.watchArmer().pending() == 0);
        assertFalse(lease.watchSent(), "a lease that ended within its grace never sends its watch");
    }

    @Test
    void aLeaseAlivePastTheGraceSendsItsWatchAndNotBefore() throws Exception {
        NodeLease lease = newLease();
        now.addAndGet(WatchArmer.GRACE.toNanos() - 1);
        long sweeps = zk.watchArmer().sweeps();
        ServerProbe.until("a sweep ran", () -> zk.watchArmer().sweeps() > sweeps);
        assertFalse(lease.watchSent(), "1 ns short of the grace on the ticker: no watch, however much real time passed");
        assertEquals(1, zk.watchArmer().pending(), "still queued");
        assertFalse(SERVER.watched(namespace, lease.node()), "no watch on the server either");

        now.addAndGet(1);
        ServerProbe.until("the watch was sent once the grace was over", lease::watchSent);
        ServerProbe.until("the server holds the watch", () -> SERVER.watched(namespace, lease.node()));
        assertEquals(0, zk.watchArmer().pending(), "nothing left queued");
        assertFalse(lease.state().isTerminal(), "still held: " + lease.state());
    }

    private NodeLease newLease() throws InterruptedException {
        return LeaseNodes.lease(zk, LeaseNodes.create(zk, PARENT, "lock-", new byte[0], true));
    }
}
