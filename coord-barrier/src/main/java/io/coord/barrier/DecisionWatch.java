package io.coord.barrier;

import io.coord.internal.WakeSignal;
import io.coord.internal.Zk;
import java.util.concurrent.CompletableFuture;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;

/**
 * One enter's only watch while it waits: an exists-watch on its generation's
 * {@link Generation#DECISION} node (issue 18: trust server facts, not wake-ups; one event per
 * waiter, as Curator's). The node is made with the generation and changed only by its decision:
 * READY's transaction sets its data, a break during enter deletes it, and a generation's number is
 * never reused. So the decision is encoded by the event's type:
 * <ul>
 *   <li>{@code NodeDataChanged} for exactly this node, carrying the server's zxid: READY is
 *       recorded, and the waiter returns without reading again. The watch is set on the raw
 *       ZooKeeper handle because Curator's namespace wrapper rebuilds every event without its zxid;
 *       an event that was never sent by a server (one queued in the client, ZooKeeper's
 *       {@code Testable.queueEvent}, as {@code SpuriousWakeupIT} does) has none;
 *   <li>the answer to the {@code exists} that sets the watch, with the node at data version 1 or
 *       more: READY was recorded before;
 *   <li>anything else ({@code NodeDeleted}: a break, whose record the waiter then reads; session
 *       events; events with no zxid; the wait returning with no event) only wakes the waiter, which
 *       reads as before and sets the watch again if it may be used up ({@link #armed()}).
 * </ul>
 * An {@code exists} that finds no node while the generation's markers say OPEN means a generation
 * opened by an earlier Coord, without the node: {@link #absent()}, and the waiter falls back to
 * its root watch.
 */
final class DecisionWatch implements Watcher {
    private final Zk zk;
    private final String rawPath;
    private final long generation;
    /** Counts this watch's events and the signal's session changes: whether the registration is still in place. */
    private final RootWatch arming;
    private volatile boolean ready;
    private volatile boolean absent;
    /** Whether the registration may still be on the server (not fired, not removed). */
    private volatile boolean pending;

    DecisionWatch(Zk zk, Generation g, WakeSignal signal) {
        this.zk = zk;
        this.rawPath = ZKPaths.fixForNamespace(zk.curator().getNamespace(), g.marker(Generation.DECISION).value());
        this.generation = g.number();
        this.arming = new RootWatch(signal);
    }

    /**
     * Sends the {@code exists} that sets the watch, in the background (so it keeps its place among
     * the session's requests: a batch sent with it costs no extra round trip). The future completes
     * (on ZooKeeper's event thread) once the answer is taken in; it never fails: a call that could
     * not be sent leaves the watch unarmed, and the waiter reads as it always could.
     */
    CompletableFuture<Void> arm() {
        CompletableFuture<Void> answered = new CompletableFuture<>();
        long before = arming.mark();
        pending = true;
        try {
            zk.curator().getZookeeperClient().getZooKeeper().exists(rawPath, this, (rc, path, ctx, stat) -> {
                if (rc == KeeperException.Code.OK.intValue() && stat != null) {
                    if (stat.getVersion() > 0) {
                        decided();
                    } else {
                        arming.set(before);
                    }
                } else if (rc == KeeperException.Code.NONODE.intValue()) {
                    absent = true; // broken, or a generation made without the node: the waiter reads which
                }
                answered.complete(null);
            }, null);
        } catch (Exception noHandleNow) {
            pending = false;
            answered.complete(null);
        }
        return answered;
    }

    long generation() {
        return generation;
    }

    /** Whether the server said READY is recorded for this generation. */
    boolean ready() {
        return ready;
    }

    /** Whether the last {@link #arm()} found no decision node (a break deleted it, or the generation never had one). */
    boolean absent() {
        return absent;
    }

    /** Whether the watch is registered and neither fired nor saw a session change since. */
    boolean armed() {
        return !absent && arming.armed();
    }

    @Override
    public void process(WatchedEvent event) {
        if (event.getType() != Event.EventType.None) {
            pending = false; // a node event uses the registration up
        }
        if (event.getType() == Event.EventType.NodeDataChanged && rawPath.equals(event.getPath()) && event.getZxid() > 0) {
            ready = true;
        }
        arming.process(event); // wakes the waiter
    }

    private void decided() {
        ready = true;
        pending = false;
        arming.process(null);
    }

    /**
     * Removes the registration if it may still be on the server (this member moved on, or an
     * exists found no node and left a creation watch behind): it would otherwise stay there for the
     * session's life. In the background; nothing waits for it.
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
