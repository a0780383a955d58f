package io.coord.barrier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.CoordSettings;
import io.coord.test.Awaits;
import io.coord.test.ReplyLossServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Fault F10 on a barrier arrival: the seat's transaction commits but its answer is lost. Curator
 * re-sent a background transaction after a lost reply, and a seat is sequential, so one member took
 * two seats and a 3-party barrier passed with 2 members (the chaos of a review, reproduced here).
 * A seat is now sent once and a lost answer adopted by the seat's unique name.
 */
@Tag("fault")
class SeatReplyLossIT {
    private static final Duration SESSION = Duration.ofSeconds(10); // the server's longest: one session across the reconnect

    private static CoordClient client(ReplyLossServer server) throws InterruptedException {
        return CoordClient.connect(CoordSettings.builder().connectString(server.connectString())
                .sessionTimeout(SESSION).connectionTimeout(Awaits.scaled(Duration.ofSeconds(30))).build());
    }

    @Test
    void anArrivalWhoseAnswerWasLostTakesOneSeatAndTheBarrierWaitsForEveryParty() throws Exception {
        ExecutorService members = Executors.newFixedThreadPool(3);
        try (ReplyLossServer server = ReplyLossServer.start();
             CoordClient a = client(server);
             CoordClient b = client(server);
             CoordClient c = client(server)) {
            Future<BarrierSeat> second = members.submit(() -> DoubleBarrier.create(b, "seats", 3).enter(Awaits.scaled(Duration.ofSeconds(60))));
            Awaits.until("the first member is seated", Duration.ofSeconds(15), () -> seats(a.curator()).size() == 1);

            server.dropNextMultiReply();
            Future<BarrierSeat> lost = members.submit(() -> DoubleBarrier.create(a, "seats", 3).enter(Awaits.scaled(Duration.ofSeconds(60))));
            Awaits.until("the arrival's answer was lost", Duration.ofSeconds(15), () -> server.droppedReplies() == 1);
            Awaits.until("the member whose answer was lost is back", Duration.ofSeconds(20),
                    () -> a.curator().getZookeeperClient().isConnected());
            Awaits.never("the barrier passes with two of three parties", Duration.ofSeconds(3), () -> lost.isDone() || second.isDone());
            assertEquals(2, seats(a.curator()).size(), "one seat per member: " + seats(a.curator()));

            Future<BarrierSeat> third = members.submit(() -> DoubleBarrier.create(c, "seats", 3).enter(Awaits.scaled(Duration.ofSeconds(60))));
            for (Future<BarrierSeat> f : List.of(lost, second, third)) {
                f.get(Awaits.scaled(Duration.ofSeconds(30)).toMillis(), TimeUnit.MILLISECONDS);
            }
            assertEquals(3, seats(a.curator()).size(), "three parties, three seats: " + seats(a.curator()));
        } finally {
            members.shutdownNow();
            assertTrue(members.awaitTermination(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void theCompletingArrivalWhoseAnswerWasLostTakesOneSeatAndEveryPartyPasses() throws Exception {
        ExecutorService members = Executors.newFixedThreadPool(3);
        try (ReplyLossServer server = ReplyLossServer.start();
             CoordClient a = client(server);
             CoordClient b = client(server);
             CoordClient c = client(server)) {
            Future<BarrierSeat> first = members.submit(() -> DoubleBarrier.create(a, "seats", 3).enter(Awaits.scaled(Duration.ofSeconds(60))));
            Future<BarrierSeat> second = members.submit(() -> DoubleBarrier.create(b, "seats", 3).enter(Awaits.scaled(Duration.ofSeconds(60))));
            Awaits.until("two members are seated", Duration.ofSeconds(15), () -> seats(a.curator()).size() == 2);

            server.dropNextMultiReply(); // the third arrival completes the count in one transaction
            Future<BarrierSeat> last = members.submit(() -> DoubleBarrier.create(c, "seats", 3).enter(Awaits.scaled(Duration.ofSeconds(60))));
            for (Future<BarrierSeat> f : List.of(first, second, last)) {
                f.get(Awaits.scaled(Duration.ofSeconds(40)).toMillis(), TimeUnit.MILLISECONDS);
            }
            assertEquals(1, server.droppedReplies(), "the completing arrival's answer was lost");
            assertEquals(3, seats(a.curator()).size(), "three parties, three seats: " + seats(a.curator()));
        } finally {
            members.shutdownNow();
            assertTrue(members.awaitTermination(10, TimeUnit.SECONDS));
        }
    }

    /** Every seat node of every generation of the barrier. */
    private static List<String> seats(CuratorFramework curator) {
        List<String> out = new ArrayList<>();
        try {
            walk(curator, "/barriers", out);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        return out.stream().filter(p -> p.matches(".*/members/[^/]+")).toList();
    }

    private static void walk(CuratorFramework curator, String path, List<String> out) throws Exception {
        if (curator.checkExists().forPath(path) == null) {
            return;
        }
        out.add(path);
        for (String child : curator.getChildren().forPath(path)) {
            walk(curator, path + "/" + child, out);
        }
    }
}
