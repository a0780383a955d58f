package io.coord.lock;

import io.coord.test.ClientProxy;
import io.coord.test.ZooKeeperExtension;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.CoordException;
import io.coord.CoordPath;
import io.coord.Lease;
import io.coord.LeaseListener;
import io.coord.LeaseState;
import io.coord.LockLostException;
import io.coord.fence.InMemoryFenceGuard;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A held lock when its session ends or its connection is cut: the loss signal, the fence, the next holder. */
@Tag("fault")
class LeaseLossIT {
    @RegisterExtension
    static final ZooKeeperExtension SERVER = ZooKeeperExtension.single();

    private static final CoordPath LOCK = Locks.path("payments", "acct-9");
    private static final CoordPath BALANCE = CoordPath.of("/data/acct-9/balance");
    private final ExecutorService listenerThread = Executors.newSingleThreadExecutor();

    @AfterEach
    void stop() throws InterruptedException {
        listenerThread.shutdownNow();
        assertTrue(listenerThread.awaitTermination(5, TimeUnit.SECONDS));
    }

    private List<String> record(LockLease lease) {
        List<String> events = new CopyOnWriteArrayList<>();
        lease.addListener(new LeaseListener() {
            @Override
            public void onUncertain(Lease l) {
                events.add("uncertain");
                assertTrue(l == lease, "the listener gets the lock lease itself");
            }

            @Override
            public void onRestored(Lease l) {
                events.add("restored");
            }

            @Override
            public void onLost(Lease l, CoordException cause) {
                events.add("lost");
            }

            @Override
            public void onReleased(Lease l) {
                events.add("released");
            }
        }, listenerThread);
        return events;
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void sessionExpiryWhileHoldingLosesTheLeaseFencesItsWritesAndTheNextHolderHasAHigherToken() throws Exception {
        RecordingMetrics metrics = new RecordingMetrics();
        CoordClient holder = SERVER.newClient(b -> b.metrics(metrics));
        CoordClient next = SERVER.newClient();
        next.curator().create().creatingParentsIfNeeded().forPath(BALANCE.value(), utf8("100"));
        InMemoryFenceGuard guard = new InMemoryFenceGuard();
        LockLease lease = Locks.mutex(holder, LOCK).acquire(Duration.ofSeconds(5));
        List<String> events = record(lease);
        lease.guardedSetData(BALANCE, utf8("90"));
        assertTrue(guard.admit("acct-9", lease.token()));

        LockTesting.expire(holder, SERVER);

        assertEquals(LeaseState.LOST, lease.ended().get(10, TimeUnit.SECONDS));
        LockTesting.await("onLost delivered", Duration.ofSeconds(5), () -> events.contains("lost"));
        assertTrue(events.equals(List.of("lost")) || events.equals(List.of("uncertain", "lost")),
                "one loss, never restored (the disconnect may show first): " + events);
        assertThrows(LockLostException.class, lease::checkValid);
        assertThrows(LockLostException.class, () -> lease.guardedSetData(BALANCE, utf8("stale")));
        try (LockLease second = Locks.mutex(next, LOCK).acquire(Duration.ofSeconds(10))) {
            assertTrue(second.token().isNewerThan(lease.token()), lease.token() + " then " + second.token());
            assertTrue(guard.admit("acct-9", second.token()));
            second.guardedSetData(BALANCE, utf8("80"));
            assertTrue(!guard.admit("acct-9", lease.token()), "the lost holder's token is rejected downstream");
        }
        assertArrayEquals(utf8("80"), next.curator().getData().forPath(BALANCE.value()), "the lost holder wrote nothing after its loss");
        lease.close(); // after LOST: only records the close
        assertEquals(1, metrics.count(LockMetrics.LOSSES, "kind", "lock"), "the loss was counted: " + metrics.counts);
        assertEquals(1, metrics.count(LockMetrics.FENCED, "kind", "lock"), "the refused write was counted");
        assertEquals(1, metrics.count(LockMetrics.HOLD, "kind", "lock"), "the hold time was recorded");
    }

    @Test
    void aConnectionCutShorterThanTheSessionMakesTheLeaseUncertainThenAcquiredWithTheSameToken() throws Exception {
        try (ClientProxy proxy = ClientProxy.to(SERVER.ensemble())) {
            CoordClient holder = SERVER.newClient(b -> b.connectString(proxy.connectString()));
            LockLease lease = Locks.mutex(holder, LOCK).acquire(Duration.ofSeconds(5));
            var token = lease.token();
            List<String> events = record(lease);
            LockTesting.awaitLeaseWatch(SERVER, lease);
            proxy.cut();
            LockTesting.await("uncertain, then restored", Duration.ofSeconds(15), () -> events.contains("restored"));
            assertEquals(List.of("uncertain", "restored"), events);
            assertEquals(LeaseState.ACQUIRED, lease.state());
            assertEquals(token, lease.token(), "the same lease, the same token");
            lease.checkValid();
            lease.close();
            LockTesting.await("released", Duration.ofSeconds(5), () -> events.contains("released"));
        }
    }

    @Test
    void aConnectionCutLongerThanTheSessionLosesTheLease() throws Exception {
        try (ClientProxy proxy = ClientProxy.to(SERVER.ensemble())) {
            CoordClient holder = SERVER.newClient(b -> b.connectString(proxy.connectString()));
            CoordClient other = SERVER.newClient();
            LockLease lease = Locks.mutex(holder, LOCK).acquire(Duration.ofSeconds(5));
            List<String> events = record(lease);
            LockTesting.awaitLeaseWatch(SERVER, lease);
            proxy.refuse();
            LockTesting.await("uncertain while cut off", Duration.ofSeconds(10), () -> events.contains("uncertain"));
            assertThrows(LockLostException.class, lease::checkValid, "no protected work while uncertain");
            try (LockLease second = Locks.mutex(other, LOCK).acquire(LockTesting.SESSION.multipliedBy(4))) {
                assertTrue(second.token().isNewerThan(lease.token()), "granted to another client once the session expired");
            }
            assertEquals(LeaseState.LOST, lease.ended().get(LockTesting.SESSION.multipliedBy(3).toMillis(), TimeUnit.MILLISECONDS));
            proxy.accept();
            LockTesting.await("lost delivered", Duration.ofSeconds(5), () -> events.contains("lost"));
            assertEquals(List.of("uncertain", "lost"), events);
        }
    }
}
