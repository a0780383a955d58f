package io.coord.election;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.LeaseState;
import io.coord.test.Awaits;
import io.coord.test.ClientProxy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.framework.recipes.leader.LeaderSelector;
import org.apache.curator.framework.recipes.leader.LeaderSelectorListenerAdapter;
import org.apache.curator.framework.state.ConnectionState;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Curator's leader listeners on a Coord election, each against what Curator documents for it:
 * {@code LeaderLatchListener} (isLeader on gaining, notLeader on losing, the latch stays in the
 * election) and {@code LeaderSelectorListener} (takeLeadership runs while leading, returning
 * relinquishes, closing interrupts it), on the caller's executor, with the epoch reachable.
 */
class CuratorListenersIT {
    @RegisterExtension
    static final ElectionTestKit KIT = new ElectionTestKit();
    private static final Duration BUDGET = Duration.ofSeconds(10);

    private final ExecutorService caller = Executors.newSingleThreadExecutor(r -> new Thread(r, "caller-executor"));

    @AfterEach
    void stopCaller() throws InterruptedException {
        caller.shutdownNow();
        assertTrue(caller.awaitTermination(10, TimeUnit.SECONDS));
    }

    /** Records each call with the thread it came on. */
    static final class Calls implements LeaderLatchListener {
        final List<String> calls = new CopyOnWriteArrayList<>();

        @Override
        public void isLeader() {
            calls.add("isLeader@" + Thread.currentThread().getName());
        }

        @Override
        public void notLeader() {
            calls.add("notLeader@" + Thread.currentThread().getName());
        }
    }

    @Test
    void leaderLatchListenerHearsGainAndLossInOrderAndTheLatchStaysInTheElection() throws Exception {
        Election a = KIT.election(KIT.client(), "latch", ElectionOptions.builder().participantId("a").build());
        Election b = KIT.election(KIT.client(), "latch", ElectionOptions.builder().participantId("b").build());
        Calls ca = new Calls();
        Calls cb = new Calls();
        LeaderRegistration ra = a.lead(ca, caller);
        ElectionTestKit.await(BUDGET, () -> ca.calls.size() == 1, () -> "a told it leads: " + ca.calls);
        assertEquals(List.of("isLeader@caller-executor"), ca.calls, "on the caller's executor");
        Leadership la = ra.leadership().orElseThrow();
        assertEquals(LeaseState.ACQUIRED, la.state());
        LeaderRegistration rb = b.lead(cb, caller);
        ElectionTestKit.await(BUDGET, () -> ElectionTestKit.candidateCount(b) == 2, () -> "b queued");

        la.resign(); // a gives up: b leads, and a, like a latch, joins again behind b
        ElectionTestKit.await(BUDGET, () -> cb.calls.size() == 1 && ca.calls.size() == 2, () -> "a " + ca.calls + ", b " + cb.calls);
        assertEquals(List.of("isLeader@caller-executor", "notLeader@caller-executor"), ca.calls);
        Leadership lb = rb.leadership().orElseThrow();
        assertTrue(lb.epoch().isNewerThan(la.epoch()), la.epoch() + " then " + lb.epoch());
        ElectionTestKit.await(BUDGET, () -> ElectionTestKit.candidateCount(b) == 2, () -> "a is back in the election");

        rb.close(); // closing b: notLeader, a leads again with a newer epoch
        ElectionTestKit.await(BUDGET, () -> ca.calls.size() == 3 && cb.calls.size() == 2, () -> "a " + ca.calls + ", b " + cb.calls);
        assertEquals("notLeader@caller-executor", cb.calls.get(1));
        assertTrue(ra.leadership().orElseThrow().epoch().isNewerThan(lb.epoch()));
        assertTrue(rb.leadership().isEmpty(), "no leadership once closed");
        ra.close();
        ElectionTestKit.await(BUDGET, () -> ca.calls.size() == 4, () -> "a told it no longer leads: " + ca.calls);
    }

    @Test
    void leaderSelectorListenerLeadsWhileTakeLeadershipRunsAndReturningRelinquishesToCuratorsSelector() throws Exception {
        ElectionOptions options = ElectionOptions.builder().participantId("coord").curatorLayout(CuratorLayout.SELECTOR).build();
        Election coord = KIT.election(KIT.client(), "selector", options);
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch mayReturn = new CountDownLatch(1);
        List<String> seen = new CopyOnWriteArrayList<>();
        LeaderRegistration[] reg = new LeaderRegistration[1];
        reg[0] = coord.lead(new LeaderSelectorListenerAdapter() {
            @Override
            public void takeLeadership(CuratorFramework client) throws Exception {
                seen.add(Thread.currentThread().getName() + " epoch " + reg[0].leadership().map(l -> l.epoch().value()).orElse(-1L));
                assertTrue(client.getChildren().forPath(coord.path().value()).size() >= 1, "the client given is live");
                inside.countDown();
                mayReturn.await();
            }
        }, caller);
        assertTrue(inside.await(Awaits.scaled(BUDGET).toMillis(), TimeUnit.MILLISECONDS));
        assertTrue(seen.get(0).startsWith("caller-executor epoch ") && !seen.get(0).endsWith(" -1"), seen.toString());

        try (LeaderFleet fleet = new LeaderFleet(KIT, "selector")) {
            AtomicBoolean curatorLed = new AtomicBoolean();
            try (LeaderSelector curator = new LeaderSelector(fleet.curator(), coord.path().value(), new LeaderSelectorListenerAdapter() {
                @Override
                public void takeLeadership(CuratorFramework client) {
                    curatorLed.set(true);
                }
            })) {
                curator.start();
                ElectionTestKit.await(BUDGET, () -> ElectionTestKit.candidateCount(coord) == 2, () -> "Curator's selector queued");
                assertFalse(curatorLed.get(), "not while Coord's takeLeadership runs");
                mayReturn.countDown(); // returning relinquishes
                ElectionTestKit.await(BUDGET, curatorLed::get, () -> "Curator's selector leads next");
                assertEquals(1, seen.size(), "no requeue by default (Curator's selector without autoRequeue)");
                ElectionTestKit.await(BUDGET, () -> reg[0].leadership().isEmpty(), () -> "no leadership after returning");
            }
        }
    }

    @Test
    void closingInterruptsTakeLeadership() throws Exception {
        Election coord = KIT.election(KIT.client(), "interrupt", ElectionOptions.builder().participantId("coord").build());
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch interrupted = new CountDownLatch(1);
        LeaderRegistration r = coord.lead(new LeaderSelectorListenerAdapter() {
            @Override
            public void takeLeadership(CuratorFramework client) {
                inside.countDown();
                try {
                    Thread.sleep(Long.MAX_VALUE);
                } catch (InterruptedException e) {
                    interrupted.countDown();
                }
            }
        }, caller);
        assertTrue(inside.await(Awaits.scaled(BUDGET).toMillis(), TimeUnit.MILLISECONDS));
        Leadership l = r.leadership().orElseThrow();
        r.close();
        assertTrue(interrupted.await(Awaits.scaled(BUDGET).toMillis(), TimeUnit.MILLISECONDS), "takeLeadership interrupted");
        assertEquals(LeaseState.RELEASED, l.state());
    }

    /**
     * Curator's LeaderSelectorListenerAdapter cancels on SUSPENDED: stateChanged gets it on the
     * caller's executor, takeLeadership is interrupted, the leadership is relinquished and (no
     * requeue) not taken again when the connection comes back.
     */
    @Test
    @Tag("fault")
    void aSuspendedConnectionCancelsTakeLeadershipThroughStateChangedAndRelinquishes() throws Exception {
        try (ClientProxy proxy = ClientProxy.to(KIT.connectString())) {
            CoordClient client = KIT.client(b -> b.connectString(proxy.connectString()).sessionTimeout(Duration.ofSeconds(5))
                    .connectionTimeout(Duration.ofSeconds(5)));
            Election coord = KIT.election(client, "suspended", ElectionOptions.builder().participantId("coord").build());
            List<String> states = new CopyOnWriteArrayList<>();
            AtomicInteger taken = new AtomicInteger();
            CountDownLatch inside = new CountDownLatch(1);
            CountDownLatch interrupted = new CountDownLatch(1);
            LeaderRegistration r = coord.lead(new LeaderSelectorListenerAdapter() {
                @Override
                public void takeLeadership(CuratorFramework c) {
                    taken.incrementAndGet();
                    inside.countDown();
                    try {
                        Thread.sleep(Long.MAX_VALUE);
                    } catch (InterruptedException e) {
                        interrupted.countDown();
                    }
                }

                @Override
                public void stateChanged(CuratorFramework c, ConnectionState state) {
                    states.add(state + "@" + Thread.currentThread().getName());
                    super.stateChanged(c, state); // throws CancelLeadershipException on SUSPENDED and LOST
                }
            }, caller);
            assertTrue(inside.await(Awaits.scaled(BUDGET).toMillis(), TimeUnit.MILLISECONDS));
            Leadership l = r.leadership().orElseThrow();
            proxy.cut(); // connections reset: SUSPENDED at once, then RECONNECTED on the same session
            assertTrue(interrupted.await(Awaits.scaled(BUDGET).toMillis(), TimeUnit.MILLISECONDS), "takeLeadership interrupted");
            ElectionTestKit.await(BUDGET, () -> states.contains("RECONNECTED@caller-executor"), () -> "states " + states);
            assertTrue(states.contains("SUSPENDED@caller-executor"), states.toString());
            ElectionTestKit.await(BUDGET, () -> l.state().isTerminal(), () -> "relinquished: " + l);
            ElectionTestKit.await(BUDGET, () -> ElectionTestKit.candidateCount(coord) == 0, () -> "its node is gone");
            assertEquals(1, taken.get(), "not taken again without requeue");
            assertTrue(r.leadership().isEmpty());
        }
    }
}
