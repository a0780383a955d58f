package io.coord.lock;

import io.coord.CoordPath;
import io.coord.CoordSession;
import io.coord.Registration;
import io.coord.SessionListener;
import io.coord.SessionState;
import io.coord.internal.Zk;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.WatcherRemoveCuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;

/**
 * One waiter's watches for one acquire: {@code getData} watches on the node(s) {@link WaitRule}
 * names (never {@code exists}: a watch on a node that is already gone is never left behind), and
 * a wake-up when the waiter's session ends (a watch would never fire then). An event is a hint:
 * the caller decides again. Closing removes whatever watch is still set.
 */
final class NodeWatch implements AutoCloseable {
    enum Kind { GONE, CHANGED, TIMEOUT, SESSION_ENDED }

    /** What ended a wait; {@code nodes} are the names that went or changed. */
    record Signal(Kind kind, Set<String> nodes) {
        Signal {
            nodes = Set.copyOf(nodes);
        }
    }

    private static final Object SESSION_END = new Object();

    private final Zk zk;
    private final WatcherRemoveCuratorFramework watching;
    private final LinkedBlockingQueue<Object> events = new LinkedBlockingQueue<>();
    private final Watcher watcher = events::offer;
    private final Registration sessionRegistration;
    private final CoordSession session;

    NodeWatch(Zk zk, CoordSession session) {
        this.zk = zk;
        this.watching = zk.curator().newWatcherRemoveCuratorFramework();
        this.session = session;
        this.sessionRegistration = session.addListener(new SessionListener() {
            @Override
            public void onEnded(CoordSession s, SessionState finalState) {
                events.offer(SESSION_END);
            }
        }, Runnable::run);
    }

    /**
     * Watches {@code nodes} under {@code parent} and waits for one of them to change, until
     * {@code deadlineNanos} unless {@code forever}. Returns at once, without waiting, if a node is
     * already gone, or (with {@code wakeOnStamp}) already has data written after its create.
     */
    Signal await(CoordPath parent, List<String> nodes, boolean wakeOnStamp, boolean forever, long deadlineNanos)
            throws InterruptedException {
        Set<String> gone = new HashSet<>();
        Set<String> changed = new HashSet<>();
        for (String name : nodes) {
            CoordPath node = parent.child(name);
            Stat stat = new Stat();
            try {
                watching.getData().storingStatIn(stat).usingWatcher(watcher).forPath(node.value());
                if (wakeOnStamp && stat.getVersion() > 0) {
                    changed.add(name);
                }
            } catch (KeeperException.NoNodeException e) {
                gone.add(name);
            } catch (InterruptedException e) {
                throw e;
            } catch (Exception e) {
                throw zk.translate(e, node);
            }
        }
        if (!gone.isEmpty()) {
            return new Signal(Kind.GONE, gone);
        }
        if (!changed.isEmpty()) {
            return new Signal(Kind.CHANGED, changed);
        }
        while (true) {
            Object event;
            if (forever) {
                event = events.take();
            } else {
                long remaining = deadlineNanos - System.nanoTime();
                event = remaining <= 0 ? events.poll() : events.poll(remaining, TimeUnit.NANOSECONDS);
                if (event == null) {
                    return new Signal(Kind.TIMEOUT, Set.of());
                }
            }
            if (event == SESSION_END) {
                return new Signal(Kind.SESSION_ENDED, Set.of());
            }
            WatchedEvent e = (WatchedEvent) event;
            if (e.getType() == Watcher.Event.EventType.None || e.getPath() == null) {
                continue;
            }
            String name = e.getPath().substring(e.getPath().lastIndexOf('/') + 1);
            return new Signal(e.getType() == Watcher.Event.EventType.NodeDeleted ? Kind.GONE : Kind.CHANGED, Set.of(name));
        }
    }

    /**
     * Removes any watch still set. Not on a closed client (Curator would log an ERROR per watch it
     * cannot remove) nor after our session ended (its watches ended with it).
     */
    @Override
    public void close() {
        sessionRegistration.close();
        if (zk.curator().getState() == CuratorFrameworkState.STARTED && !session.state().isTerminal()) {
            watching.removeWatchers();
        }
    }
}
