package io.coord.barrier;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import org.apache.curator.framework.recipes.barriers.DistributedBarrier;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Curator 5.9's {@code DistributedBarrier} and Coord's {@link Gate} on one path interoperate: both
 * say "set" by the one node existing ({@code /gates/{name}}) and release waiters when a read shows
 * it gone, whatever data it holds. So either library may set or remove the gate, and waiters of
 * both wait while it is set and all pass once it is removed.
 */
class CuratorGateBesideIT {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.single();

    private static final Duration WAIT = Duration.ofSeconds(10);
    /** How long waiters are watched for a wrong early pass (a wrong pass would come at once, on the first read). */
    private static final Duration STILL = Duration.ofMillis(300);

    private final List<CuratorFramework> curators = new ArrayList<>();
    private final ExecutorService pool = Executors.newCachedThreadPool();

    @AfterEach
    void stop() throws InterruptedException {
        pool.shutdownNow();
        assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS), "waiter threads ended");
        curators.forEach(CuratorFramework::close);
    }

    private DistributedBarrier curatorBarrier(String path) throws InterruptedException {
        CuratorFramework c = CuratorFrameworkFactory.builder().connectString(zk.connectString()).namespace(zk.namespace())
                .sessionTimeoutMs(10_000).connectionTimeoutMs(10_000).retryPolicy(new ExponentialBackoffRetry(100, 5)).build();
        curators.add(c);
        c.start();
        assertTrue(c.blockUntilConnected((int) Awaits.scaled(WAIT).toMillis(), TimeUnit.MILLISECONDS), "Curator connected");
        return new DistributedBarrier(c, path);
    }

    /** Two Coord and two Curator waiters on the gate {@code name}, each on its own session. */
    private List<Future<Boolean>> waiters(String name) throws InterruptedException {
        List<Future<Boolean>> out = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            Gate coord = Gate.create(zk.newClient(), name);
            out.add(pool.submit(() -> coord.await(Awaits.scaled(Duration.ofSeconds(60)))));
            DistributedBarrier curator = curatorBarrier("/gates/" + name);
            out.add(pool.submit(() -> curator.waitOnBarrier(Awaits.scaled(Duration.ofSeconds(60)).toMillis(), TimeUnit.MILLISECONDS)));
        }
        return out;
    }

    private static void assertAllPass(List<Future<Boolean>> waiters) throws Exception {
        for (Future<Boolean> w : waiters) {
            assertTrue(w.get(Awaits.scaled(WAIT).toMillis(), TimeUnit.MILLISECONDS), "every waiter of both libraries passed");
        }
    }

    private static void assertStillWaiting(List<Future<Boolean>> waiters) throws InterruptedException {
        Thread.sleep(STILL.toMillis());
        for (Future<Boolean> w : waiters) {
            assertFalse(w.isDone(), "no waiter of either library passes a set gate");
        }
    }

    @Test
    void aGateCuratorSetsHoldsCoordAndCuratorWaitersUntilCoordRemovesIt() throws Exception {
        DistributedBarrier setter = curatorBarrier("/gates/deploy");
        setter.setBarrier();
        Gate coord = Gate.create(zk.newClient(), "deploy");
        assertTrue(coord.isSet(), "Coord sees Curator's barrier as a set gate");
        assertFalse(coord.set(), "and does not set it twice");

        List<Future<Boolean>> waiters = waiters("deploy");
        assertStillWaiting(waiters);

        assertTrue(coord.remove(), "Coord removes Curator's barrier");
        assertAllPass(waiters);
        assertFalse(coord.isSet());
    }

    @Test
    void aGateCoordSetsHoldsCuratorAndCoordWaitersUntilCuratorRemovesIt() throws Exception {
        Gate coord = Gate.create(zk.newClient(), "release");
        assertTrue(coord.set());
        DistributedBarrier curator = curatorBarrier("/gates/release");
        assertFalse(curator.waitOnBarrier(Awaits.scaled(STILL).toMillis(), TimeUnit.MILLISECONDS),
                "Curator waits on Coord's gate (its wait times out while the gate is set)");

        List<Future<Boolean>> waiters = waiters("release");
        assertStillWaiting(waiters);

        curator.removeBarrier();
        assertAllPass(waiters);
        assertFalse(coord.isSet(), "Curator's remove opened Coord's gate");
        assertTrue(coord.set(), "and Coord can set it again");
    }
}
