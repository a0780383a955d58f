package io.coord.barrier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.BarrierBrokenException;
import io.coord.CoordClient;
import io.coord.LeaseState;
import io.coord.barrier.BarrierStatus.Phase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.zookeeper.data.Stat;
import io.coord.test.Awaits;
import io.coord.test.ZooKeeperExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The double barrier against a real ZooKeeper: all-or-nothing entry and exit, generations, timeouts, refusals. */
class DoubleBarrierIT {
    private static final Duration LONG = Duration.ofSeconds(60);
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

    /** {@code count} members of barrier {@code name}, each on its own client, named m0, m1, ... */
    static List<DoubleBarrier> members(ZooKeeperExtension zk, String name, int count, int parties) {
        List<DoubleBarrier> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            out.add(DoubleBarrier.create(zk.newClient(), name, parties, BarrierOptions.builder().memberId("m" + i).build()));
        }
        return out;
    }

    private List<DoubleBarrier> members(String name, int count, int parties) {
        return members(zk, name, count, parties);
    }

    static <T> T get(Future<T> f) throws Exception {
        try {
            return f.get(90, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception ex) {
                throw ex;
            }
            throw e;
        } catch (TimeoutException e) {
            throw new AssertionError("a member did not finish within 90 s (a hang)", e);
        }
    }

    /** Arrival and departure times of one member, as this controller recorded them. */
    private record Times(long enterCall, long enterReturn, long enterReturnWall, long leaveCall, long leaveReturn,
                         long leaveReturnWall, long generation) {
    }

    @Test
    void noneOfSixteenMembersPassesEnterOrLeaveBeforeTheLastOneArrives() throws Exception {
        int n = 16;
        long seed = System.nanoTime();
        Random random = new Random(seed);
        List<DoubleBarrier> barriers = members("sixteen", n, n);
        CountDownLatch allEntered = new CountDownLatch(n);
        CountDownLatch leaveNow = new CountDownLatch(1);
        List<Future<Times>> futures = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            DoubleBarrier b = barriers.get(i);
            long arriveAfter = random.nextInt(1500);
            long leaveAfter = random.nextInt(1500);
            futures.add(pool.submit(() -> {
                Thread.sleep(arriveAfter); // the arrival schedule, not synchronization
                long call = System.nanoTime();
                BarrierSeat seat = b.enter(LONG);
                long ret = System.nanoTime();
                long retWall = System.currentTimeMillis();
                allEntered.countDown();
                assertTrue(leaveNow.await(60, TimeUnit.SECONDS));
                Thread.sleep(leaveAfter);
                long leaveCall = System.nanoTime();
                seat.leave(LONG);
                return new Times(call, ret, retWall, leaveCall, System.nanoTime(), System.currentTimeMillis(), seat.generation());
            }));
        }
        assertTrue(allEntered.await(60, TimeUnit.SECONDS), "all 16 entered (seed " + seed + ")");
        BarrierStatus entered = barriers.get(0).status();
        assertEquals(Phase.READY, entered.phase());
        assertEquals(n, entered.arrived().size(), entered.toString());
        long lastSeatCreated = entered.arrived().stream().mapToLong(a -> a.arrivedAt().toEpochMilli()).max().orElseThrow();
        leaveNow.countDown();
        List<Times> times = new ArrayList<>();
        for (Future<Times> f : futures) {
            times.add(get(f));
        }
        long lastEnterCall = times.stream().mapToLong(Times::enterCall).max().orElseThrow();
        long firstEnterReturn = times.stream().mapToLong(Times::enterReturn).min().orElseThrow();
        long firstEnterReturnWall = times.stream().mapToLong(Times::enterReturnWall).min().orElseThrow();
        assertTrue(firstEnterReturn >= lastEnterCall, "a member returned from enter "
                + (lastEnterCall - firstEnterReturn) / 1_000_000 + " ms before the 16th called it (seed " + seed + ")");
        assertTrue(lastSeatCreated <= firstEnterReturnWall, "server-side: the last seat was created at " + lastSeatCreated
                + ", after the first member returned from enter at " + firstEnterReturnWall + " (seed " + seed + ")");
        long lastLeaveCall = times.stream().mapToLong(Times::leaveCall).max().orElseThrow();
        long firstLeaveReturn = times.stream().mapToLong(Times::leaveReturn).min().orElseThrow();
        long firstLeaveReturnWall = times.stream().mapToLong(Times::leaveReturnWall).min().orElseThrow();
        assertTrue(firstLeaveReturn >= lastLeaveCall, "a member returned from leave "
                + (lastLeaveCall - firstLeaveReturn) / 1_000_000 + " ms before the 16th called it (seed " + seed + ")");
        long generation = times.get(0).generation();
        assertTrue(times.stream().allMatch(t -> t.generation() == generation), "one generation for all: " + times);
        CoordClient reader = zk.newClient();
        Generation g = new Generation(Generation.rootOf("sixteen"), generation);
        long lastLeft = 0;
        for (long seq = 0; seq < n; seq++) {
            Stat stat = reader.curator().checkExists().forPath(g.leftMarker(seq).value());
            assertNotNull(stat, "left marker of #" + seq);
            lastLeft = Math.max(lastLeft, stat.getCtime());
        }
        assertTrue(lastLeft <= firstLeaveReturnWall, "server-side: the last member left at " + lastLeft
                + ", after the first returned from leave at " + firstLeaveReturnWall + " (seed " + seed + ")");
        assertEquals(Phase.DONE, barriers.get(0).status().phase());
    }

    @Test
    void twentyGenerationsOfEightMembersAllCompleteAndNoMemberSeesAnotherRound() throws Exception {
        int n = 8;
        int rounds = 20;
        List<DoubleBarrier> barriers = members("rounds", n, n);
        // generation -> the members that were in it; each member must see its own sequence of rounds
        ConcurrentHashMap<Long, Set<String>> byGeneration = new ConcurrentHashMap<>();
        List<Future<List<Long>>> futures = new ArrayList<>();
        for (DoubleBarrier b : barriers) {
            futures.add(pool.submit(() -> {
                List<Long> mine = new ArrayList<>();
                for (int r = 0; r < rounds; r++) {
                    BarrierSeat seat = b.enter(LONG);
                    mine.add(seat.generation());
                    byGeneration.computeIfAbsent(seat.generation(), k -> ConcurrentHashMap.newKeySet()).add(b.memberId());
                    assertTrue(seat.sequence() < n, "admitted seats are #0..#7: " + seat);
                    assertEquals(LeaseState.ACQUIRED, seat.state());
                    seat.leave(LONG);
                    assertEquals(LeaseState.RELEASED, seat.state());
                }
                return mine;
            }));
        }
        List<List<Long>> seen = new ArrayList<>();
        for (Future<List<Long>> f : futures) {
            seen.add(get(f));
        }
        List<Long> expected = new ArrayList<>();
        for (long g = 1; g <= rounds; g++) {
            expected.add(g);
        }
        for (List<Long> s : seen) {
            assertEquals(expected, s, "every member went through generations 1..20 in order");
        }
        assertEquals(rounds, byGeneration.size());
        byGeneration.forEach((g, who) -> assertEquals(n, who.size(), "generation " + g + " had all 8 members: " + who));
        BarrierStatus last = barriers.get(0).status();
        assertEquals(rounds, last.generation());
        assertEquals(Phase.DONE, last.phase());
        CoordClient reader = zk.newClient();
        List<String> kept = reader.curator().getChildren().forPath(Generation.rootOf("rounds").value());
        assertTrue(kept.size() <= BarrierOptions.DEFAULT_KEEP_GENERATIONS + 1, "old generations are removed: " + kept);
    }

    @Test
    void afterEveryoneLeftAndClosedTheirSeatsTheSeatNodesAreDeletedSoonAndTheLeftMarkersStay() throws Exception {
        int n = 3;
        List<DoubleBarrier> barriers = members("tidy", n, n);
        List<Future<BarrierSeat>> rounds = new ArrayList<>();
        for (DoubleBarrier b : barriers) {
            rounds.add(pool.submit(() -> {
                // the usual shape: the seat closed right after leave returned
                try (BarrierSeat seat = b.enter(LONG)) {
                    seat.leave(LONG);
                    assertEquals(LeaseState.RELEASED, seat.state(), "released as soon as leave returned");
                    return seat;
                }
            }));
        }
        List<BarrierSeat> seats = new ArrayList<>();
        for (Future<BarrierSeat> f : rounds) {
            seats.add(get(f));
        }
        CoordClient reader = zk.newClient();
        Generation g = new Generation(Generation.rootOf("tidy"), seats.get(0).generation());
        // deleted in the background shortly after everyone left, not left to the sessions' end
        Awaits.until("the seat nodes of the finished generation are deleted", Duration.ofSeconds(10), () -> {
            try {
                return reader.curator().getChildren().forPath(g.members().value()).stream().noneMatch(c -> c.startsWith(Generation.SEAT_PREFIX));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        for (long seq = 0; seq < n; seq++) {
            assertNotNull(reader.curator().checkExists().forPath(g.leftMarker(seq).value()), "left marker of #" + seq + " stays");
        }
        assertTrue(seats.stream().allMatch(s -> s.state() == LeaseState.RELEASED), "every seat reads RELEASED: " + seats);
    }

    @Test
    void aTimeoutBreaksTheGenerationForEveryWaiterTogether() throws Exception {
        List<DoubleBarrier> barriers = members("timeout", 3, 4);
        List<Future<Long>> patient = new ArrayList<>();
        for (int i = 1; i < 3; i++) {
            DoubleBarrier b = barriers.get(i);
            patient.add(pool.submit(() -> {
                BarrierBrokenException e = assertThrows(BarrierBrokenException.class, () -> b.enter(LONG));
                assertTrue(e.getMessage().contains("timed out"), e.getMessage());
                return System.nanoTime();
            }));
        }
        Awaits.until("two patient members wait", Duration.ofSeconds(20), () -> arrived(barriers.get(0), 2));
        long start = System.nanoTime();
        BarrierBrokenException own = assertThrows(BarrierBrokenException.class, () -> barriers.get(0).enter(Duration.ofMillis(800)));
        assertTrue(own.getMessage().contains("timed out") && own.getMessage().contains("3 of 4 arrived"), own.getMessage());
        for (Future<Long> f : patient) {
            long failedAfter = get(f) - start;
            assertTrue(failedAfter < Duration.ofSeconds(10).toNanos(), "the patient members failed with the impatient one, not at their own timeout");
        }
        BarrierStatus status = barriers.get(0).status();
        assertTrue(status.broken());
        assertEquals(Phase.OPEN, status.brokenIn());
        assertTrue(status.arrived().stream().noneMatch(BarrierStatus.Arrival::present), "every seat was removed: " + status);
    }

    @Test
    void aTimeoutInLeaveBreaksTheGenerationNamingWhoDidNotLeave() throws Exception {
        List<DoubleBarrier> barriers = members("leave-timeout", 3, 3);
        List<Future<BarrierSeat>> entering = new ArrayList<>();
        for (DoubleBarrier b : barriers) {
            entering.add(pool.submit(() -> b.enter(LONG)));
        }
        List<BarrierSeat> seats = new ArrayList<>();
        for (Future<BarrierSeat> f : entering) {
            seats.add(get(f));
        }
        Future<BarrierBrokenException> patient = pool.submit(() -> assertThrows(BarrierBrokenException.class, () -> seats.get(1).leave(LONG)));
        Awaits.until("member 1 left", Duration.ofSeconds(20), () -> left(barriers.get(0), 1));
        BarrierBrokenException own = assertThrows(BarrierBrokenException.class, () -> seats.get(0).leave(Duration.ofMillis(500)));
        BarrierBrokenException other = get(patient);
        for (BarrierBrokenException e : List.of(own, other)) {
            assertTrue(e.getMessage().contains("timed out waiting in leave") && e.getMessage().contains("m2 (#"), e.getMessage());
        }
        // the member that never left learns it too, at once
        BarrierBrokenException late = assertThrows(BarrierBrokenException.class, () -> seats.get(2).leave(LONG));
        assertTrue(late.getMessage().contains("during leave"), late.getMessage());
    }

    @Test
    void aLateArrivalAtABrokenGenerationFailsFastUntilReset() throws Exception {
        List<DoubleBarrier> barriers = members("late", 3, 2);
        assertThrows(BarrierBrokenException.class, () -> barriers.get(0).enter(Duration.ofMillis(300)));
        long start = System.nanoTime();
        BarrierBrokenException late = assertThrows(BarrierBrokenException.class, () -> barriers.get(1).enter(LONG));
        assertTrue(System.nanoTime() - start < Duration.ofSeconds(5).toNanos(), "failed fast, not at its 60 s timeout");
        assertTrue(late.getMessage().contains("late arrival") && late.getMessage().contains("reset"), late.getMessage());
        assertTrue(barriers.get(2).reset(), "reset opens a new generation");
        assertFalse(barriers.get(2).reset(), "a second reset finds nothing broken");
        Future<BarrierSeat> a = pool.submit(() -> barriers.get(1).enter(LONG));
        BarrierSeat b = barriers.get(2).enter(LONG);
        BarrierSeat other = get(a);
        assertEquals(2, b.generation());
        assertEquals(2, other.generation());
        b.close();
        other.close();
    }

    @Test
    void moreMembersThanPartiesAreRefusedAndTheGenerationIsUnaffected() throws Exception {
        List<DoubleBarrier> barriers = members("full", 3, 2);
        Future<BarrierSeat> first = pool.submit(() -> barriers.get(0).enter(LONG));
        BarrierSeat second = barriers.get(1).enter(LONG);
        BarrierSeat firstSeat = get(first);
        BarrierBrokenException refused = assertThrows(BarrierBrokenException.class, () -> barriers.get(2).enter(LONG));
        assertTrue(refused.getMessage().contains("one more than the parties"), refused.getMessage());
        Future<?> leaving = pool.submit(() -> {
            firstSeat.leave(LONG);
            return null;
        });
        second.leave(LONG);
        get(leaving);
        assertEquals(Phase.DONE, barriers.get(0).status().phase());
    }

    @Test
    void partiesMustBePositiveAndMembersMustAgreeOnThem() throws Exception {
        CoordClient client = zk.newClient();
        IllegalArgumentException zero = assertThrows(IllegalArgumentException.class, () -> DoubleBarrier.create(client, "bad", 0));
        assertTrue(zero.getMessage().contains("got 0"), zero.getMessage());
        assertThrows(IllegalArgumentException.class, () -> DoubleBarrier.create(client, "bad", -3));
        assertThrows(io.coord.InvalidNameException.class, () -> DoubleBarrier.create(client, "a/b", 2));
        assertThrows(IllegalArgumentException.class, () -> DoubleBarrier.create(client, "x", 1).enter(Duration.ZERO));
        DoubleBarrier four = DoubleBarrier.create(client, "agree", 4);
        Future<BarrierBrokenException> waiting = pool.submit(() -> assertThrows(BarrierBrokenException.class, () -> four.enter(LONG)));
        Awaits.until("the first member waits", Duration.ofSeconds(20), () -> arrived(four, 1));
        DoubleBarrier three = DoubleBarrier.create(zk.newClient(), "agree", 3, BarrierOptions.builder().memberId("odd").build());
        BarrierBrokenException mismatch = assertThrows(BarrierBrokenException.class, () -> three.enter(LONG));
        assertTrue(mismatch.getMessage().contains("3 parties") && mismatch.getMessage().contains("opened for 4"), mismatch.getMessage());
        assertTrue(get(waiting).getMessage().contains("odd"), "the waiting member learns who broke it");
    }

    @Test
    void anInterruptedWaiterBreaksTheGenerationForEveryone() throws Exception {
        List<DoubleBarrier> barriers = members("interrupt", 2, 3);
        Future<BarrierBrokenException> other = pool.submit(() -> assertThrows(BarrierBrokenException.class, () -> barriers.get(1).enter(LONG)));
        Awaits.until("the other member waits", Duration.ofSeconds(20), () -> arrived(barriers.get(0), 1));
        Future<?> interrupted = pool.submit(() -> assertThrows(InterruptedException.class, () -> barriers.get(0).enter(LONG)));
        Awaits.until("both wait", Duration.ofSeconds(20), () -> arrived(barriers.get(0), 2));
        interrupted.cancel(true);
        BarrierBrokenException e = get(other);
        assertTrue(e.getMessage().contains("interrupted"), e.getMessage());
    }

    @Test
    void statusShowsGenerationArrivalsMissingAndSince() throws Exception {
        List<DoubleBarrier> barriers = members("status", 2, 3);
        assertFalse(DoubleBarrier.status(zk.newClient(), "never-used").exists());
        Future<BarrierSeat> first = pool.submit(() -> barriers.get(0).enter(LONG));
        Awaits.until("one arrived", Duration.ofSeconds(20), () -> arrived(barriers.get(0), 1));
        BarrierStatus open = barriers.get(1).status();
        assertEquals(1, open.generation());
        assertEquals(Phase.OPEN, open.phase());
        assertEquals(3, open.parties());
        assertEquals(2, open.waitingFor());
        assertEquals("m0", open.arrived().get(0).memberId());
        assertNotNull(open.since());
        assertFalse(open.broken());
        first.cancel(true);
        assertThrows(Exception.class, () -> get(first));
        Awaits.until("broken", Duration.ofSeconds(20), () -> status(barriers.get(1)).broken());
        BarrierStatus broken = barriers.get(1).status();
        assertEquals(Phase.OPEN, broken.brokenIn());
        assertTrue(broken.reason().contains("interrupted"), broken.reason());
    }

    static boolean arrived(DoubleBarrier b, int count) {
        BarrierStatus s = status(b);
        return s.exists() && s.phase() == Phase.OPEN && s.arrived().stream().filter(BarrierStatus.Arrival::present).count() >= count;
    }

    static boolean left(DoubleBarrier b, int count) {
        BarrierStatus s = status(b);
        return s.exists() && s.arrived().stream().filter(BarrierStatus.Arrival::left).count() >= count;
    }

    static BarrierStatus status(DoubleBarrier b) {
        try {
            return b.status();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
