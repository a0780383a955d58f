package io.coord.barrier;

import static io.coord.barrier.DoubleBarrierIT.get;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.BarrierBrokenException;
import io.coord.CoordClient;
import io.coord.CoordPath;
import io.coord.LeaseState;
import io.coord.SessionState;
import io.coord.barrier.BarrierStatus.Phase;
import io.coord.internal.EventThreads;
import io.coord.internal.LeaseNodes;
import io.coord.internal.NodeLease;
import io.coord.internal.Zk;
import io.coord.test.Awaits;
import io.coord.test.ChildJvm;
import io.coord.test.ClientProxy;
import io.coord.test.Faults;
import io.coord.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Member failures and connection faults while others wait: a member's session expires, a member's
 * JVM is killed with SIGKILL, a waiter's connection is cut for less than its session timeout.
 */
@Tag("fault")
class DoubleBarrierFaultIT {
    private static final Duration LONG = Duration.ofSeconds(60);
    /** The victims' session timeout: the server notices a killed member this long after its last heartbeat. */
    private static final Duration VICTIM_SESSION = Duration.ofSeconds(2);
    /**
     * What "within the session timeout" may add: the expiry check tick, the watch, one read and the
     * break. The session timeout is the product's promise; the margin is machine time, so it
     * stretches with the timing factor.
     */
    private static final Duration MARGIN = Awaits.scaled(Duration.ofSeconds(3));
    /** A late arrival fails at once: one read (and a sync), on whatever machine. */
    private static final Duration FAST = Awaits.scaled(Duration.ofSeconds(5));

    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.single();

    private ExecutorService pool;

    @BeforeEach
    void threads() {
        pool = Executors.newCachedThreadPool();
    }

    @AfterEach
    void stopThreads() throws InterruptedException {
        pool.shutdownNow();
        assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS), "member threads ended");
    }

    /** Waiters of {@code barriers} in enter (each expecting {@link BarrierBrokenException}); returns when they fail. */
    private List<Future<BarrierBrokenException>> waitingToBreak(List<DoubleBarrier> barriers) {
        List<Future<BarrierBrokenException>> out = new ArrayList<>();
        for (DoubleBarrier b : barriers) {
            out.add(pool.submit(() -> {
                BarrierBrokenException e = assertThrows(BarrierBrokenException.class, () -> b.enter(LONG));
                return e;
            }));
        }
        return out;
    }

    private static void assertAllNamed(List<Future<BarrierBrokenException>> waiters, String victim, long since, Duration within)
            throws Exception {
        for (Future<BarrierBrokenException> f : waiters) {
            BarrierBrokenException e = get(f);
            // A member whose seat vanished before any waiter listed it can only be named by its seat
            // number (the gap in the sequence); under heavy load that race is real, so both count.
            assertTrue(e.getMessage().contains(victim) || e.getMessage().contains("vanished before anyone read its name"),
                    "names the failed member " + victim + " (or its seat): " + e.getMessage());
        }
        long took = System.nanoTime() - since;
        assertTrue(took < within.toNanos(), "every waiter failed within " + within.toMillis() + " ms (took " + took / 1_000_000 + " ms)");
    }

    @Test
    void anExpiredMemberDuringEnterBreaksTheGenerationForEveryWaiterNamingIt() throws Exception {
        List<DoubleBarrier> waiting = DoubleBarrierIT.members(zk, "expire-enter", 3, 5);
        CoordClient victimClient = zk.newClient(b -> b.sessionTimeout(VICTIM_SESSION));
        DoubleBarrier victim = DoubleBarrier.create(victimClient, "expire-enter", 5, BarrierOptions.builder().memberId("victim").build());
        List<Future<BarrierBrokenException>> waiters = waitingToBreak(waiting);
        Future<BarrierBrokenException> victimWait = waitingToBreak(List.of(victim)).get(0);
        Awaits.until("four members wait", Duration.ofSeconds(20), () -> DoubleBarrierIT.arrived(waiting.get(0), 4));
        long expired = System.nanoTime();
        Faults.expireSession(victimClient, zk.ensemble());
        assertAllNamed(waiters, "victim", expired, VICTIM_SESSION.plus(MARGIN));
        get(victimWait); // the victim itself learns it too (its seat went with its session)
        long late = System.nanoTime();
        BarrierBrokenException lateArrival = assertThrows(BarrierBrokenException.class,
                () -> DoubleBarrier.create(zk.newClient(), "expire-enter", 5).enter(LONG));
        assertTrue(System.nanoTime() - late < FAST.toNanos(), "a late arrival fails fast");
        assertTrue(lateArrival.getMessage().contains("late arrival") && (lateArrival.getMessage().contains("victim")
                || lateArrival.getMessage().contains("vanished before anyone read its name")), lateArrival.getMessage());
        BarrierStatus status = waiting.get(0).status();
        assertTrue(status.broken());
        assertEquals(Phase.OPEN, status.brokenIn());
        assertTrue(status.missing().stream().anyMatch(m -> m.contains("victim") || m.contains("vanished before anyone read its name")),
                status.toString());
    }

    @Test
    void anExpiredMemberDuringLeaveBreaksTheGenerationForEveryWaiterNamingIt() throws Exception {
        List<DoubleBarrier> barriers = DoubleBarrierIT.members(zk, "expire-leave", 3, 4);
        CoordClient victimClient = zk.newClient(b -> b.sessionTimeout(VICTIM_SESSION));
        barriers.add(DoubleBarrier.create(victimClient, "expire-leave", 4, BarrierOptions.builder().memberId("victim").build()));
        List<Future<BarrierSeat>> entering = new ArrayList<>();
        for (DoubleBarrier b : barriers) {
            entering.add(pool.submit(() -> b.enter(LONG)));
        }
        List<BarrierSeat> seats = new ArrayList<>();
        for (Future<BarrierSeat> f : entering) {
            seats.add(get(f));
        }
        List<Future<BarrierBrokenException>> leaving = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            BarrierSeat seat = seats.get(i);
            leaving.add(pool.submit(() -> assertThrows(BarrierBrokenException.class, () -> seat.leave(LONG))));
        }
        Awaits.until("three members left", Duration.ofSeconds(20), () -> DoubleBarrierIT.left(barriers.get(0), 3));
        long expired = System.nanoTime();
        Faults.expireSession(victimClient, zk.ensemble());
        assertAllNamed(leaving, "victim", expired, VICTIM_SESSION.plus(MARGIN));
        BarrierBrokenException own = assertThrows(BarrierBrokenException.class, () -> seats.get(3).leave(LONG));
        assertTrue(own.getMessage().contains("victim"), own.getMessage());
        assertEquals(Phase.READY, barriers.get(0).status().brokenIn());
    }

    private ChildJvm child(String name, int parties) {
        ChildJvm child = ChildJvm.start(BarrierMemberChild.class.getName(), zk.connectString(), zk.namespace(), name,
                Integer.toString(parties), "child", Long.toString(VICTIM_SESSION.toMillis()));
        assertEquals("ready", child.expectLine("ready", Duration.ofSeconds(30)));
        return child;
    }

    @Test
    void aMemberKilledWithSigkillDuringEnterBreaksTheGenerationWithinItsSessionTimeout() throws Exception {
        List<DoubleBarrier> waiting = DoubleBarrierIT.members(zk, "kill-enter", 2, 4);
        try (ChildJvm child = child("kill-enter", 4)) {
            List<Future<BarrierBrokenException>> waiters = waitingToBreak(waiting);
            child.send("enter");
            Awaits.until("three members wait", Duration.ofSeconds(20), () -> DoubleBarrierIT.arrived(waiting.get(0), 3));
            long killed = System.nanoTime();
            child.kill9();
            assertAllNamed(waiters, "child", killed, VICTIM_SESSION.plus(MARGIN));
        }
        long late = System.nanoTime();
        assertThrows(BarrierBrokenException.class, () -> DoubleBarrier.create(zk.newClient(), "kill-enter", 4).enter(LONG));
        assertTrue(System.nanoTime() - late < FAST.toNanos(), "a late arrival fails fast");
    }

    @Test
    void aMemberKilledWithSigkillDuringLeaveBreaksTheGenerationWithinItsSessionTimeout() throws Exception {
        List<DoubleBarrier> barriers = DoubleBarrierIT.members(zk, "kill-leave", 2, 3);
        try (ChildJvm child = child("kill-leave", 3)) {
            List<Future<BarrierSeat>> entering = new ArrayList<>();
            for (DoubleBarrier b : barriers) {
                entering.add(pool.submit(() -> b.enter(LONG)));
            }
            child.send("enter");
            assertTrue(child.expectLine("entered", Duration.ofSeconds(30)).startsWith("entered "));
            List<Future<BarrierBrokenException>> leaving = new ArrayList<>();
            for (Future<BarrierSeat> f : entering) {
                BarrierSeat seat = get(f);
                leaving.add(pool.submit(() -> assertThrows(BarrierBrokenException.class, () -> seat.leave(LONG))));
            }
            Awaits.until("two members left", Duration.ofSeconds(20), () -> DoubleBarrierIT.left(barriers.get(0), 2));
            long killed = System.nanoTime();
            child.kill9();
            assertAllNamed(leaving, "child", killed, VICTIM_SESSION.plus(MARGIN));
        }
    }

    @Test
    void aConnectionCutShorterThanTheSessionTimeoutDoesNotBreakTheBarrier() throws Exception {
        try (ClientProxy proxy = ClientProxy.to(zk.ensemble())) {
            CoordClient cutClient = zk.newClient(b -> b.connectString(proxy.connectString()).sessionTimeout(Duration.ofSeconds(6)));
            long sessionBefore = cutClient.session().id();
            DoubleBarrier cut = DoubleBarrier.create(cutClient, "cut", 3, BarrierOptions.builder().memberId("cut").build());
            List<DoubleBarrier> others = DoubleBarrierIT.members(zk, "cut", 2, 3);
            Future<BarrierSeat> cutEnter = pool.submit(() -> cut.enter(LONG));
            Future<BarrierSeat> firstEnter = pool.submit(() -> others.get(0).enter(LONG));
            Awaits.until("two members wait", Duration.ofSeconds(20), () -> DoubleBarrierIT.arrived(others.get(0), 2));
            proxy.refuse(); // the waiter's connection is reset and it cannot reconnect
            Faults.awaitState(cutClient.session(), SessionState.SUSPENDED, Duration.ofSeconds(10));
            BarrierSeat last = others.get(1).enter(LONG); // decided while the waiter is cut off
            BarrierSeat first = get(firstEnter);
            Awaits.hold(Duration.ofSeconds(1)); // the cut lasts a little longer, well under the 6 s session timeout
            assertFalse(cutEnter.isDone(), "the cut-off waiter cannot have learnt anything yet");
            proxy.accept();
            BarrierSeat cutSeat = get(cutEnter); // re-read after the reconnect: released, not broken
            assertEquals(first.generation(), cutSeat.generation());
            assertEquals(sessionBefore, cutClient.session().id(), "same session: the cut was shorter than the session timeout");

            Future<?> firstLeave = pool.submit(() -> {
                first.leave(LONG);
                return null;
            });
            Future<?> cutLeave = pool.submit(() -> {
                cutSeat.leave(LONG);
                return null;
            });
            Awaits.until("two members left", Duration.ofSeconds(20), () -> DoubleBarrierIT.left(others.get(0), 2));
            proxy.refuse();
            Faults.awaitState(cutClient.session(), SessionState.SUSPENDED, Duration.ofSeconds(10));
            last.leave(LONG);
            get(firstLeave);
            Awaits.hold(Duration.ofSeconds(1));
            assertFalse(cutLeave.isDone(), "the cut-off leaver cannot have learnt anything yet");
            proxy.accept();
            get(cutLeave);
            assertEquals(Phase.DONE, others.get(0).status().phase());
        }
    }

    /**
     * Issue 15, defect 5: the seat's tidy-up after a completed leave runs on the client's events
     * thread, which drives every lease of the client. It used to be a synchronous guaranteed
     * delete: with the connection dark it sat in Curator's retry loop (a connection timeout per
     * attempt), and every other lease event of that client waited behind it, the expiry's LOST
     * included. The connection timeout here is far longer than the session, so that a tidy-up
     * blocking for even one attempt would visibly hold up that LOST.
     */
    @Test
    void aTidyUpOnADarkConnectionDoesNotHoldUpTheLossOfTheClientsOtherLeases() throws Exception {
        long violationsBefore = EventThreads.violations();
        try (ClientProxy proxy = ClientProxy.to(zk.ensemble())) {
            CoordClient cutClient = zk.newClient(b -> b.connectString(proxy.connectString()).sessionTimeout(VICTIM_SESSION)
                    .connectionTimeout(Duration.ofSeconds(30)));
            Zk cutZk = Zk.of(cutClient);
            NodeLease other = LeaseNodes.lease(cutZk, LeaseNodes.create(cutZk, CoordPath.of("/tidy/other"), "lease-", new byte[0], true));
            DoubleBarrier cut = DoubleBarrier.create(cutClient, "tidy", 2, BarrierOptions.builder().memberId("cut").build());
            DoubleBarrier peer = DoubleBarrierIT.members(zk, "tidy", 1, 2).get(0);
            Future<BarrierSeat> cutEnter = pool.submit(() -> cut.enter(LONG));
            BarrierSeat peerSeat = peer.enter(LONG);
            BarrierSeat cutSeat = get(cutEnter);
            Future<?> cutLeave = pool.submit(() -> {
                cutSeat.leave(LONG);
                return null;
            });
            peerSeat.leave(LONG);
            get(cutLeave);
            // The cut member's tidy-up (its seat's delete) is due Leaving.TIDY_DELAY_MS from now, on
            // its client's events thread; the connection goes dark before that, and stays dark.
            proxy.refuse();
            long dark = System.nanoTime();
            // Curator declares the session lost up to 2/3 of a session after its timeout, then one
            // hand-off; the rest is headroom for a loaded machine, still far below the 30 s one blocked
            // attempt of the old tidy-up took. Awaits stretches the bound by the timing factor.
            Awaits.until("the other lease of the cut client LOST with its session", VICTIM_SESSION.plus(Duration.ofSeconds(8)),
                    () -> other.state() == LeaseState.LOST);
            System.out.println("other lease LOST " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - dark)
                    + " ms after the connection went dark (session " + VICTIM_SESSION.toMillis() + " ms)");
            assertEquals(LeaseState.LOST, other.ended().get(MARGIN.toMillis(), TimeUnit.MILLISECONDS));
            assertEquals(LeaseState.RELEASED, cutSeat.state(), "the seat itself was released by the completed leave");
        }
        assertEquals(violationsBefore, EventThreads.violations(), "no blocking call ran on an event thread");
    }
}
