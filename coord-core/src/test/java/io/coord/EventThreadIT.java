package io.coord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.internal.EventThreads;
import io.coord.internal.LeaseNodes;
import io.coord.internal.NodeLease;
import io.coord.internal.Zk;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The rule "nothing blocking on the events thread" (one per client, it drives every lease of the
 * client): user continuations on {@link Lease#ended()} run elsewhere, and a blocking call that
 * does reach an event thread fails loudly in tests.
 */
class EventThreadIT {
    private static final CoordPath PARENT = CoordPath.of("/evthread/leases");
    /** A LOST from a deleted node: one watch event and one read; machine time, so it stretches. */
    private static final Duration LOST_WITHIN = SecurityFixtures.scaled(Duration.ofSeconds(5));
    private static TestingServer server;
    private CoordClient client;
    private final java.util.concurrent.ExecutorService listenerThread = java.util.concurrent.Executors.newSingleThreadExecutor();

    @BeforeAll
    static void start() throws Exception {
        server = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, 500, -1, null, "127.0.0.1"), true);
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    @AfterEach
    void closeClient() throws InterruptedException {
        if (client != null) {
            client.close();
        }
        listenerThread.shutdownNow();
        assertTrue(listenerThread.awaitTermination(10, TimeUnit.SECONDS));
    }

    private CoordClient connect() throws InterruptedException {
        client = CoordClient.connect(CoordSettings.builder().connectString(server.getConnectString()).namespace("evthread")
                .sessionTimeout(Duration.ofSeconds(3)).build());
        return client;
    }

    private static NodeLease lease(Zk zk) throws InterruptedException {
        return LeaseNodes.lease(zk, LeaseNodes.create(zk, PARENT, "lease-", new byte[0], true));
    }

    private static void awaitLost(NodeLease lease, Duration within) throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        while (lease.state() != LeaseState.LOST) {
            assertTrue(System.nanoTime() < deadline, lease + " not LOST within " + within);
            Thread.sleep(10);
        }
    }

    @Test
    void aBlockingEndedContinuationDoesNotDelayTheLossOfTheClientsOtherLeases() throws Exception {
        Zk zk = Zk.of(connect());
        NodeLease first = lease(zk);
        NodeLease second = lease(zk);
        CountDownLatch blocked = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicReference<String> ranOn = new AtomicReference<>();
        first.ended().thenRun(() -> {
            ranOn.set(Thread.currentThread().getName());
            blocked.countDown();
            try {
                release.await(60, TimeUnit.SECONDS); // user code that blocks: bounded, the test releases it
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        try {
            // Someone else deletes the first lease's node: LOST is found on the client's events thread.
            client.curator().delete().forPath(first.node().value());
            assertTrue(blocked.await(LOST_WITHIN.toMillis(), TimeUnit.MILLISECONDS), "the first lease's continuation ran");
            assertFalse(ranOn.get().startsWith("coord-events-"), "ended() continuation ran on " + ranOn.get());
            // While that continuation blocks, the second lease still hears its own loss on time:
            // its state, and a listener on the caller's executor.
            CountDownLatch heard = new CountDownLatch(1);
            second.addListener(new LeaseListener() {
                @Override
                public void onLost(Lease lease, CoordException cause) {
                    heard.countDown();
                }
            }, listenerThread);
            client.curator().delete().forPath(second.node().value());
            awaitLost(second, LOST_WITHIN);
            assertTrue(heard.await(LOST_WITHIN.toMillis(), TimeUnit.MILLISECONDS), "onLost of the second lease");
            // Continuations run one at a time on the client's callback thread: the second lease's
            // waits for the first one (documented on Lease.ended()), and comes once that returns.
            release.countDown();
            assertEquals(LeaseState.LOST, second.ended().get(LOST_WITHIN.toMillis(), TimeUnit.MILLISECONDS));
        } finally {
            release.countDown();
        }
    }

    @Test
    void aBlockingCallOnTheEventsThreadFailsLoudly() throws Exception {
        Zk zk = Zk.of(connect());
        assertTrue(EventThreads.class.desiredAssertionStatus(), "tests run with assertions enabled (surefire's default)");
        long before = EventThreads.violations();
        Future<?> call = zk.events().submit(() -> zk.callUninterruptibly(PARENT, () -> client.curator().checkExists().forPath(PARENT.value())));
        ExecutionException e = assertThrows(ExecutionException.class, () -> call.get(LOST_WITHIN.toMillis(), TimeUnit.MILLISECONDS));
        assertInstanceOf(AssertionError.class, e.getCause());
        assertTrue(e.getCause().getMessage().contains("blocking ZooKeeper call on event thread coord-events-"), e.getCause().getMessage());
        assertTrue(EventThreads.violations() > before, "counted");
        long counted = EventThreads.violations();
        // Building an op or sending a background request is fine there.
        Future<?> op = zk.events().submit(() -> zk.op(PARENT, () -> client.curator().transactionOp().check().forPath(PARENT.value())));
        op.get(LOST_WITHIN.toMillis(), TimeUnit.MILLISECONDS);
        assertEquals(counted, EventThreads.violations(), "an op is not a blocking call");
        // And the caller's thread is not an event thread.
        assertFalse(EventThreads.current());
    }
}
