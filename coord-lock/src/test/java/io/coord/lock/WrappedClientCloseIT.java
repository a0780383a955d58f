package io.coord.lock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.CoordPath;
import io.coord.LeaseState;
import io.coord.test.Awaits;
import io.coord.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * How a lock lease ends when its client or handle closes. Issue 15, defect 2: closing a client made with {@code CoordClient.wrap} keeps the caller's Curator
 * client and so its ZooKeeper session. What Coord held on that session must go with the close: the
 * holder's node and every waiter's node are deleted at once, not when the session ends (never, for
 * a service that keeps its Curator client), so the next process gets the lock without waiting.
 */
class WrappedClientCloseIT {
    @RegisterExtension
    static final ZooKeeperExtension SERVER = ZooKeeperExtension.single();

    /** Far longer than the hand-over may take: a hand-over that waited for the session would fail. */
    private static final Duration SESSION = Duration.ofSeconds(10);
    private static final CoordPath LOCK = Locks.path("wrapped", "close");
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void stop() throws InterruptedException {
        threads.shutdownNow();
        assertTrue(threads.awaitTermination(10, TimeUnit.SECONDS));
    }

    @Test
    void closingAWrappedClientHandsTheLockOnAtOnceAndRemovesItsWaitersWhileItsSessionLivesOn() throws Exception {
        try (CuratorFramework curator = CuratorFrameworkFactory.builder().connectString(SERVER.connectString())
                .namespace(SERVER.namespace()).sessionTimeoutMs((int) SESSION.toMillis()).retryPolicy(new RetryOneTime(100)).build()) {
            curator.start();
            CoordClient wrapped = CoordClient.wrap(curator);
            DistributedLock mine = Locks.mutex(wrapped, LOCK);
            LockLease held = mine.acquire(Awaits.scaled(Duration.ofSeconds(10)));
            CompletableFuture<Object> myWaiter = CompletableFuture.supplyAsync(() -> attempt(mine), threads);
            CoordClient other = SERVER.newClient();
            CompletableFuture<Object> theirs = CompletableFuture.supplyAsync(() -> attempt(Locks.mutex(other, LOCK)), threads);
            Awaits.until("holder and two waiters queued", Duration.ofSeconds(10), () -> children(curator).size() == 3);
            long session = curator.getZookeeperClient().getZooKeeper().getSessionId();

            long closedAt = System.nanoTime();
            wrapped.close();

            Object got = theirs.get(Awaits.scaled(Duration.ofSeconds(5)).toMillis(), TimeUnit.MILLISECONDS);
            Duration handover = Duration.ofNanos(System.nanoTime() - closedAt);
            assertTrue(got instanceof LockLease, "the other client gets the lock: " + got);
            assertTrue(handover.compareTo(SESSION) < 0, "without waiting for the wrapped session to end: " + handover);
            assertEquals(LeaseState.LOST, held.ended().get(5, TimeUnit.SECONDS), "the closed client's hold ends LOST");
            Object mineGot = myWaiter.get(Awaits.scaled(Duration.ofSeconds(5)).toMillis(), TimeUnit.MILLISECONDS);
            assertTrue(mineGot instanceof Exception, "the closed client's waiter gives up: " + mineGot);
            assertEquals(1, children(curator).size(), "only the new holder's node is left: " + children(curator));
            assertNull(curator.checkExists().forPath(held.node().value()));
            assertEquals(session, curator.getZookeeperClient().getZooKeeper().getSessionId(), "the caller's session lives on");
            ((LockLease) got).close();
        }
    }

    @Test
    void closingALockLeaseThatWasAlreadyLostKeepsItLostInStateAndEnded() throws Exception {
        CoordClient holder = SERVER.newClient();
        CoordClient other = SERVER.newClient();
        LockLease lease = Locks.mutex(holder, LOCK).acquire(Awaits.scaled(Duration.ofSeconds(10)));
        other.curator().delete().forPath(lease.node().value());
        assertEquals(LeaseState.LOST, lease.ended().get(Awaits.scaled(Duration.ofSeconds(10)).toMillis(), TimeUnit.MILLISECONDS));
        lease.close();
        assertEquals(LeaseState.LOST, lease.state(), "closing does not turn a loss into a release");
        assertEquals(LeaseState.LOST, lease.ended().get(1, TimeUnit.SECONDS));
    }

    private static Object attempt(DistributedLock lock) {
        try {
            return lock.acquire(Awaits.scaled(Duration.ofSeconds(30)));
        } catch (Exception e) {
            return e;
        }
    }

    private static List<String> children(CuratorFramework curator) {
        try {
            return curator.getChildren().forPath(LOCK.value());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
