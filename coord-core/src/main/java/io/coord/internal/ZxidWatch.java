package io.coord.internal;

import io.coord.CoordPath;
import java.util.Objects;
import org.apache.curator.RetryLoop;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A persistent watch whose events carry the zxid of the change they report.
 *
 * <p>Why not Curator's {@code watchers().add()}: Curator 5.9.0 hands every event on through its
 * {@code NamespaceWatcher}, which re-creates it as a {@code NamespaceWatchedEvent} with
 * {@code WatchedEvent}'s three-argument constructor, so the zxid the server sent is lost (the
 * event says -1; a raw ZooKeeper 3.9.5 handle gets the real value). A recipe that orders events
 * against what it read (a group's view) needs that zxid: without it every event means a full read.
 * So this watch is added on the ZooKeeper handle itself, with the namespace applied here, and the
 * events reach the watcher with their zxid and the path as the recipe names it (no namespace).
 *
 * <p>Like any watch on a handle, it survives reconnects of the same session (ZooKeeper re-sends it)
 * and dies with the session: after a new session, call {@link #add()} again. {@link #add()} may block
 * (Curator's retry loop), so never on an event thread; {@link #close()} never blocks.
 */
public final class ZxidWatch implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ZxidWatch.class);

    private final Zk zk;
    private final CoordPath path;
    private final AddWatchMode mode;
    private final String serverPath;
    private final String prefix;
    private final Watcher added;

    public ZxidWatch(Zk zk, CoordPath path, AddWatchMode mode, Watcher watcher) {
        this.zk = Objects.requireNonNull(zk, "zk");
        this.path = Objects.requireNonNull(path, "path");
        this.mode = Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(watcher, "watcher");
        String namespace = zk.curator().getNamespace();
        this.prefix = namespace == null || namespace.isEmpty() ? "" : ZKPaths.makePath(namespace, null);
        this.serverPath = ZKPaths.fixForNamespace(namespace, path.value());
        this.added = event -> watcher.process(prefix.isEmpty() || event.getPath() == null ? event
                : new WatchedEvent(event.getType(), event.getState(), unfix(event.getPath()), event.getZxid()));
    }

    private String unfix(String server) {
        if (server.equals(prefix)) {
            return "/";
        }
        return server.startsWith(prefix + "/") ? server.substring(prefix.length()) : server;
    }

    /** Adds the watch on the current session (idempotent on one session); retried as Curator retries. */
    public void add() throws InterruptedException {
        zk.call(path, () -> RetryLoop.callWithRetry(zk.curator().getZookeeperClient(), () -> {
            zk.curator().getZookeeperClient().getZooKeeper().addWatch(serverPath, added, mode);
            return null;
        }));
    }

    /**
     * Removes the watch in the background: from the server when connected, and from the handle
     * anyway (a reconnect then does not re-send it).
     */
    @Override
    public void close() {
        try {
            zk.curator().getZookeeperClient().getZooKeeper().removeWatches(serverPath, added, Watcher.WatcherType.Any, true,
                    (rc, p, ctx) -> { }, null);
        } catch (Exception e) {
            LOG.debug("could not remove the watch on {}", path, e);
        }
    }
}
