package io.coord.barrier;

import static io.coord.barrier.DoubleBarrierIT.get;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.CoordPath;
import io.coord.LeaseState;
import io.coord.SessionState;
import io.coord.internal.EventThreads;
import io.coord.internal.LeaseNodes;
import io.coord.internal.NodeLease;
import io.coord.internal.Zk;
import io.coord.test.Awaits;
import io.coord.test.ClientProxy;
import io.coord.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 15, defect 5: the seat's tidy-up after a completed leave runs on the client's events
 * thread, which drives every lease of the client. It used to be a synchronous guaranteed delete:
 * with the connection dark, it sat in Curator's retry loop (a connection timeout per attempt), and
 * every other lease event of that client waited behind it, LOST from the session's expiry included.
 */
@Tag("fault")
class TidyUpOffEventThreadIT {
    private static final Duration LONG = Duration.ofSeconds(60);
    private static final Duration SESSION = Duration.ofSeconds(2);
    /**
     * Much longer than the session, so that a tidy-up blocking for one connection timeout would
     * visibly hold up the expiry's LOST.
     */
    private static final Duration CONNECTION_TIMEOUT = Duration.ofSeconds(30);
    /**
     * What LOST after an expiry may add to the session timeout: Curator's expiry check and one
     * hand-off. Machine time: {@link Awaits#until} stretches it (and the session) by the timing factor.
     */
    private static final Duration MARGIN = Duration.ofSeconds(3);

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

    @Test
    void aTidyUpOnADarkConnectionDoesNotHoldUpTheLossOfTheClientsOtherLeases() throws Exception {
        long violationsBefore = EventThreads.violations();
        try (ClientProxy proxy = ClientProxy.to(zk.ensemble())) {
            CoordClient cutClient = zk.newClient(b -> b.connectString(proxy.connectString()).sessionTimeout(SESSION)
                    .connectionTimeout(CONNECTION_TIMEOUT));
            Zk cutZk = Zk.of(cutClient);
            NodeLease other = LeaseNodes.lease(cutZk, LeaseNodes.create(cutZk, CoordPath.of("/tidy/other"), "lease-", new byte[0], true));
            DoubleBarrier cut = DoubleBarrier.create(cutClient, "tidy", 2, BarrierOptions.builder().memberId("cut").build());
            DoubleBarrier peer = DoubleBarrier.create(zk.newClient(), "tidy", 2, BarrierOptions.builder().memberId("peer").build());

            Future<BarrierSeat> cutEnter = pool.submit(() -> cut.enter(LONG));
            BarrierSeat peerSeat = peer.enter(LONG);
            BarrierSeat cutSeat = get(cutEnter);
            Future<?> cutLeave = pool.submit(() -> {
                cutSeat.leave(LONG);
                return null;
            });
            peerSeat.leave(LONG);
            get(cutLeave);
            // The cut member's tidy-up (its seat's delete) is due Leaving.TIDY_DELAY_MS from now, on
            // its client's events thread; the connection goes dark before, and stays dark.
            proxy.refuse();
            long dark = System.nanoTime();
            Awaits.until("the session suspended", MARGIN, () -> cutClient.session().state() != SessionState.CONNECTED);

            Awaits.until("the other lease of the cut client LOST with its session", SESSION.plus(MARGIN),
                    () -> other.state() == LeaseState.LOST);
            long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - dark);
            System.out.println("other lease LOST " + tookMs + " ms after the connection went dark (session " + SESSION.toMillis() + " ms)");
            assertEquals(LeaseState.LOST, other.ended().get(Awaits.scaled(MARGIN).toMillis(), TimeUnit.MILLISECONDS));
            assertEquals(LeaseState.RELEASED, cutSeat.state(), "the seat itself was released by the completed leave");
        }
        assertEquals(violationsBefore, EventThreads.violations(), "no blocking call ran on an event thread");
    }
}
