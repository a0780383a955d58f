package io.coord.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.LeaseState;
import io.coord.test.Awaits;
import io.coord.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 15, defect 2: a consumer on a client made with {@code CoordClient.wrap} whose Coord client
 * is closed while the caller keeps its Curator client (and so its session). Its claimed task must
 * not be passed over until that session ends: another consumer gets it at once.
 */
class WrappedClientCloseIT {
    @RegisterExtension
    @Order(1)
    static final ZooKeeperExtension ZOOKEEPER = ZooKeeperExtension.single();
    @RegisterExtension
    @Order(2)
    static final QueueServer ZK = QueueServer.on(ZOOKEEPER);

    /** Far longer than the hand-over may take: a hand-over that waited for the session would fail. */
    private static final Duration SESSION = Duration.ofSeconds(10);

    private static TaskQueue<Job> queue(CoordClient client) {
        return ZK.queue(client, "jobs", Job.class, QueueOptions.builder().backoff(Duration.ofMillis(200), Duration.ofSeconds(1))
                .backoffJitter(0).build());
    }

    @Test
    void aClaimOfAClosedWrappedClientComesBackAtOnceWhileItsSessionLivesOn() throws Exception {
        try (CuratorFramework curator = CuratorFrameworkFactory.builder().connectString(ZOOKEEPER.connectString())
                .namespace(ZOOKEEPER.namespace()).sessionTimeoutMs((int) SESSION.toMillis()).retryPolicy(new RetryOneTime(100)).build()) {
            curator.start();
            CoordClient wrapped = CoordClient.wrap(curator);
            TaskQueue<Job> mine = queue(wrapped);
            TaskId id = mine.enqueue(new Job("a", 1));
            TaskClaim<Job> held = mine.claim(Awaits.scaled(Duration.ofSeconds(5))).orElseThrow();
            assertEquals(id, held.id());
            TaskQueue<Job> theirs = queue(ZK.client());
            long session = curator.getZookeeperClient().getZooKeeper().getSessionId();

            long closedAt = System.nanoTime();
            wrapped.close();

            TaskClaim<Job> again = theirs.claim(Awaits.scaled(Duration.ofSeconds(5)))
                    .orElseThrow(() -> new AssertionError("the task of the closed client did not come back"));
            Duration handover = Duration.ofNanos(System.nanoTime() - closedAt);
            assertEquals(id, again.id());
            assertTrue(handover.compareTo(SESSION) < 0, "without waiting for the wrapped session to end: " + handover);
            assertEquals(LeaseState.LOST, held.ended().get(5, TimeUnit.SECONDS), "the closed client's claim ends LOST");
            assertEquals(session, curator.getZookeeperClient().getZooKeeper().getSessionId(), "the caller's session lives on");
            again.complete();
        }
    }
}
