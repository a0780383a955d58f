package io.coord.barrier;

import static io.coord.barrier.DoubleBarrierIT.get;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.barrier.BarrierStatus.Phase;
import io.coord.test.Awaits;
import io.coord.test.Faults;
import io.coord.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.recipes.barriers.DistributedDoubleBarrier;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Fault F11: watch events that did not happen (ZooKeeper's {@code Testable.queueEvent}) and
 * connection flaps while nothing changed. They wake the waiters; the waiters read again and keep
 * waiting. The control shows the same injection lets Curator 5.9.0's DistributedDoubleBarrier
 * through early (GH-1290), so the test would catch a barrier that trusts events.
 */
class SpuriousWakeupIT {
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

    private static ZooKeeper handle(CoordClient client) throws Exception {
        return client.curator().getZookeeperClient().getZooKeeper();
    }

    /** The path ZooKeeper itself sees (with the test's namespace in front). */
    private static String raw(String path) {
        return "/" + zk.namespace() + path;
    }

    /** Every kind of event a waiter could mistake for progress, for the nodes it watches, plus a connection flap. */
    private static void inject(CoordClient client, Generation g, List<String> seats) throws Exception {
        ZooKeeper h = handle(client);
        h.getTestable().queueEvent(new WatchedEvent(EventType.NodeDataChanged, KeeperState.SyncConnected, raw(g.root().value())));
        h.getTestable().queueEvent(new WatchedEvent(EventType.NodeChildrenChanged, KeeperState.SyncConnected, raw(g.path().value())));
        h.getTestable().queueEvent(new WatchedEvent(EventType.NodeChildrenChanged, KeeperState.SyncConnected, raw(g.members().value())));
        // the decision node's READY (data changed) and break (deleted), with no zxid: never sent by a server
        for (EventType type : List.of(EventType.NodeDataChanged, EventType.NodeDeleted)) {
            h.getTestable().queueEvent(new WatchedEvent(type, KeeperState.SyncConnected, raw(g.marker(Generation.DECISION).value())));
        }
        for (String marker : List.of(Generation.READY, Generation.DONE)) {
            h.getTestable().queueEvent(new WatchedEvent(EventType.NodeCreated, KeeperState.SyncConnected, raw(g.marker(marker).value())));
        }
        for (String seat : seats) {
            h.getTestable().queueEvent(new WatchedEvent(EventType.NodeDeleted, KeeperState.SyncConnected, raw(g.seat(seat).value())));
        }
        Faults.spuriousFlap(client);
    }

    @Test
    void spuriousEventsAndFlapsLetNobodyThroughEnterOrLeaveEarly() throws Exception {
        List<CoordClient> clients = new ArrayList<>();
        List<DoubleBarrier> barriers = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            CoordClient c = zk.newClient();
            clients.add(c);
            barriers.add(DoubleBarrier.create(c, "spurious", 4, BarrierOptions.builder().memberId("m" + i).build()));
        }
        List<Future<BarrierSeat>> entering = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            DoubleBarrier b = barriers.get(i);
            entering.add(pool.submit(() -> b.enter(LONG)));
        }
        Awaits.until("three members wait", Duration.ofSeconds(20), () -> DoubleBarrierIT.arrived(barriers.get(0), 3));
        Generation g = new Generation(Generation.rootOf("spurious"), 1);
        List<String> seats = clients.get(0).curator().getChildren().forPath(g.members().value());
        for (int round = 0; round < 30; round++) {
            for (int i = 0; i < 3; i++) {
                inject(clients.get(i), g, seats);
            }
        }
        Awaits.never("a member returned from enter before the fourth arrived", Duration.ofSeconds(2),
                () -> entering.stream().anyMatch(Future::isDone));
        BarrierSeat last = barriers.get(3).enter(LONG);
        List<BarrierSeat> all = new ArrayList<>();
        for (Future<BarrierSeat> f : entering) {
            all.add(get(f));
        }
        all.add(last);
        assertTrue(all.stream().allMatch(s -> s.generation() == 1), "one generation: " + all);

        List<Future<?>> leaving = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            BarrierSeat seat = all.get(i);
            leaving.add(pool.submit(() -> {
                seat.leave(LONG);
                return null;
            }));
        }
        Awaits.until("three members left", Duration.ofSeconds(20), () -> DoubleBarrierIT.left(barriers.get(0), 3));
        for (int round = 0; round < 30; round++) {
            for (int i = 0; i < 3; i++) {
                inject(clients.get(i), g, seats);
            }
        }
        Awaits.never("a member returned from leave before the fourth left", Duration.ofSeconds(2),
                () -> leaving.stream().anyMatch(Future::isDone));
        last.leave(LONG);
        for (Future<?> f : leaving) {
            get(f);
        }
        assertEquals(Phase.DONE, barriers.get(0).status().phase());
    }

    /** Control: the same kind of event lets Curator's DistributedDoubleBarrier out of enter with 2 of 3 arrived. */
    @Test
    void controlCuratorDoubleBarrierLeavesEnterEarlyOnASpuriousEvent() throws Exception {
        CoordClient a = zk.newClient();
        CoordClient b = zk.newClient();
        DistributedDoubleBarrier first = new DistributedDoubleBarrier(a.curator(), "/curator-control", 3);
        DistributedDoubleBarrier second = new DistributedDoubleBarrier(b.curator(), "/curator-control", 3);
        Future<Boolean> waiting = pool.submit(() -> first.enter(30, TimeUnit.SECONDS));
        Future<Boolean> other = pool.submit(() -> second.enter(30, TimeUnit.SECONDS));
        Awaits.until("two Curator members wait", Duration.ofSeconds(20), () -> children(a, "/curator-control") >= 2);
        Awaits.hold(Duration.ofMillis(300)); // both are inside wait() by now
        handle(a).getTestable().queueEvent(new WatchedEvent(EventType.NodeCreated, KeeperState.SyncConnected, raw("/curator-control/ready")));
        assertTrue(waiting.get(10, TimeUnit.SECONDS), "Curator's enter returned true");
        assertEquals(2, children(a, "/curator-control"), "although only 2 of 3 members had entered: an early release");
        other.cancel(true);
    }

    private static int children(CoordClient c, String path) {
        try {
            return c.curator().getChildren().forPath(path).size();
        } catch (Exception e) {
            return -1;
        }
    }
}
