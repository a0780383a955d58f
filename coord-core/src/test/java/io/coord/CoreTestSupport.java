package io.coord;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;

/** Fault helpers for coord-core's own tests (coord-test has the published ones). */
public final class CoreTestSupport {
    private CoreTestSupport() {
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
