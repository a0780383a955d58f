package io.coord.barrier;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.coord.BarrierBrokenException;
import io.coord.CoordClient;
import io.coord.InvalidNameException;
import io.coord.test.BadInputs;
import io.coord.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Bad-input row 29 of RELIABILITY.md (c) with its four checks ({@link BadInputs}): barrier
 * parties outside 1..{@value DoubleBarrier#MAX_PARTIES}, a bad name or timeout, and one member
 * more than the parties. Each is refused within 1 s (scaled) naming the value, and changes nothing
 * on the server; the extra member in particular leaves the full generation as it was.
 */
class BarrierBadInputIT {
    private static final Duration LONG = Duration.ofSeconds(60);
    @RegisterExtension
    static final ZooKeeperExtension ZK = ZooKeeperExtension.single();

    private final ExecutorService pool = Executors.newCachedThreadPool();

    @AfterEach
    void stopThreads() throws InterruptedException {
        pool.shutdownNow();
        if (!pool.awaitTermination(30, TimeUnit.SECONDS)) {
            throw new AssertionError("member threads did not end");
        }
    }

    @Test
    void partiesNameAndTimeoutOutsideTheirRulesAreRefusedNamingTheValue() throws Exception {
        CoordClient client = ZK.newClient();
        client.curator().create().creatingParentsIfNeeded().forPath("/seen"); // the namespace exists: "nothing changed" means something
        BadInputs.assertRefused("29 (parties 0)", client, IllegalArgumentException.class,
                () -> DoubleBarrier.create(client, "batch", 0), "parties must be in 1.." + DoubleBarrier.MAX_PARTIES, "got 0",
                "\"batch\"");
        BadInputs.assertRefused("29 (parties -3)", client, IllegalArgumentException.class,
                () -> DoubleBarrier.create(client, "batch", -3), "got -3");
        int over = DoubleBarrier.MAX_PARTIES + 1;
        BadInputs.assertRefused("29 (parties over the maximum)", client, IllegalArgumentException.class,
                () -> DoubleBarrier.create(client, "batch", over), "got " + over);
        BadInputs.assertRefused("29 (name with '/')", client, InvalidNameException.class,
                () -> DoubleBarrier.create(client, "a/b", 2), "\"a/b\"", "contains '/'");
        DoubleBarrier one = DoubleBarrier.create(client, "batch", 1);
        BadInputs.assertRefused("29 (enter timeout 0)", client, IllegalArgumentException.class,
                () -> one.enter(Duration.ZERO), "timeout must be > 0", "PT0S");
        BadInputs.assertRefused("29 (enter timeout -1 s)", client, IllegalArgumentException.class,
                () -> one.enter(Duration.ofSeconds(-1)), "PT-1S");
    }

    @Test
    void oneMemberMoreThanThePartiesIsRefusedAtOnceAndTheFullGenerationIsUntouched() throws Exception {
        List<DoubleBarrier> members = DoubleBarrierIT.members(ZK, "full", 3, 2);
        Future<BarrierSeat> first = pool.submit(() -> members.get(0).enter(LONG));
        BarrierSeat second = members.get(1).enter(LONG);
        BarrierSeat firstSeat = first.get(LONG.toSeconds(), TimeUnit.SECONDS);
        CoordClient observer = ZK.newClient();

        BarrierBrokenException refused = BadInputs.assertRefused("29 (one more than the parties)", observer,
                BarrierBrokenException.class, () -> members.get(2).enter(LONG), "barrier full generation 1",
                "already has all its 2 parties", "member m2 would be one more than the parties and is refused");

        Future<?> leaving = pool.submit(() -> {
            firstSeat.leave(LONG);
            return null;
        });
        second.leave(LONG);
        leaving.get(LONG.toSeconds(), TimeUnit.SECONDS);
        assertEquals(BarrierStatus.Phase.DONE, members.get(0).status().phase(), "the two parties completed: " + refused.getMessage());
        assertEquals(1, members.get(0).status().generation(), "no generation was broken or opened by the extra member");
    }
}
