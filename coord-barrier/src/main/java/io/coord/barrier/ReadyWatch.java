package io.coord.barrier;

import io.coord.internal.WakeSignal;
import io.coord.internal.Zk;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;

/**
 * One enter's watch on its generation's {@code ready} marker: the server's word that READY is
 * recorded, so the waiter returns without reading again (issue 18: trust server facts, not
 * wake-ups). READY is encoded by which path changed: the marker is created only by the
 * transaction that records READY, never by anything else, and a generation's number is never
 * reused. So only these count as the fact:
 * <ul>
 *   <li>a {@code NodeCreated} event for exactly this generation's marker that carries the server's
 *       zxid. The watch is set on the raw ZooKeeper handle because Curator's namespace wrapper
 *       rebuilds every event without its zxid; an event that was never sent by a server (one
 *       queued in the client, ZooKeeper's {@code Testable.queueEvent}, as {@code SpuriousWakeupIT}
 *       does) has none;
 *   <li>the server's answer to the {@code exists} that sets the watch, with a stat: the marker is
 *       already there.
 * </ul>
 * Everything else (session events, events for other paths or generations, the wait returning
 * with no event) only wakes the waiter, which then reads as before. A waiter that never got the
 * fact (its watch was used up by a queued event, its session changed) is still woken by its root
 * watch and reads: this watch can only make a release faster, never earlier.
 */
final class ReadyWatch implements Watcher {
    private final Zk zk;
    private final WakeSignal signal;
    private final String rawPath;
    private final long generation;
    private volatile boolean ready;
    /** Whether the registration may still be on the server (not fired, not removed). */
    private volatile boolean pending = true;

    private ReadyWatch(Zk zk, WakeSignal signal, String rawPath, long generation) {
        this.zk = zk;
        this.signal = signal;
        this.rawPath = rawPath;
        this.generation = generation;
    }

    /**
     * Sends the {@code exists} that sets the watch on {@code g}'s ready marker, in the background
     * (so it keeps its place among the session's requests: a batch sent with it costs no extra
     * round trip).
     */
    static ReadyWatch set(Zk zk, Generation g, WakeSignal signal) {
        String raw = ZKPaths.fixForNamespace(zk.curator().getNamespace(), g.marker(Generation.READY).value());
        ReadyWatch watch = new ReadyWatch(zk, signal, raw, g.number());
        try {
            zk.curator().getZookeeperClient().getZooKeeper().exists(raw, watch, (rc, path, ctx, stat) -> {
                if (rc == KeeperException.Code.OK.intValue() && stat != null) {
                    watch.decided();
                }
            }, null);
        } catch (Exception noHandleNow) {
            watch.pending = false; // no fact will come from it: the wait reads, as it always could
        }
        return watch;
    }

    long generation() {
        return generation;
    }

    /** Whether the server said READY is recorded for this generation. */
    boolean ready() {
        return ready;
    }

    @Override
    public void process(WatchedEvent event) {
        if (event.getType() != Event.EventType.None) {
            pending = false; // a node event uses the registration up
        }
        if (event.getType() == Event.EventType.NodeCreated && rawPath.equals(event.getPath()) && event.getZxid() > 0) {
            decided();
        } else {
            signal.fire();
        }
    }

    private void decided() {
        ready = true;
        signal.fire();
    }

    /**
     * Removes the registration if it may still be on the server (the generation went another way,
     * or this member moved on): a marker that is never created would otherwise keep it there for
     * the session's life. In the background; nothing waits for it.
     */
    void remove() {
        if (!pending || ready) {
            return;
        }
        pending = false;
        try {
            ZooKeeper handle = zk.curator().getZookeeperClient().getZooKeeper();
            handle.removeWatches(rawPath, this, WatcherType.Data, false, (rc, path, ctx) -> { }, null);
        } catch (Exception gone) {
            // no handle (closed, or between sessions): a session that ended took the watch with it
        }
    }
}
