package io.coord.barrier;

import static io.coord.barrier.DoubleBarrierIT.get;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.BarrierBrokenException;
import io.coord.CoordClient;
import io.coord.CoordSettings;
import io.coord.test.Awaits;
import io.coord.test.ForkedEnsemble;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A member whose server lags behind the leader: ZooKeeper lets a follower answer reads from a
 * state that is behind (sequential consistency per client, not across clients). The chaos suite
 * showed what that did to a barrier on a loaded machine: right after the controller reset a broken
 * generation, a member connected to a follower still read the broken generation, refused itself as
 * a late arrival, and the new generation waited for it until its timeout broke it. Here the lag is
 * made certain: the member's server is held from its leader (its links frozen) across the reset.
 */
@Tag("fault")
class LaggingServerIT {
    private static final Duration LONG = Duration.ofSeconds(60);
    /** How long the follower is held: well under syncLimit × tickTime (1 s), after which the leader would drop it. */
    private static final Duration HELD = Duration.ofMillis(500);

    private static ForkedEnsemble ensemble;

    @BeforeAll
    static void start() {
        ensemble = ForkedEnsemble.start(3, true);
    }

    @AfterAll
    static void stop() {
        if (ensemble != null) {
            ensemble.close();
        }
    }

    private static CoordClient connect(int server) throws InterruptedException {
        return CoordClient.connect(CoordSettings.builder().connectString(ensemble.connectString(server)).namespace("lagging")
                .sessionTimeout(Duration.ofSeconds(4)).connectionTimeout(Duration.ofSeconds(10)).build());
    }

    @Test
    void aMemberOnALaggingServerJoinsTheGenerationAResetOpenedInsteadOfRefusingItselfAsALateArrival() throws Exception {
        int leader = ensemble.awaitLeader(Awaits.scaled(Duration.ofSeconds(30)).toMillis());
        int lagging = (leader + 1) % ensemble.size();
        ExecutorService pool = Executors.newCachedThreadPool();
        try (CoordClient operator = connect(leader);
             CoordClient firstClient = connect(leader);
             CoordClient lateClient = connect(lagging)) {
            DoubleBarrier first = DoubleBarrier.create(firstClient, "lag", 2, BarrierOptions.builder().memberId("first").build());
            DoubleBarrier late = DoubleBarrier.create(lateClient, "lag", 2, BarrierOptions.builder().memberId("late").build());
            // Generation 1 breaks: the first member waits alone and times out.
            assertThrows(BarrierBrokenException.class, () -> first.enter(Duration.ofSeconds(1)));
            Awaits.until("the lagging server shows the break", Duration.ofSeconds(10), () -> broken(late));
            Future<BarrierSeat> lateEnter;
            ensemble.freeze(lagging);
            try {
                assertTrue(DoubleBarrier.reset(operator, "lag"), "the operator reset generation 1 (generation 2 is open)");
                assertTrue(broken(late), "precondition: the held server still shows generation 1 broken");
                lateEnter = pool.submit(() -> late.enter(LONG));
                // Before the fix the late member read generation 1 from its server and refused itself at once.
                Awaits.never("the member on the lagging server gave up (refused as a late arrival of generation 1)", HELD,
                        lateEnter::isDone);
            } finally {
                ensemble.thaw(lagging);
            }
            BarrierSeat firstSeat = first.enter(LONG);
            BarrierSeat lateSeat = get(lateEnter);
            assertEquals(2, firstSeat.generation());
            assertEquals(2, lateSeat.generation(), "the late member joined the generation the reset opened");
            firstSeat.close();
            lateSeat.close();
        } finally {
            pool.shutdownNow();
            assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS), "member threads ended");
        }
    }

    private static boolean broken(DoubleBarrier b) {
        try {
            return b.status().broken();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
