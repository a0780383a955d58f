package io.coord.lock;

import io.coord.CoordPath;
import io.coord.CoordSession;
import io.coord.internal.WakeSignal;
import io.coord.internal.Zk;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.zookeeper.KeeperException;

/**
 * One waiter's watches for one acquire, on coord-core's {@link WakeSignal}: {@code getData}
 * watches on the node(s) {@link WaitRule} names (never {@code exists}: a watch on a node that is
 * already gone is never left behind), and a wake-up when the waiter's session ends (a watch would
 * never fire then). An event is a hint: the caller decides again. Closing removes whatever watch
 * is still set.
 */
final class NodeWatch implements AutoCloseable {
    enum Kind { GONE, CHANGED, TIMEOUT, SESSION_ENDED }

    /** What ended a wait; {@code nodes} are the names that went or changed. */
    record Signal(Kind kind, Set<String> nodes) {
        Signal {
            nodes = Set.copyOf(nodes);
        }
    }

    private final Zk zk;
    private final WakeSignal wake;

    NodeWatch(Zk zk, CoordSession session) {
        this.zk = zk;
        this.wake = new WakeSignal(zk).followSession(session);
    }

    /**
     * Watches {@code nodes} under {@code parent} and waits for one of them to change, until
     * {@code deadlineNanos} unless {@code forever}. Returns at once, without waiting, if a node is
     * already gone, or if a node watched before went or changed since the last return (it is
     * reported then).
     */
    Signal await(CoordPath parent, List<String> nodes, boolean forever, long deadlineNanos)
            throws InterruptedException {
        long seen = wake.epoch(); // before the reads: a wake-up in between is not lost
        Set<String> gone = new HashSet<>();
        for (String name : nodes) {
            CoordPath node = parent.child(name);
            try {
                wake.watching().getData().usingWatcher(wake).forPath(node.value());
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
        while (true) {
            WakeSignal.Wakes wakes = wake.take();
            // A change forces a full read, which also covers any deletion recorded beside it.
            if (!wakes.changed().isEmpty()) {
                return new Signal(Kind.CHANGED, names(wakes.changed()));
            }
            if (!wakes.gone().isEmpty()) {
                return new Signal(Kind.GONE, names(wakes.gone()));
            }
            if (wakes.sessionEnded()) {
                return new Signal(Kind.SESSION_ENDED, Set.of());
            }
            // Nothing recorded: a connection event or a session suspension/reconnection, or no wake-up yet.
            if (forever) {
                wake.await(seen);
            } else if (!wake.await(seen, deadlineNanos)) {
                return new Signal(Kind.TIMEOUT, Set.of());
            }
            seen = wake.epoch();
        }
    }

    private static Set<String> names(Set<String> paths) {
        Set<String> names = new HashSet<>();
        for (String path : paths) {
            names.add(path.substring(path.lastIndexOf('/') + 1));
        }
        return names;
    }

    /** Ends the session registration and removes any watch still set (see {@link WakeSignal#close()}). */
    @Override
    public void close() {
        wake.close();
    }
}
