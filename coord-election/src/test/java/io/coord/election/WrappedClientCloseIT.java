package io.coord.election;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.LeaseState;
import io.coord.test.Awaits;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 15, defect 2: a leader on a client made with {@code CoordClient.wrap} whose Coord client is
 * closed while the caller keeps its Curator client (and so its session). The election must not be
 * left without a leader until that session ends: the next candidate leads at once.
 */
class WrappedClientCloseIT {
    @RegisterExtension
    static final ElectionTestKit KIT = new ElectionTestKit();

    /** Far longer than the hand-over may take: a hand-over that waited for the session would fail. */
    private static final Duration SESSION = Duration.ofSeconds(10);

    @Test
    void closingAWrappedLeadersClientHandsLeadershipOnWhileItsSessionLivesOn() throws Exception {
        try (CuratorFramework curator = CuratorFrameworkFactory.builder().connectString(KIT.connectString())
                .namespace(KIT.namespace()).sessionTimeoutMs((int) SESSION.toMillis()).retryPolicy(new RetryOneTime(100)).build()) {
            curator.start();
            CoordClient wrapped = CoordClient.wrap(curator);
            Election first = KIT.election(wrapped, "svc", ElectionOptions.builder().participantId("wrapped").build());
            Leadership leading = first.campaign(Awaits.scaled(Duration.ofSeconds(10)));
            Election second = KIT.election(KIT.client(), "svc", ElectionOptions.builder().participantId("next").build());
            CompletableFuture<Leadership> next = second.campaignAsync();
            Awaits.until("both candidates in line", Duration.ofSeconds(10), () -> {
                try {
                    return second.candidates().size() == 2;
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            long session = curator.getZookeeperClient().getZooKeeper().getSessionId();

            long closedAt = System.nanoTime();
            wrapped.close();

            Leadership taken = next.get(Awaits.scaled(Duration.ofSeconds(5)).toMillis(), TimeUnit.MILLISECONDS);
            Duration handover = Duration.ofNanos(System.nanoTime() - closedAt);
            assertTrue(handover.compareTo(SESSION) < 0, "without waiting for the wrapped session to end: " + handover);
            assertEquals(LeaseState.LOST, leading.ended().get(5, TimeUnit.SECONDS), "the closed client's leadership ends LOST");
            assertTrue(taken.epoch().isNewerThan(leading.epoch()), leading.epoch() + " then " + taken.epoch());
            assertEquals(1, second.candidates().size(), "only the new leader is left: " + second.candidates());
            assertEquals(session, curator.getZookeeperClient().getZooKeeper().getSessionId(), "the caller's session lives on");
            second.close();
        }
    }
}
