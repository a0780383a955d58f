package io.coord.queue;

import io.coord.CodecException;
import io.coord.CoordTimeoutException;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.WatcherRemoveCuratorFramework;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.framework.recipes.watch.PersistentWatcher;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a {@link TaskIndex} current from one persistent recursive watch on the queue's root
 * (Curator {@link PersistentWatcher}, re-registered after every reconnect) instead of a listing
 * per claim. Reads only what it needs:
 * <ul>
 *   <li>a task created: read it once (lane, sequence, notBefore, and its bytes);
 *   <li>a claim node created or deleted: nothing to read, its name says which task it holds;
 *   <li>a task changed while a claim holds it (the claim itself, or a failure being recorded): not
 *       read now; it is read when its last claim node goes away, if it still exists then;
 *   <li>a task deleted: forgotten;
 *   <li>after (re)registering the watch: one listing of {@code claims/} and {@code tasks/}, and a
 *       read of every task, since events during the disconnection were missed.
 * </ul>
 * Watch events and the replies to the reads started here arrive in the order the server sent
 * them (all on ZooKeeper's event thread), so a reply never overtakes the deletion that follows it.
 */
final class QueueWatch implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(QueueWatch.class);

    private final QueueLayout layout;
    private final TaskCodec<?> codec;
    private final TaskIndex index;
    private final WatcherRemoveCuratorFramework curator;
    private final PersistentWatcher watcher;
    private final CountDownLatch firstSync = new CountDownLatch(1);
    private final AtomicInteger syncReads = new AtomicInteger();
    private final Set<String> corrupt = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    QueueWatch(CuratorFramework curator, QueueLayout layout, TaskCodec<?> codec, TaskIndex index) {
        this.layout = layout;
        this.codec = codec;
        this.index = index;
        this.curator = curator.newWatcherRemoveCuratorFramework();
        this.watcher = new PersistentWatcher(this.curator, layout.root.value(), true);
        watcher.getListenable().addListener(this::onEvent);
        watcher.getResetListenable().addListener(this::resync);
    }

    /** Starts watching and waits (at most {@code timeout}) until the first full read is done. */
    void start(Duration timeout) throws InterruptedException {
        watcher.start();
        if (!firstSync.await(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
            throw new CoordTimeoutException("the watch of queue " + layout.root + " did not finish its first read within " + timeout);
        }
    }

    private void onEvent(WatchedEvent event) {
        String path = event.getPath();
        if (closed || path == null) {
            return;
        }
        ZKPaths.PathAndNode pn = ZKPaths.getPathAndNode(path);
        String parent = pn.getPath();
        String name = pn.getNode();
        if (parent.equals(layout.claims.value())) {
            switch (event.getType()) {
                case NodeCreated -> index.claimCreated(name);
                case NodeDeleted -> {
                    if (index.claimDeleted(name)) {
                        read(QueueLayout.taskOfClaim(name), false);
                    }
                }
                default -> {
                }
            }
        } else if (parent.equals(layout.tasks.value()) && QueueLayout.isTaskName(name)) {
            switch (event.getType()) {
                case NodeCreated -> read(name, false);
                case NodeDataChanged -> {
                    if (index.hasLiveClaim(name)) {
                        index.taskChangedWhileClaimed(name);
                    } else {
                        read(name, false);
                    }
                }
                case NodeDeleted -> {
                    corrupt.remove(name);
                    index.taskGone(name);
                }
                default -> {
                }
            }
        }
    }

    /** After the watch is (re)registered: list claims, then tasks, then read every task. */
    private void resync() {
        if (closed) {
            return;
        }
        background(() -> curator.getChildren().inBackground((c, e) -> {
            if (!ok(e, "list claims")) {
                return;
            }
            index.claimsAre(new HashSet<>(e.getChildren()));
            listTasks();
        }).forPath(layout.claims.value()));
    }

    private void listTasks() {
        background(() -> curator.getChildren().inBackground((c, e) -> {
            if (!ok(e, "list tasks")) {
                return;
            }
            List<String> names = e.getChildren().stream().filter(QueueLayout::isTaskName).toList();
            index.tasksAre(new HashSet<>(names));
            if (names.isEmpty()) {
                firstSync.countDown();
                return;
            }
            syncReads.set(names.size());
            names.forEach(n -> read(n, true));
        }).forPath(layout.tasks.value()));
    }

    private void read(String name, boolean partOfSync) {
        background(() -> curator.getData().inBackground((c, e) -> {
            try {
                if (e.getResultCode() == KeeperException.Code.NONODE.intValue()) {
                    index.taskGone(name);
                } else if (ok(e, "read " + name)) {
                    decode(name, e);
                }
            } finally {
                if (partOfSync && syncReads.decrementAndGet() == 0) {
                    firstSync.countDown();
                }
            }
        }).forPath(layout.task(name).value()));
    }

    private void decode(String name, CuratorEvent e) {
        try {
            index.taskRead(name, codec.decode(layout.task(name), e.getData()), e.getStat().getVersion(), e.getData());
        } catch (CodecException bad) {
            if (corrupt.add(name)) {
                LOG.warn("task {} cannot be read and is passed over: {}", layout.task(name), bad.getMessage());
            }
            index.taskGone(name);
        }
    }

    private boolean ok(CuratorEvent e, String what) {
        if (e.getResultCode() == KeeperException.Code.OK.intValue()) {
            return true;
        }
        // Connection trouble: the watch is re-registered on reconnect, and that reads everything again.
        LOG.debug("queue {}: could not {} ({})", layout.root, what, KeeperException.Code.get(e.getResultCode()));
        return false;
    }

    @FunctionalInterface
    private interface Call {
        void run() throws Exception;
    }

    private void background(Call call) {
        if (closed) {
            return;
        }
        try {
            call.run();
        } catch (Exception e) {
            LOG.debug("queue {}: could not start a read", layout.root, e);
        }
    }

    @Override
    public void close() {
        closed = true;
        watcher.close();
        curator.removeWatchers();
        index.wakeAll();
    }
}
