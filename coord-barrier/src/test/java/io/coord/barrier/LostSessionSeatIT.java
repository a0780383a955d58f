package io.coord.barrier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.BarrierBrokenException;
import io.coord.CoordClient;
import io.coord.CoordSettings;
import io.coord.barrier.BarrierStatus.Phase;
import io.coord.test.Awaits;
import io.coord.test.Faults;
import io.coord.test.ReplyLossServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A member's seat outlives the member's session on the client's side: the seat's transaction
 * commits but its answer is lost (F10), and at that moment the client gives its session up (F3:
 * Curator reports LOST by its own reckoning and starts a new session), while the server keeps the
 * old session, and the seat, for up to a session timeout. That is what a starved 2 s session does
 * under load (chaos barrier, CI's loaded pass). The member, back on its new session, must not
 * count twice (a 3-party barrier passing with two members) nor be refused as an extra of a round
 * that counted its old seat and then hang the others: it breaks the generation at once, everyone
 * waiting gets {@link BarrierBrokenException}, and after a reset the next generation passes.
 */
@Tag("fault")
class LostSessionSeatIT {
    /** The server's longest session: the old one, and its seat, outlive the whole test step. */
    private static final Duration SESSION = Duration.ofSeconds(10);
    private static final Duration LONG = Awaits.scaled(Duration.ofSeconds(60));
    /** Bounded waits for outcomes that need a few round trips only. */
    private static final Duration BOUND = Awaits.scaled(Duration.ofSeconds(20));

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

    private static CoordClient client(ReplyLossServer server) throws InterruptedException {
        return CoordClient.connect(CoordSettings.builder().connectString(server.connectString())
                .sessionTimeout(SESSION).connectionTimeout(Awaits.scaled(Duration.ofSeconds(30))).build());
    }

    private static DoubleBarrier member(CoordClient client, String id) {
        return DoubleBarrier.create(client, "lost", 3, BarrierOptions.builder().memberId(id).build());
    }

    @Test
    void aMemberBackOnANewSessionBreaksTheGenerationItsOldSeatWaitsInAndTheNextOnePasses() throws Exception {
        try (ReplyLossServer server = ReplyLossServer.start();
             CoordClient a = client(server);
             CoordClient b = client(server);
             CoordClient c = client(server)) {
            Future<BarrierSeat> first = pool.submit(() -> member(b, "b").enter(LONG));
            Awaits.until("b is seated", BOUND, () -> arrived(c) == 1);

            AtomicLong oldSession = new AtomicLong();
            server.dropNextMultiReply(() -> oldSession.set(Faults.injectClientExpiry(a)));
            DoubleBarrier memberA = member(a, "a");
            Future<BarrierSeat> lost = pool.submit(() -> memberA.enter(LONG));

            // a's seat of its old session still counts on the server; without c nobody may pass.
            BarrierBrokenException aBroke = brokenIn(lost);
            BarrierBrokenException bBroke = brokenIn(first);
            assertEquals(1, server.droppedReplies(), "the seat's answer was lost");
            assertNotEquals(oldSession.get(), a.session().id(), "a is on a new session");
            assertTrue(aBroke.getMessage().contains("generation 1"), aBroke.getMessage());
            assertTrue(bBroke.getMessage().contains("a (#1)"), "b's break names a's old seat: " + bBroke.getMessage());
            assertEquals(Phase.BROKEN, DoubleBarrier.status(c, "lost").phase());

            assertThrows(BarrierBrokenException.class, () -> member(c, "c").enter(LONG), "a late arrival is refused");
            assertTrue(DoubleBarrier.reset(c, "lost"));
            roundPasses(List.of(memberA, member(b, "b"), member(c, "c")), 2);
        }
    }

    @Test
    void aMemberBackOnANewSessionBreaksTheGenerationThatCountedItsOldSeatSoTheOthersLeaveAndTheNextOnePasses() throws Exception {
        try (ReplyLossServer server = ReplyLossServer.start();
             CoordClient a = client(server);
             CoordClient b = client(server);
             CoordClient c = client(server)) {
            DoubleBarrier memberB = member(b, "b");
            DoubleBarrier memberC = member(c, "c");
            Future<BarrierSeat> seatB = pool.submit(() -> memberB.enter(LONG));
            Awaits.until("b is seated", BOUND, () -> arrived(c) == 1);
            Future<BarrierSeat> seatC = pool.submit(() -> memberC.enter(LONG));
            Awaits.until("c is seated", BOUND, () -> arrived(c) == 2);

            // a's arrival completes the count: its seat and READY commit in one transaction whose answer is lost
            AtomicLong oldSession = new AtomicLong();
            server.dropNextMultiReply(() -> oldSession.set(Faults.injectClientExpiry(a)));
            DoubleBarrier memberA = member(a, "a");
            Future<BarrierSeat> lost = pool.submit(() -> memberA.enter(LONG));
            BarrierSeat sb = seatB.get(BOUND.toMillis(), TimeUnit.MILLISECONDS);
            BarrierSeat sc = seatC.get(BOUND.toMillis(), TimeUnit.MILLISECONDS);
            assertEquals(1, sb.generation());

            BarrierBrokenException aBroke = brokenIn(lost);
            assertEquals(1, server.droppedReplies(), "the completing arrival's answer was lost");
            assertNotEquals(oldSession.get(), a.session().id(), "a is on a new session");
            // Not "one more than the parties": the generation counted a's old seat, which can never
            // leave; a says so by breaking it, while the server still holds that seat.
            assertEquals(Phase.BROKEN, DoubleBarrier.status(c, "lost").phase(), "broken by a: " + aBroke.getMessage());

            for (BarrierSeat seat : List.of(sb, sc)) {
                brokenIn(pool.submit(() -> {
                    seat.leave(LONG);
                    return null;
                }));
            }
            assertTrue(DoubleBarrier.reset(c, "lost"));
            roundPasses(List.of(memberA, memberB, memberC), 2);
        }
    }

    /** Every member enters and leaves generation {@code generation}. */
    private void roundPasses(List<DoubleBarrier> members, long generation) throws Exception {
        List<Future<BarrierSeat>> entered = new ArrayList<>();
        for (DoubleBarrier m : members) {
            entered.add(pool.submit(() -> m.enter(LONG)));
        }
        List<Future<?>> left = new ArrayList<>();
        for (Future<BarrierSeat> f : entered) {
            BarrierSeat seat = f.get(LONG.toMillis(), TimeUnit.MILLISECONDS);
            assertEquals(generation, seat.generation(), seat.toString());
            left.add(pool.submit(() -> {
                seat.leave(LONG);
                return null;
            }));
        }
        for (Future<?> f : left) {
            f.get(LONG.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    private static BarrierBrokenException brokenIn(Future<?> f) throws Exception {
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(BOUND.toMillis(), TimeUnit.MILLISECONDS));
        if (e.getCause() instanceof BarrierBrokenException b) {
            return b;
        }
        throw new AssertionError("expected BarrierBrokenException, got " + e.getCause(), e.getCause());
    }

    private static int arrived(CoordClient client) {
        try {
            BarrierStatus s = DoubleBarrier.status(client, "lost");
            return s.phase() == Phase.OPEN ? s.arrived().size() : -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        } catch (RuntimeException e) {
            return -1; // not created yet
        }
    }
}
