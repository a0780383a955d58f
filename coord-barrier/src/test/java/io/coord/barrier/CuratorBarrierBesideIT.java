package io.coord.barrier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordPath;
import io.coord.ForeignNodesException;
import io.coord.test.Awaits;
import io.coord.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.barriers.DistributedDoubleBarrier;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Curator 5.9's {@code DistributedDoubleBarrier} and Coord's barrier on one path. Curator counts
 * every child of the path as an entered member; Coord keeps generations there. One barrier cannot
 * have members of both, so Coord refuses to enter beside Curator's nodes, naming them, creates
 * nothing, and disturbs no Curator member; inspection lists Curator's nodes and any other foreign
 * child.
 */
class CuratorBarrierBesideIT {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.single();

    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final String PATH = "/barriers/phase";

    private final List<CuratorFramework> curators = new ArrayList<>();
    private final ExecutorService pool = Executors.newCachedThreadPool();

    @AfterEach
    void stop() throws InterruptedException {
        pool.shutdownNow();
        assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS), "member threads ended");
        curators.forEach(CuratorFramework::close);
    }

    private CuratorFramework curator() throws InterruptedException {
        CuratorFramework c = CuratorFrameworkFactory.builder().connectString(zk.connectString()).namespace(zk.namespace())
                .sessionTimeoutMs(4_000).connectionTimeoutMs(10_000).retryPolicy(new ExponentialBackoffRetry(100, 5)).build();
        curators.add(c);
        c.start();
        assertTrue(c.blockUntilConnected((int) Awaits.scaled(WAIT).toMillis(), TimeUnit.MILLISECONDS), "Curator connected");
        return c;
    }

    /** A Curator member entering (then leaving) a 3-member barrier on {@link #PATH}, on its own session. */
    private Future<Boolean> curatorMember() throws InterruptedException {
        DistributedDoubleBarrier b = new DistributedDoubleBarrier(curator(), PATH, 3);
        return pool.submit(() -> b.enter(Awaits.scaled(WAIT).toMillis(), TimeUnit.MILLISECONDS)
                && b.leave(Awaits.scaled(WAIT).toMillis(), TimeUnit.MILLISECONDS));
    }

    private List<String> children() throws Exception {
        return zk.newClient().curator().getChildren().forPath(PATH).stream().sorted().toList();
    }

    @Test
    void coordRefusesToEnterBesideCuratorsMembersNamingThemAndTheCuratorRoundStillCompletes() throws Exception {
        Future<Boolean> first = curatorMember();
        Future<Boolean> second = curatorMember();
        Awaits.until("two Curator members entered", WAIT, () -> {
            try {
                return children().size() == 2;
            } catch (Exception notYet) {
                return false;
            }
        });
        List<String> curatorNodes = children();
        DoubleBarrier coord = DoubleBarrier.create(zk.newClient(), "phase", 3, BarrierOptions.builder().memberId("coord-1").build());

        ForeignNodesException e = assertThrows(ForeignNodesException.class, () -> coord.enter(WAIT));

        assertEquals(CoordPath.of("barriers", "phase"), e.path(), e.getMessage());
        assertEquals(curatorNodes, e.nodes(), e.getMessage());
        assertTrue(e.getMessage().contains(PATH) && e.getMessage().contains("DistributedDoubleBarrier")
                && e.getMessage().contains("MIGRATING") && e.getMessage().contains(curatorNodes.get(0)),
                "the message names the path, the nodes, the other recipe and what to do: " + e.getMessage());
        assertEquals(curatorNodes, children(), "the refused enter created nothing beside Curator's members and removed none");
        assertEquals(curatorNodes, DoubleBarrier.status(zk.newClient(), "phase").foreign(), "the status lists Curator's nodes");

        Future<Boolean> third = curatorMember();
        assertTrue(third.get(60, TimeUnit.SECONDS) && first.get(60, TimeUnit.SECONDS) && second.get(60, TimeUnit.SECONDS),
                "the Curator round, undisturbed by Coord's refusal, completed: all three entered and left");
    }

    /** One round of a 2-member Coord barrier "phase", on new barrier objects: both enter, both leave. */
    private void coordRound() throws Exception {
        List<Future<?>> members = new ArrayList<>();
        for (DoubleBarrier b : DoubleBarrierIT.members(zk, "phase", 2, 2)) {
            members.add(pool.submit(() -> {
                b.enter(WAIT).leave(WAIT);
                return null;
            }));
        }
        for (Future<?> m : members) {
            m.get(60, TimeUnit.SECONDS);
        }
    }

    @Test
    void aCuratorMemberArrivingBesideCoordsGenerationsIsListedAndANewCoordMemberRefuses() throws Exception {
        coordRound();
        assertEquals(List.of(), DoubleBarrier.status(zk.newClient(), "phase").foreign(), "a Coord-only barrier has no foreign node");

        DistributedDoubleBarrier curatorSide = new DistributedDoubleBarrier(curator(), PATH, 3);
        Future<Boolean> curatorEnter = pool.submit(() -> curatorSide.enter(Awaits.scaled(WAIT).toMillis(), TimeUnit.MILLISECONDS));
        Awaits.until("the Curator member's node is listed", WAIT, () -> {
            try {
                return DoubleBarrier.status(zk.newClient(), "phase").foreign().size() == 1;
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
                return false;
            }
        });

        DoubleBarrier late = DoubleBarrier.create(zk.newClient(), "phase", 2, BarrierOptions.builder().memberId("coord-late").build());
        ForeignNodesException e = assertThrows(ForeignNodesException.class, () -> late.enter(WAIT));
        assertEquals(DoubleBarrier.status(zk.newClient(), "phase").foreign(), e.nodes(), e.getMessage());
        curatorEnter.cancel(true);
    }

    @Test
    void anotherForeignChildIsListedByTheStatusAndTheBarrierStillWorks() throws Exception {
        coordRound();
        zk.newClient().curator().create().forPath(PATH + "/notes", new byte[0]);
        coordRound();
        BarrierStatus status = DoubleBarrier.status(zk.newClient(), "phase");
        assertEquals(List.of("notes"), status.foreign(), "the typo'd node is listed by name");
        assertEquals(2, status.generation());
        assertEquals(BarrierStatus.Phase.DONE, status.phase(), "the barrier ignored it and completed its round");
        assertFalse(status.broken());
    }
}
