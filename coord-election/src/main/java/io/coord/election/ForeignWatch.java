package io.coord.election;

import io.coord.CoordPath;
import io.coord.ForeignNodesException;
import io.coord.internal.NodeLease;
import io.coord.internal.Zk;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.curator.framework.WatcherRemoveCuratorFramework;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * While a Coord candidate leads: a children watch on the election node, so that a foreign node
 * appearing (a Curator client of the other layout, an older Coord, anything else) ends the
 * leadership. Whoever made that node elects by a rule we cannot see and may believe it leads, so
 * we stop claiming: the leadership ends LOST with a {@link ForeignNodesException} as its cause and
 * its node is deleted. Between the foreign node's creation and this step-down (one watch event
 * and the task's interrupt) both may act: the documented window of a misconfigured fleet.
 *
 * <p>Every read is in the background and its answer is only looked at (no blocking on an event
 * thread); the step-down runs on Coord's event thread, as every lease move does. A read that
 * fails (connection loss) is sent again after a pause: the lease itself goes UNCERTAIN meanwhile.
 */
final class ForeignWatch implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ForeignWatch.class);
    private static final long RETRY_MS = 200;

    private final Zk zk;
    private final CoordPath path;
    private final CuratorLayout layout;
    private final NodeLease lease;
    private final WatcherRemoveCuratorFramework watching;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Watcher watcher = event -> {
        if (event.getType() == Watcher.Event.EventType.NodeChildrenChanged) {
            read();
        }
    };

    private ForeignWatch(Zk zk, CoordPath path, CuratorLayout layout, NodeLease lease) {
        this.zk = zk;
        this.path = path;
        this.layout = layout;
        this.lease = lease;
        this.watching = zk.curator().newWatcherRemoveCuratorFramework();
    }

    /** Starts watching for {@code lease}'s leadership; close it when the leadership ends. */
    static ForeignWatch start(Zk zk, CoordPath path, CuratorLayout layout, NodeLease lease) {
        ForeignWatch w = new ForeignWatch(zk, path, layout, lease);
        w.read();
        return w;
    }

    private void read() {
        if (closed.get()) {
            return;
        }
        try {
            watching.getChildren().usingWatcher(watcher).inBackground((client, event) -> onChildren(event)).forPath(path.value());
        } catch (Exception e) {
            LOG.debug("could not watch the children of election {}; again in {} ms", path, RETRY_MS, e);
            retry();
        }
    }

    private void onChildren(CuratorEvent event) {
        if (closed.get()) {
            return;
        }
        if (event.getResultCode() != KeeperException.Code.OK.intValue()) {
            retry(); // no watch was left: ask again (NONODE cannot be while our node is in it; the lease tells then)
            return;
        }
        List<String> foreign = CandidateRule.foreign(event.getChildren(), layout);
        if (!foreign.isEmpty()) {
            stepDown(foreign);
        }
    }

    private void retry() {
        if (closed.get()) {
            return;
        }
        try {
            zk.timer().schedule(this::read, RETRY_MS, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException closing) {
            // the client is closing: the lease ends with it
        }
    }

    private void stepDown(List<String> foreign) {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        ForeignNodesException cause = CandidateRule.refusal(path, layout, foreign, "stepped down: leadership "
                + lease.token() + " ended LOST and its node was deleted; it does not join again while they are there");
        LOG.warn("{}", cause.getMessage());
        try {
            zk.events().execute(() -> {
                lease.endLost(cause);
                deleteOurNode();
            });
        } catch (RejectedExecutionException closing) {
            // the client is closing: the lease ends with it
        }
        watching.removeWatchers();
    }

    /** Our node goes too, so that no one of our layout waits behind a leader that stopped claiming. */
    private void deleteOurNode() {
        try {
            zk.curator().delete().guaranteed().inBackground().forPath(lease.token().node().value());
        } catch (Exception e) {
            LOG.warn("could not send the delete of {}; it goes with the session", lease.token().node(), e);
        }
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            watching.removeWatchers();
        }
    }
}
