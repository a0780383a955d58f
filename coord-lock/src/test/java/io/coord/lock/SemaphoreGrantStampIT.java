package io.coord.lock;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.ConnectionLostException;
import io.coord.CoordClient;
import io.coord.CoordPath;
import io.coord.internal.SequentialNodes;
import io.coord.test.Awaits;
import io.coord.test.ClientProxy;
import io.coord.test.ZooKeeperExtension;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A semaphore waiter behind another waiter watches only that one and takes its grant stamp (its
 * node's data written at grant) as the sign to re-check. When the stamp cannot be written, the
 * waiter behind must still learn that a permit is free.
 */
class SemaphoreGrantStampIT {
    @RegisterExtension
    static final ZooKeeperExtension SERVER = ZooKeeperExtension.single();

    private static final CoordPath SEM = Locks.path("stamp", "slots");
    private static final Duration WAIT = Duration.ofSeconds(60);
    private final ExecutorService pool = Executors.newCachedThreadPool();

    @AfterEach
    void stop() throws InterruptedException {
        pool.shutdownNow();
        assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
    }

    @Test
    void aWaiterBehindAGrantWhoseStampFailedIsWokenWhenAPermitFrees() throws Exception {
        try (ClientProxy proxy = ClientProxy.to(SERVER.ensemble())) {
            // The stamping client fails fast on a dark connection (no retry, 1 s to connect) while
            // its session (10 s) outlives the cut: a stamp that fails on a live lease. It is a
            // Curator client of our own, so that its first connection may take as long as it takes.
            CuratorFramework flakyCurator = CuratorFrameworkFactory.builder().connectString(proxy.connectString())
                    .namespace(SERVER.namespace()).sessionTimeoutMs(10_000).connectionTimeoutMs(1_000)
                    .retryPolicy(new RetryNTimes(0, 0)).build();
            flakyCurator.start();
            try {
                assertTrue(flakyCurator.blockUntilConnected((int) Awaits.scaled(Duration.ofSeconds(10)).toMillis(), TimeUnit.MILLISECONDS),
                        "the stamping client connected through the proxy");
                CoordClient flaky = CoordClient.wrap(flakyCurator);
                try {
                    stampFailsThenAPermitFrees(proxy, flaky);
                } finally {
                    flaky.close();
                }
            } finally {
                flakyCurator.close();
            }
        }
    }

    private void stampFailsThenAPermitFrees(ClientProxy proxy, CoordClient flaky) throws Exception {
        AtomicBoolean armed = new AtomicBoolean();
        AtomicBoolean cut = new AtomicBoolean();
        // The grant reads the clock just before it stamps: that is where the connection goes dark.
        Clock cutAtGrant = new Clock() {
            @Override
            public Instant instant() {
                if (armed.compareAndSet(true, false)) {
                    proxy.refuse();
                    proxy.cut();
                    Awaits.until("the stamping client saw its connection drop", Duration.ofSeconds(10),
                            () -> !flaky.curator().getZookeeperClient().isConnected());
                    cut.set(true);
                }
                return Instant.now();
            }

            @Override
            public ZoneId getZone() {
                return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(ZoneId zone) {
                return this;
            }
        };
        CoordClient observer = SERVER.newClient();
        LockLease h1 = Locks.semaphore(SERVER.newClient(), SEM, 2).acquire(WAIT);
        LockLease h2 = Locks.semaphore(SERVER.newClient(), SEM, 2).acquire(WAIT);
        Semaphore stamping = Locks.semaphore(flaky, SEM, 2, LockOptions.builder().clock(cutAtGrant).build());
        Future<LockLease> third = pool.submit(() -> stamping.acquire(WAIT));
        LockTesting.await("the third queued", Duration.ofSeconds(10), () -> LockTesting.inspect(observer, SEM).waiters().size() == 1);
        CoordClient fourthClient = SERVER.newClient();
        Semaphore waiting = Locks.semaphore(fourthClient, SEM, 2);
        Future<LockLease> fourth = pool.submit(() -> waiting.acquire(WAIT));
        LockTesting.await("the fourth queued", Duration.ofSeconds(10), () -> LockTesting.inspect(observer, SEM).waiters().size() == 2);
        String thirdNode = children(observer).get(2);
        LockTesting.awaitWatch(SERVER, "the fourth watches the third", SEM.child(thirdNode), fourthClient.session().id());

        armed.set(true);
        h1.close(); // the third is granted; its stamp meets a dark connection
        Optional<LockLease> thirdLease;
        try {
            thirdLease = Optional.of(third.get(Awaits.scaled(Duration.ofSeconds(10)).toMillis(), TimeUnit.MILLISECONDS));
        } catch (ExecutionException e) {
            // A grant it could not announce may be refused, as a failed call during acquire.
            assertTrue(e.getCause() instanceof ConnectionLostException, String.valueOf(e.getCause()));
            thirdLease = Optional.empty();
        }
        assertTrue(cut.get(), "the connection was cut at the third's grant");
        proxy.accept();
        LockTesting.await("the stamping client reconnected", Duration.ofSeconds(8),
                () -> flaky.curator().getZookeeperClient().isConnected());

        h2.close(); // a permit frees: the fourth must hear of it
        LockLease fourthLease = fourth.get(Awaits.scaled(Duration.ofSeconds(8)).toMillis(), TimeUnit.MILLISECONDS);
        assertTrue(fourthLease.token().isNewerThan(h2.token()));
        if (thirdLease.isEmpty()) {
            LockTesting.await("the refused third's node is removed", Duration.ofSeconds(8),
                    () -> !children(observer).contains(thirdNode));
        }
        thirdLease.ifPresent(LockLease::close);
        fourthLease.close();
        LockTesting.await("no node left", Duration.ofSeconds(8), () -> children(observer).isEmpty());
        assertFalse(armed.get());
    }

    private static List<String> children(CoordClient client) {
        try {
            return client.curator().getChildren().forPath(SEM.value()).stream()
                    .sorted(Comparator.comparingLong(SequentialNodes::sequence)).toList();
        } catch (Exception e) {
            throw new AssertionError("could not list " + SEM, e);
        }
    }
}
