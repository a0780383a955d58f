package io.coord;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;

/** Fault helpers for coord-core's own tests (coord-test has the published ones). */
public final class CoreTestSupport {
    private CoreTestSupport() {
    }

    /** {@code d} stretched by {@code -Dcoord.test.timing}, for tests outside this package. */
    public static java.time.Duration scaled(java.time.Duration d) {
        return SecurityFixtures.scaled(d);
    }

    /** Polls until {@code condition} holds, for at most {@code budget} stretched by the timing factor; fails naming {@code what}, read then. */
    public static void await(java.time.Duration budget, java.util.function.BooleanSupplier condition,
            java.util.function.Supplier<String> what) throws InterruptedException {
        if (!holdsWithin(budget, condition)) {
            throw new AssertionError("not within " + scaled(budget) + ": " + what.get());
        }
    }

    /** Polls until {@code condition} holds (true) or {@code budget}, stretched by the timing factor, runs out (false). */
    public static boolean holdsWithin(java.time.Duration budget, java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + scaled(budget).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            Thread.sleep(10);
        }
        return true;
    }

    /**
     * Ends {@code client}'s session on the server for real, as an expiry would: a second handle
     * with the same session id and password connects and closes, which closes the session.
     */
    public static void expireOnServer(CoordClient client) throws Exception {
        ZooKeeper zk = client.curator().getZookeeperClient().getZooKeeper();
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper twin = new ZooKeeper(client.curator().getZookeeperClient().getCurrentConnectionString(),
                zk.getSessionTimeout(), e -> {
                    if (e.getState() == Watcher.Event.KeeperState.SyncConnected) {
                        connected.countDown();
                    }
                }, zk.getSessionId(), zk.getSessionPasswd());
        try {
            if (!connected.await(10, TimeUnit.SECONDS)) {
                throw new AssertionError("twin handle did not connect");
            }
        } finally {
            twin.close();
        }
    }
}
