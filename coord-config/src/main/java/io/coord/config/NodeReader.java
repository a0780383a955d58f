package io.coord.config;

import io.coord.CoordException;
import io.coord.CoordPath;
import io.coord.CoordSession;
import io.coord.Registration;
import io.coord.SessionListener;
import io.coord.internal.Zk;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.apache.curator.framework.WatcherRemoveCuratorFramework;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads a reader's nodes and feeds {@link ConfigState}: one-shot getData watches, every event
 * followed by a re-read, and after every reconnect or new session a sync and a re-read of every
 * node (nothing is assumed from before).
 *
 * <p>Two paths, both applying under the state's lock, so {@link VersionRule} sees every read in
 * one order whichever thread made it:
 * <ul>
 *   <li><b>fast</b>: a data change is re-read asynchronously straight from the watch event and
 *       applied on ZooKeeper's event thread when the answer comes, the way Curator's own caches
 *       do (no extra thread hand-off between a change and its listeners);</li>
 *   <li><b>slow</b>, on the reader's config thread: creates and deletes (which need an exists
 *       watch and the parent's pzxid), reads after a reconnect (sync first), and retries after a
 *       failed read.</li>
 * </ul>
 *
 * <p>Just over 300 lines, most of them the slow path's error handling; the two paths share the
 * watcher, the queue and the session bookkeeping.
 */
final class NodeReader<T> {
    private static final Logger LOG = LoggerFactory.getLogger(NodeReader.class);
    private static final long RETRY_MS = 1000;

    /** What the reader's owner does with what was read. */
    interface Owner<T> {
        /** Called with the state's lock held, in the order reads were applied: record, do not call out. */
        void onOutcome(ConfigState.Outcome<T> outcome);

        /** Called without the lock after {@link #onOutcome}: deliver what it recorded. */
        void dispatch();

        void onReadFailure(CoordException error);

        /** The connection is down (from Curator's connection thread). */
        void onSuspended();

        /** Every node was read again since the last suspension: the value is current. */
        void onCurrent();

        /** A new session began: ephemerals (the report) are gone. */
        void onNewSession();
    }

    /** The connection, once there is one. */
    private record Attached(Zk zk, WatcherRemoveCuratorFramework curator, Registration newSessions) {
    }

    private final ConfigState<T> state;
    private final Owner<T> owner;
    private final ScheduledExecutorService thread;
    private final String name;
    private final Watcher watcher = this::onWatch;
    private final ConcurrentLinkedQueue<NodeTrack> queue = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean drainScheduled = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final AtomicLong suspensions = new AtomicLong();
    private volatile Attached attached;
    private volatile Registration sessionRegistration;
    private long resyncAfter;
    private boolean resyncPending;

    private final AppDirCheck dirCheck;

    /** {@code dirCheck}: for a whole-app reader, what its app directory should hold; null for one key. */
    NodeReader(ConfigState<T> state, Owner<T> owner, ScheduledExecutorService thread, String name, AppDirCheck dirCheck) {
        this.state = state;
        this.owner = owner;
        this.thread = thread;
        this.name = name;
        this.dirCheck = dirCheck;
    }

    Watcher watcher() {
        return watcher;
    }

    /** Starts reading through {@code zk}; returns the watcher-removing Curator view the reads use. */
    WatcherRemoveCuratorFramework attach(Zk zk) {
        WatcherRemoveCuratorFramework curator = zk.curator().newWatcherRemoveCuratorFramework();
        Registration newSessions = zk.client().onNewSession(this::onNewSession, thread);
        attached = new Attached(zk, curator, newSessions);
        runOnThread(() -> watchSession(zk.sessions().current()));
        runOnThread(() -> resync("started"));
        return curator;
    }

    boolean isAttached() {
        return attached != null;
    }

    // ---- events ----

    private void onWatch(WatchedEvent event) {
        if (closed.get() || event.getType() == Watcher.Event.EventType.None || event.getPath() == null) {
            return;
        }
        if (dirCheck != null && event.getPath().equals(dirCheck.dir().value())
                && event.getType() != Watcher.Event.EventType.NodeDataChanged) {
            runOnThread(this::checkDir);
            return;
        }
        NodeTrack track = state.track(event.getPath());
        if (track == null) {
            return;
        }
        if (event.getType() == Watcher.Event.EventType.NodeDataChanged && !track.needsSync) {
            fastRead(track);
        } else {
            enqueue(track, false);
        }
    }

    private void fastRead(NodeTrack track) {
        Attached a = attached;
        if (a == null) {
            enqueue(track, false);
            return;
        }
        try {
            a.curator().getData().usingWatcher(watcher).inBackground((client, event) -> {
                KeeperException.Code code = KeeperException.Code.get(event.getResultCode());
                if (code == KeeperException.Code.OK && !closed.get()) {
                    apply(() -> state.onPresent(track, event.getData(), event.getStat()));
                } else if (!closed.get()) {
                    enqueue(track, code != KeeperException.Code.NONODE); // gone: the slow path sorts out absence
                }
            }).forPath(track.path.value());
        } catch (Exception e) {
            enqueue(track, true);
        }
    }

    private void watchSession(CoordSession session) {
        closeSessionRegistration();
        if (session == null || closed.get()) {
            return;
        }
        // Direct: marking stale must not wait behind a read blocked on the dead connection.
        sessionRegistration = session.addListener(new SessionListener() {
            @Override
            public void onSuspended(CoordSession s) {
                suspensions.incrementAndGet();
                owner.onSuspended();
            }

            @Override
            public void onReconnected(CoordSession s) {
                runOnThread(() -> resync("reconnected on session " + s.idHex()));
            }
        }, Runnable::run);
    }

    private void onNewSession(CoordSession session) {
        watchSession(session);
        owner.onNewSession();
        resync("new session " + session.idHex());
    }

    /**
     * After a reconnect nothing is assumed: every node is synced and read again (and its watch set
     * again). The reader is current again once all those reads succeeded with no suspension since.
     */
    private void resync(String why) {
        LOG.debug("{}: {}, reading every node again", name, why);
        resyncAfter = suspensions.get();
        resyncPending = true;
        synchronized (state) {
            state.forgetReads();
        }
        state.tracks().forEach(t -> enqueue(t, true));
        if (dirCheck != null) {
            runOnThread(this::checkDir);
        }
    }

    /**
     * On the config thread: lists the app directory (watching it, or its creation) so that a node
     * no field reads is reported. A failed listing waits for the next resync: it decides nothing.
     */
    private void checkDir() {
        Attached a = attached;
        if (a == null || closed.get()) {
            return;
        }
        CoordPath dir = dirCheck.dir();
        try {
            List<String> children = a.zk().call(dir, () -> {
                try {
                    return a.curator().getChildren().usingWatcher(watcher).forPath(dir.value());
                } catch (KeeperException.NoNodeException e) {
                    a.curator().checkExists().usingWatcher(watcher).forPath(dir.value());
                    return List.<String>of();
                }
            });
            dirCheck.check(children);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (CoordException e) {
            LOG.debug("{}: listing {} failed ({}); the next resync lists it again", name, dir, e.getMessage());
        }
    }

    private void enqueue(NodeTrack track, boolean sync) {
        if (sync) {
            track.needsSync = true;
        }
        if (track.queued.compareAndSet(false, true)) {
            queue.add(track);
        }
        if (drainScheduled.compareAndSet(false, true)) {
            runOnThread(this::drain);
        }
    }

    private void runOnThread(Runnable task) {
        try {
            thread.execute(task);
        } catch (RejectedExecutionException e) {
            // closed
        }
    }

    // ---- the slow path, on the config thread ----

    private void drain() {
        drainScheduled.set(false);
        NodeTrack track;
        while (!closed.get() && (track = queue.poll()) != null) {
            track.queued.set(false);
            boolean sync = track.needsSync;
            track.needsSync = false;
            read(track, sync);
        }
        if (closed.get() || !queue.isEmpty() || !resyncPending) {
            return;
        }
        boolean allRead;
        synchronized (state) {
            allRead = state.allRead();
        }
        if (allRead && suspensions.get() == resyncAfter) {
            resyncPending = false;
            owner.onCurrent();
        }
    }

    private void read(NodeTrack track, boolean sync) {
        Attached a = attached;
        if (a == null) {
            return;
        }
        String path = track.path.value();
        try {
            if (sync) {
                String full = ZKPaths.fixForNamespace(a.curator().getNamespace(), path);
                a.zk().call(track.path, () -> {
                    a.zk().curator().getZookeeperClient().getZooKeeper().sync(full);
                    return null;
                });
            }
            Stat stat = new Stat();
            byte[] data = a.zk().call(track.path, () -> {
                try {
                    return a.curator().getData().storingStatIn(stat).usingWatcher(watcher).forPath(path);
                } catch (KeeperException.NoNodeException e) {
                    return null;
                }
            });
            if (data != null) {
                apply(() -> state.onPresent(track, data, stat));
                return;
            }
            Stat exists = a.zk().call(track.path, () -> a.curator().checkExists().usingWatcher(watcher).forPath(path));
            if (exists != null) {
                enqueue(track, false); // created between the two reads
                return;
            }
            CoordPath parent = track.path.parent();
            Stat parentStat = a.zk().call(parent, () -> a.curator().checkExists().forPath(parent.value()));
            long pzxid = parentStat == null ? VersionRule.PARENT_MISSING : parentStat.getPzxid();
            apply(() -> state.onAbsent(track, pzxid));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (CoordException e) {
            LOG.debug("{}: reading {} failed ({}); trying again", name, path, e.getMessage());
            owner.onReadFailure(e);
            track.needsSync = true;
            try {
                thread.schedule(() -> enqueue(track, true), RETRY_MS, TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException closing) {
                // closed
            }
        } catch (RuntimeException e) {
            LOG.warn("{}: reading {} failed", name, path, e);
            owner.onReadFailure(new CoordException("reading " + path + " failed: " + e, e));
        }
    }

    private void apply(Supplier<ConfigState.Outcome<T>> read) {
        synchronized (state) {
            owner.onOutcome(read.get());
        }
        owner.dispatch();
    }

    // ---- closing ----

    /** Stops reacting to events and session changes (the owner then stops the thread). */
    void stop() {
        closed.set(true);
        Attached a = attached;
        if (a != null) {
            a.newSessions().close();
        }
        closeSessionRegistration();
    }

    /** After the config thread stopped: removes the watches (if connected) and any registration made meanwhile. */
    void removeWatches(boolean connected) {
        closeSessionRegistration();
        Attached a = attached;
        if (a != null && connected) {
            a.curator().removeWatchers();
        }
    }

    private void closeSessionRegistration() {
        Registration r = sessionRegistration;
        if (r != null) {
            r.close();
        }
    }
}
