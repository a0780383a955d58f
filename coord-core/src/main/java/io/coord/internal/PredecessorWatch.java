package io.coord.internal;

import io.coord.CoordPath;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.WatcherRemoveCuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;

/**
 * Waits for one node (a waiter's predecessor) to change, so that only the next waiter wakes when a
 * holder leaves: no herd. Watches with {@code getData}, not {@code exists}: a watch on a node that
 * is already gone is never left behind. The wake-up is only a hint — the caller re-reads the
 * children and decides again; events are never trusted alone.
 */
public final class PredecessorWatch implements AutoCloseable {
    private final Zk zk;
    private final WatcherRemoveCuratorFramework watching;

    public PredecessorWatch(Zk zk) {
        this.zk = zk;
        this.watching = zk.curator().newWatcherRemoveCuratorFramework();
    }

    /**
     * Returns when {@code node} changed or is gone (true), or when {@code deadlineNanos}
     * (on {@link System#nanoTime()}) passed (false).
     */
    public boolean awaitChange(CoordPath node, long deadlineNanos) throws InterruptedException {
        CountDownLatch changed = new CountDownLatch(1);
        try {
            org.apache.zookeeper.Watcher watcher = (WatchedEvent e) -> changed.countDown();
            watching.getData().usingWatcher(watcher).forPath(node.value());
        } catch (KeeperException.NoNodeException gone) {
            return true;
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            throw zk.translate(e, node);
        }
        long remaining = deadlineNanos - System.nanoTime();
        return remaining > 0 && changed.await(remaining, TimeUnit.NANOSECONDS);
    }

    /** Removes any watch this waiter still has set (not on a closed client: Curator would log an ERROR per watch). */
    @Override
    public void close() {
        if (zk.curator().getState() == CuratorFrameworkState.STARTED) {
            watching.removeWatchers();
        }
    }
}
