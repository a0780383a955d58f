package io.coord.barrier;

import static io.coord.barrier.DoubleBarrierIT.get;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.test.Awaits;
import io.coord.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 18: a waiter in {@code enter} returns on the server's word that READY is recorded (the
 * decision node's data-change event, with its zxid), without reading again. Counted by the server: from
 * just before the last member's enter until every member returned, the waiters send no request
 * (before, each read the generation's markers once). SpuriousWakeupIT shows the other half: the
 * same event queued in the client, with no zxid, releases nobody.
 */
class ServerFactIT {
    private static final long LONG_SECONDS = 60;
    private static final Duration LONG = Duration.ofSeconds(LONG_SECONDS);

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

    @Test
    void waitersReturnOnTheReadyEventWithoutAnotherRequest() throws Exception {
        int parties = 6;
        List<CoordClient> clients = new ArrayList<>();
        List<DoubleBarrier> members = new ArrayList<>();
        for (int i = 0; i < parties; i++) {
            CoordClient c = zk.newClient();
            clients.add(c);
            members.add(DoubleBarrier.create(c, "facts", parties, BarrierOptions.builder().memberId("m" + i).build()));
        }
        for (int round = 1; round <= 3; round++) {
            int r = round;
            lastArrivalWindow(members, ServerFactIT::xids, before -> {
                Map<Long, Long> after = xids();
                for (int i = 0; i < parties - 1; i++) {
                    long session = clients.get(i).curator().getZookeeperClient().getZooKeeper().getSessionId();
                    assertEquals(0L, after.getOrDefault(session, 0L) - before.getOrDefault(session, 0L),
                            "round " + r + ": waiter m" + i + " sent requests between the last arrival and its return");
                }
            });
        }
    }

    /**
     * Issue 18: the decision reaches each waiter as ONE watch event (the decision node's), as
     * Curator's ready node does; before, each also got the root's change (2 per waiter). Counted by
     * the server ({@code mntr}) from just before the last member's enter until every member
     * returned: one event per waiter, plus the first seat's watch on the seats seeing the last arrive.
     */
    @Test
    void eachWaiterGetsOneWatchEventPerEnter() throws Exception {
        int parties = 8;
        List<DoubleBarrier> members = new ArrayList<>();
        for (int i = 0; i < parties; i++) {
            members.add(DoubleBarrier.create(zk.newClient(), "one-event", parties, BarrierOptions.builder().memberId("m" + i).build()));
        }
        for (int round = 1; round <= 3; round++) {
            int r = round;
            lastArrivalWindow(members, ServerFactIT::watchEvents, before -> assertEquals(parties, watchEvents() - before,
                    "round " + r + ": watch events from the last arrival until all returned, for " + (parties - 1)
                            + " waiters (one each, and the first seat's watch on the seats)"));
        }
    }

    /**
     * A generation without a decision node (one opened by an earlier Coord; here the node is
     * removed by hand while a member waits) still lets everyone through: a waiter whose decision
     * watch finds no node falls back to the root watch, and READY is recorded without the node.
     * Never a wait that only the timeout ends: every waiter returns soon after the last arrival,
     * long before its {@value #LONG_SECONDS} s timeout.
     */
    @Test
    void aGenerationWithoutADecisionNodeStillLetsEveryoneThrough() throws Exception {
        int parties = 3;
        List<DoubleBarrier> members = new ArrayList<>();
        for (int i = 0; i < parties; i++) {
            members.add(DoubleBarrier.create(zk.newClient(), "no-decision", parties, BarrierOptions.builder().memberId("m" + i).build()));
        }
        Future<BarrierSeat> first = pool.submit(() -> members.get(0).enter(LONG));
        Awaits.until("m0 waits", Duration.ofSeconds(20), () -> DoubleBarrierIT.arrived(members.get(0), 1));
        Generation g = new Generation(Generation.rootOf("no-decision"), 1);
        CoordClient admin = zk.newClient();
        admin.curator().delete().forPath(g.marker(Generation.DECISION).value());
        Future<BarrierSeat> second = pool.submit(() -> members.get(1).enter(LONG));
        Awaits.until("m1 waits", Duration.ofSeconds(20), () -> DoubleBarrierIT.arrived(members.get(0), 2));
        BarrierSeat last = members.get(2).enter(LONG);
        Awaits.until("the waiters returned after the last arrival", Duration.ofSeconds(10), () -> first.isDone() && second.isDone());
        List<BarrierSeat> seats = new ArrayList<>(List.of(last, get(first), get(second)));
        assertTrue(seats.stream().allMatch(s -> s.generation() == 1), "one generation: " + seats);
        leaveAll(seats);
        assertEquals(BarrierStatus.Phase.DONE, members.get(0).status().phase());
    }

    /** A reading of the server taken at the start of the window, checked at its end. */
    private interface Window<T> {
        void check(T before) throws Exception;
    }

    /**
     * One round: all members but the last enter and wait; {@code read} is taken just before the
     * last member's enter and {@code check} runs once every member returned (before anyone leaves);
     * then all leave.
     */
    private <T> void lastArrivalWindow(List<DoubleBarrier> members, Callable<T> read, Window<T> check) throws Exception {
        int parties = members.size();
        List<Future<BarrierSeat>> waiting = new ArrayList<>();
        for (int i = 0; i < parties - 1; i++) {
            DoubleBarrier b = members.get(i);
            waiting.add(pool.submit(() -> b.enter(LONG)));
        }
        Awaits.until("the others wait", Duration.ofSeconds(20), () -> DoubleBarrierIT.arrived(members.get(0), parties - 1));
        Awaits.hold(Duration.ofMillis(500)); // their seat batches answered: they wait
        T before = read.call();
        BarrierSeat last = members.get(parties - 1).enter(LONG);
        List<BarrierSeat> seats = new ArrayList<>();
        for (Future<BarrierSeat> f : waiting) {
            seats.add(get(f));
        }
        check.check(before);
        seats.add(last);
        assertTrue(seats.stream().allMatch(s -> s.generation() == seats.get(0).generation()), "one generation: " + seats);
        leaveAll(seats);
    }

    /** Every seat leaves, each on its own thread, as members do. */
    private void leaveAll(List<BarrierSeat> seats) throws Exception {
        List<Future<?>> leaving = new ArrayList<>();
        for (BarrierSeat s : seats) {
            leaving.add(pool.submit(() -> {
                s.leave(LONG);
                return null;
            }));
        }
        for (Future<?> f : leaving) {
            get(f);
        }
    }

    private static long watchEvents() {
        return io.coord.test.ServerRequests.watchEvents(zk.ensemble().clientPort(0));
    }

    private static Map<Long, Long> xids() {
        return io.coord.test.ServerRequests.lastXids(zk.ensemble().clientPort(0));
    }
}
