package io.coord.queue;

import io.coord.CodecException;
import io.coord.CoordTimeoutException;
import io.coord.internal.ForeignNodeWarnings;
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
import org.apache.zookeeper.Watcher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a {@link TaskIndex} current from persistent recursive watches on {@code tasks/} and
 * {@code claims/} (Curator {@link PersistentWatcher}, re-registered after every reconnect) instead
 * of a listing per claim. Reads only what it needs:
 * <ul>
 *   <li>a task created: read it once (lane, sequence, notBefore, and its bytes);
 *   <li>a claim node created or deleted: nothing to read, its name says which task it holds;
 *       written (extended): noted, so a claim timeout is not looked at before it could be due;
 *   <li>a task changed while a claim holds it (the claim itself, or a failure being recorded): not
 *       read now; it is read when its last claim node goes away, if it still exists then;
 *   <li>a task deleted: forgotten;
 *   <li>a task whose bytes are not a task record: kept aside in the index for a consumer to
 *       dead-letter ({@link PoisonTasks}), never offered as a claim;
 *   <li>after (re)registering the watch: one listing of {@code claims/} and {@code tasks/}, and a
 *       read of every task, oldest first ({@link #oldestFirst}), since events during the
 *       disconnection were missed. From the disconnection until that read is done, claims wait
 *       ({@link TaskIndex#viewPartial}, at most {@link TaskIndex#MAX_PARTIAL_WAIT_NANOS} after the
 *       reconnect): events flow again before it, and a task enqueued after the reconnect must not
 *       be taken ahead of older ones not read yet.
 * </ul>
 * Watch events and the replies to the reads started here arrive in the order the server sent
 * them (all on ZooKeeper's event thread), so a reply never overtakes the deletion that follows it.
 */
final class QueueWatch implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(QueueWatch.class);

    private final QueueLayout layout;
    private final TaskCodec<?> codec;
    private final TaskIndex index;
    private final ForeignNodeWarnings foreign;
    private final WatcherRemoveCuratorFramework curator;
    private final PersistentWatcher claimsWatcher;
    private final PersistentWatcher tasksWatcher;
    private final CountDownLatch firstSync = new CountDownLatch(1);
    private final AtomicInteger syncReads = new AtomicInteger();
    private final Set<String> corrupt = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    QueueWatch(CuratorFramework curator, QueueLayout layout, TaskCodec<?> codec, TaskIndex index, ForeignNodeWarnings foreign) {
        this.layout = layout;
        this.foreign = foreign;
        this.codec = codec;
        this.index = index;
        this.curator = curator.newWatcherRemoveCuratorFramework();
        // Two watches, not one on the queue's root: key and dead-letter nodes would only add events.
        // Both deliver on the same connection, so events keep the order the server sent them in.
        this.claimsWatcher = new PersistentWatcher(this.curator, layout.claims.value(), true);
        this.tasksWatcher = new PersistentWatcher(this.curator, layout.tasks.value(), true);
        claimsWatcher.getListenable().addListener(this::onEvent);
        tasksWatcher.getListenable().addListener(this::onEvent);
        // After the tasks watch is (re)registered, read everything again; the claims watch is
        // registered first, so its events are flowing by then.
        tasksWatcher.getResetListenable().addListener(this::resync);
    }

    /** Starts watching and waits (at most {@code timeout}) until the first full read is done. */
    void start(Duration timeout) throws InterruptedException {
        claimsWatcher.start();
        tasksWatcher.start();
        if (!firstSync.await(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
            throw new CoordTimeoutException("the watch of queue " + layout.root + " did not finish its first read within " + timeout);
        }
    }

    private void onEvent(WatchedEvent event) {
        if (closed) {
            return;
        }
        if (event.getType() == Watcher.Event.EventType.None) {
            connectionChanged(event.getState());
            return;
        }
        String path = event.getPath();
        if (path == null) {
            return;
        }
        ZKPaths.PathAndNode pn = ZKPaths.getPathAndNode(path);
        String parent = pn.getPath();
        String name = pn.getNode();
        if (event.getType() == Watcher.Event.EventType.NodeCreated && !understood(parent, name)) {
            return; // logged once by understood(); a node that is not the queue's decides nothing
        }
        if (parent.equals(layout.claims.value())) {
            switch (event.getType()) {
                case NodeCreated -> index.claimCreated(name);
                case NodeDataChanged -> index.claimSeen(name, System.nanoTime()); // extended: not worth a look yet
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

    /**
     * ZooKeeper tells every watch of the connection's state on its event thread, in order with the
     * node events: from a disconnection on, the view may miss tasks until the resync after the
     * reconnect has read them all ({@link TaskIndex#viewPartial}).
     */
    private void connectionChanged(Watcher.Event.KeeperState state) {
        switch (state) {
            case Disconnected, Expired, AuthFailed -> index.viewPartial(System.nanoTime());
            case SyncConnected, ConnectedReadOnly -> index.reconnected(System.nanoTime());
            default -> {
            }
        }
    }

    static final String TASK_NAMES = QueueLayout.TASK_PREFIX + "{seq}";
    static final String CLAIM_NAMES = QueueLayout.TASK_PREFIX + "{seq}" + QueueLayout.CLAIM_SEPARATOR + "{unique}";

    /** Whether a created child of claims/ or tasks/ is the queue's; a foreign one is logged once. */
    private boolean understood(String parent, String name) {
        if (parent.equals(layout.claims.value())) {
            return foreign.check(layout.claims, List.of(name), QueueLayout::isClaimName, CLAIM_NAMES).isEmpty();
        }
        if (parent.equals(layout.tasks.value())) {
            return foreign.check(layout.tasks, List.of(name), QueueLayout::isTaskName, TASK_NAMES).isEmpty();
        }
        return true;
    }

    /** After the watch is (re)registered: list claims, then tasks, then read every task. */
    private void resync() {
        if (closed) {
            return;
        }
        index.reconnected(System.nanoTime()); // on a new session the watch was not there to see SyncConnected
        background(() -> curator.getChildren().inBackground((c, e) -> {
            if (!ok(e, "list claims")) {
                index.viewWhole(); // a reconnect resyncs again; anything else must not stop claims
                return;
            }
            foreign.check(layout.claims, e.getChildren(), QueueLayout::isClaimName, CLAIM_NAMES);
            index.claimsAre(new HashSet<>(e.getChildren()));
            listTasks();
        }).forPath(layout.claims.value()));
    }

    private void listTasks() {
        background(() -> curator.getChildren().inBackground((c, e) -> {
            if (!ok(e, "list tasks")) {
                index.viewWhole();
                return;
            }
            foreign.check(layout.tasks, e.getChildren(), QueueLayout::isTaskName, TASK_NAMES);
            List<String> names = oldestFirst(e.getChildren());
            index.tasksAre(new HashSet<>(names));
            if (names.isEmpty()) {
                firstSync.countDown();
                index.viewWhole();
                return;
            }
            syncReads.set(names.size());
            names.forEach(n -> read(n, true));
        }).forPath(layout.tasks.value()));
    }

    /**
     * The task names of a listing, oldest (lowest sequence) first: the order to read them in. The
     * server lists children in its hash order, and the replies come back in the order the reads
     * went out, while a consumer waiting in {@code claim()} takes the first ready task it learns
     * of. Read in hash order, a consumer back from a disconnection took tasks enqueued meanwhile in
     * that order (the chaos queue scenario saw a first claim pass over 10 older waiting tasks:
     * sequences 120 and 123 first, the order a hash set of 110..123 lists them in); read oldest
     * first, what it knows at any moment is the oldest part of what it missed.
     */
    static List<String> oldestFirst(List<String> listed) {
        return listed.stream().filter(QueueLayout::isTaskName)
                .sorted(java.util.Comparator.comparingLong(io.coord.internal.SequentialNodes::sequence)).toList();
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
                    index.viewWhole();
                }
            }
        }).forPath(layout.task(name).value()));
    }

    private void decode(String name, CuratorEvent e) {
        try {
            index.taskRead(name, codec.decode(layout.task(name), e.getData()), e.getStat().getVersion(), e.getData(),
                    e.getStat().getCzxid());
        } catch (CodecException bad) {
            if (corrupt.add(name)) {
                LOG.warn("task {} cannot be decoded; a consumer moves it to the dead letters: {}", layout.task(name),
                        bad.getMessage());
            }
            // Not dead-lettered here: this is ZooKeeper's event thread. A consumer does it (PoisonTasks).
            index.taskPoisoned(new TaskIndex.Poison(name, e.getData(), e.getStat().getVersion(), bad.getMessage()));
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
        tasksWatcher.close();
        claimsWatcher.close();
        curator.removeWatchers();
        index.wakeAll();
    }
}
