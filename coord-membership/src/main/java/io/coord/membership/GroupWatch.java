package io.coord.membership;

import io.coord.ConnectionLostException;
import io.coord.CoordPath;
import io.coord.SessionState;
import io.coord.internal.Zk;
import io.coord.internal.ZkSession;
import io.coord.internal.ZxidWatch;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a group's view current: one persistent recursive watch on the group node, and reads on
 * the group's worker thread after every event.
 *
 * <p>Every installed view is a snapshot of the group at one moment, whenever the group lets it:
 * <ul>
 *   <li><b>full read</b> (first read, after a reconnect or a new session, or when in doubt):
 *       list the members, read what is new or marked changed, then one {@linkplain #barrier()
 *       barrier} round trip. Its reply comes on ZooKeeper's event thread after every event that
 *       arrived before it, so if no event came meanwhile and the group node's pzxid is still the
 *       one listed, nothing changed during the read. Otherwise read again (up to
 *       {@value #SNAPSHOT_ATTEMPTS} times) before accepting a read that mixes two moments.
 *   <li><b>incremental</b> (the usual case, from a snapshot, connected throughout): the watch
 *       delivers every change in zxid order, each event carrying its zxid (the watch is a
 *       {@link ZxidWatch}: events passed on by Curator 5.9.0 say -1, and before that every change
 *       fell back to a full read, 2 requests and a listing of every member per observer). Departures
 *       need no read: a deletion at zxid Z applied to a snapshot that has seen every earlier change
 *       is the group at Z, so a leave costs an observer no request. Arrivals and updates read the
 *       changed member only, in the background: the read's reply is itself the barrier (one request).
 * </ul>
 * A disconnect breaks the chain (changes made meanwhile send no event): it is seen on the same
 * thread as, and before, any later event, and forces a full read.
 */
final class GroupWatch<M> {
    private static final Logger LOG = LoggerFactory.getLogger(GroupWatch.class);
    static final int SNAPSHOT_ATTEMPTS = 8;
    private static final long RETRY_MILLIS = 500;

    /** One watch event, in arrival (zxid) order. {@code name} is null for the group node itself. */
    private record Mark(Watcher.Event.EventType type, String name, long zxid) {
    }

    private final ZkGroup<M> group;
    private final Zk zk;
    private final CoordPath path;
    private final GroupReader<M> reader;
    private final ZxidWatch watch;
    private final ConcurrentLinkedQueue<Mark> marks = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean full = new AtomicBoolean(true);
    private final AtomicBoolean needWatch = new AtomicBoolean(true);
    private final AtomicBoolean needSync = new AtomicBoolean();
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private final AtomicLong disconnects = new AtomicLong();
    private volatile long lastEventZxid;
    // worker only:
    private boolean snapshot;
    private long pzxid = -1;

    GroupWatch(ZkGroup<M> group, Zk zk, CoordPath path, GroupReader<M> reader) {
        this.group = group;
        this.zk = zk;
        this.path = path;
        this.reader = reader;
        this.watch = new ZxidWatch(zk, path, AddWatchMode.PERSISTENT_RECURSIVE, this::onEvent);
    }

    // ---- in: events only mark and schedule ----

    private void onEvent(WatchedEvent event) {
        if (event.getType() == Watcher.Event.EventType.None) {
            switch (event.getState()) {
                case Disconnected, Expired -> {
                    disconnects.incrementAndGet();
                    full.set(true);
                }
                case SyncConnected -> schedule();
                default -> { }
            }
            return;
        }
        String p = event.getPath();
        if (p == null) {
            return;
        }
        lastEventZxid = Math.max(lastEventZxid, event.getZxid());
        String prefix = path.value() + "/";
        if (p.equals(path.value())) {
            marks.add(new Mark(event.getType(), null, event.getZxid()));
        } else if (p.startsWith(prefix) && p.indexOf('/', prefix.length()) < 0) {
            marks.add(new Mark(event.getType(), p.substring(prefix.length()), event.getZxid()));
        } else {
            return; // deeper than a member: not ours to watch
        }
        schedule();
    }

    /** The same session is back: what changed meanwhile sent no event. */
    void reconnected() {
        full.set(true);
        refreshNow();
    }

    /** A new session: the watch is gone, and the server may be behind what we saw. */
    void newSession() {
        needWatch.set(true);
        needSync.set(true);
        full.set(true);
        refreshNow();
    }

    void schedule() {
        if (!group.isClosed() && scheduled.compareAndSet(false, true)) {
            group.execute(this::refreshTask);
        }
    }

    private void refreshNow() {
        if (scheduled.compareAndSet(false, true)) {
            refreshTask();
        }
    }

    /** Removes the watch. */
    void close() {
        watch.close();
    }

    // ---- the worker ----

    private void refreshTask() {
        scheduled.set(false);
        if (group.isClosed()) {
            return;
        }
        ZkSession session = zk.sessions().current();
        if (session == null || session.state() != SessionState.CONNECTED) {
            return; // reading now would block in Curator's retries; the reconnect schedules a rebuild
        }
        try {
            refresh();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // the worker is shutting down
        } catch (RuntimeException e) {
            LOG.debug("group {}: refresh failed, retrying", group.name(), e);
            full.set(true);
            group.executeLater(this::schedule, RETRY_MILLIS);
        }
    }

    /** Brings the view up to date; throws (and leaves a full read pending) when the server cannot be read. */
    void refresh() throws InterruptedException {
        if (needWatch.get()) {
            watch.add();
            needWatch.set(false);
        }
        if (needSync.get()) {
            sync();
            needSync.set(false);
        }
        if (!full.get() && snapshot && incremental()) {
            return;
        }
        fullRead();
    }

    /** From a snapshot, applies the marked changes; false if they need a full read instead. */
    private boolean incremental() throws InterruptedException {
        long epoch = disconnects.get();
        List<Mark> batch = new ArrayList<>();
        for (Iterator<Mark> it = marks.iterator(); it.hasNext(); ) {
            batch.add(it.next());
        }
        if (batch.isEmpty()) {
            return true;
        }
        GroupView<M> view = group.view();
        TreeMap<String, MemberInfo<M>> members = new TreeMap<>(view.members());
        Set<String> toRead = new HashSet<>();
        Set<String> touched = new HashSet<>();
        long newPzxid = pzxid;
        long version = view.version();
        for (Mark m : batch) {
            if (m.name() == null || m.zxid() <= 0 || m.zxid() <= version) {
                return false; // the group node itself changed, or no zxid to order by
            }
            touched.add(m.name());
            switch (m.type()) {
                case NodeDeleted -> {
                    members.remove(m.name());
                    toRead.remove(m.name());
                    newPzxid = m.zxid();
                }
                case NodeCreated -> {
                    toRead.add(m.name());
                    newPzxid = m.zxid();
                }
                case NodeDataChanged -> toRead.add(m.name());
                default -> {
                    return false;
                }
            }
            version = Math.max(version, m.zxid());
        }
        for (int i = 0; i < batch.size(); i++) {
            marks.poll(); // the worker is the only consumer: these are the marks just looked at
        }
        if (!toRead.isEmpty()) {
            // Sent in the background: each reply comes on ZooKeeper's event thread after every event
            // that arrived before it, so once the last one is in, marks holds every change the server
            // had applied when it read. None: the reads and the deltas are the group at one moment,
            // with no barrier round trip (a join costs an observer one request, as Curator's cache).
            Map<String, CompletableFuture<Node>> reads = new TreeMap<>();
            for (String name : toRead) {
                reads.put(name, readMember(name));
            }
            for (Map.Entry<String, CompletableFuture<Node>> r : reads.entrySet()) {
                CoordPath node = path.child(r.getKey());
                Node read;
                try {
                    read = awaitReply(r.getValue(), "the read of " + node);
                } catch (RuntimeException e) {
                    full.set(true);
                    throw e;
                }
                if (read == null) {
                    full.set(true);
                    return false; // gone again: its deletion is on the way; read it all
                }
                members.put(r.getKey(), reader.decode(r.getKey(), node, read.stat(), read.data()));
                version = Math.max(version, read.stat().getMzxid());
            }
            if (!marks.isEmpty() || disconnects.get() != epoch) {
                full.set(true);
                return false; // something moved during the reads
            }
        }
        if (disconnects.get() != epoch) {
            full.set(true);
            return false;
        }
        pzxid = newPzxid;
        group.publish(new GroupView<>(group.name(), version, members), touched);
        return true;
    }

    private void fullRead() throws InterruptedException {
        Map<String, MemberInfo<M>> base = group.view().members();
        for (int attempt = 1; ; attempt++) {
            long epoch = disconnects.get();
            boolean fullNow = full.getAndSet(false);
            Set<String> names = drainNames();
            GroupReader.Read<M> read;
            long pzxidNow;
            try {
                // Members read by an earlier attempt are fresher than the installed view: start from them.
                read = reader.read(base, names, fullNow);
                pzxidNow = barrier();
            } catch (RuntimeException | InterruptedException e) {
                full.set(true);
                throw e;
            }
            if (disconnects.get() != epoch) {
                full.set(true); // the read overlapped a disconnect: the reconnect schedules a rebuild
                return;
            }
            if (read.complete() && marks.isEmpty() && pzxidNow == read.pzxid()) {
                install(read, true);
                return;
            }
            if (attempt >= SNAPSHOT_ATTEMPTS) {
                // A mixed read may stand for the listing's pzxid only if every member carried over
                // from before is still current: none of them has a mark pending.
                boolean carriedCurrent = marks.stream()
                        .noneMatch(m -> m.name() != null && read.members().containsKey(m.name()) && !read.fresh().contains(m.name()));
                if (carriedCurrent) {
                    install(read, false);
                } else {
                    full.set(true);
                    group.executeLater(this::schedule, 20);
                }
                return;
            }
            base = read.members();
        }
    }

    private Set<String> drainNames() {
        Set<String> names = new HashSet<>();
        for (Mark m; (m = marks.poll()) != null; ) {
            if (m.name() != null) {
                names.add(m.name());
            }
        }
        return names;
    }

    /**
     * Installs a full read. A snapshot's version is the highest zxid it reflects, so snapshots
     * differ in content exactly when they differ in version. A mixed read claims only its
     * listing's pzxid: every later snapshot that differs from it has a higher version (any change
     * after that pzxid leaves a higher zxid in the group node or a live member), so versions still
     * move with every change.
     */
    private void install(GroupReader.Read<M> read, boolean isSnapshot) {
        GroupView<M> old = group.view();
        if (isSnapshot && read.exists() && read.version() < old.version()) {
            LOG.debug("group {}: read version 0x{} is older than 0x{}; syncing", group.name(), Long.toHexString(read.version()),
                    Long.toHexString(old.version()));
            needSync.set(true);
            full.set(true);
            group.executeLater(this::schedule, RETRY_MILLIS / 5);
            return;
        }
        long version = !read.exists() ? Math.max(old.version(), lastEventZxid) : isSnapshot ? read.version() : read.pzxid();
        GroupView<M> next = new GroupView<>(group.name(), Math.max(old.version(), version), read.members());
        if (!isSnapshot && next.version() <= old.version() && !next.members().equals(old.members())) {
            LOG.debug("group {}: mixed read v0x{} not installed over v0x{}", group.name(), Long.toHexString(next.version()),
                    Long.toHexString(old.version()));
            full.set(true);
            group.executeLater(this::schedule, 20);
            return;
        }
        if (!isSnapshot) {
            LOG.debug("group {}: the group kept changing during {} reads; installing a mixed read v0x{}", group.name(),
                    SNAPSHOT_ATTEMPTS, Long.toHexString(next.version()));
        }
        snapshot = isSnapshot;
        pzxid = read.pzxid();
        group.publish(next);
    }

    /**
     * One round trip whose reply Curator hands over on ZooKeeper's event thread, after every
     * watch event that arrived before it: when it returns, {@link #marks} holds every change the
     * server had applied when it answered. Returns the group node's pzxid then, -1 if it is absent.
     */
    private long barrier() throws InterruptedException {
        CompletableFuture<Long> reply = new CompletableFuture<>();
        zk.call(path, () -> zk.curator().checkExists().inBackground((c, e) -> {
            if (e.getResultCode() == 0 || e.getResultCode() == KeeperException.Code.NONODE.intValue()) {
                reply.complete(e.getStat() == null ? -1L : e.getStat().getPzxid());
            } else {
                reply.completeExceptionally(KeeperException.create(KeeperException.Code.get(e.getResultCode()), path.value()));
            }
        }).forPath(path.value()));
        return await(reply, "the barrier read of " + path);
    }

    /** Makes a server we may have just connected to catch up with the leader before we read. */
    private void sync() throws InterruptedException {
        CompletableFuture<Long> done = new CompletableFuture<>();
        zk.call(path, () -> zk.curator().sync().inBackground((c, e) -> done.complete(0L)).forPath(path.value()));
        await(done, "the sync of " + path);
    }

    /** A member node as read: decoded on the worker, not on ZooKeeper's event thread. */
    private record Node(Stat stat, byte[] data) {
    }

    /** Reads one member in the background; the reply (null if the node is gone) completes on ZooKeeper's event thread. */
    private CompletableFuture<Node> readMember(String name) throws InterruptedException {
        CoordPath node = path.child(name);
        CompletableFuture<Node> reply = new CompletableFuture<>();
        zk.call(node, () -> zk.curator().getData().inBackground((c, e) -> {
            if (e.getResultCode() == 0) {
                reply.complete(new Node(e.getStat(), e.getData()));
            } else if (e.getResultCode() == KeeperException.Code.NONODE.intValue()) {
                reply.complete(null);
            } else {
                reply.completeExceptionally(KeeperException.create(KeeperException.Code.get(e.getResultCode()), node.value()));
            }
        }).forPath(node.value()));
        return reply;
    }

    private long await(CompletableFuture<Long> reply, String what) throws InterruptedException {
        return awaitReply(reply, what);
    }

    private <T> T awaitReply(CompletableFuture<T> reply, String what) throws InterruptedException {
        long timeout = zk.client().settings().requestTimeout().toMillis();
        try {
            return reply.get(timeout, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw zk.translate(e.getCause(), path);
        } catch (TimeoutException e) {
            throw new ConnectionLostException(what + " got no reply within " + timeout + " ms", e);
        }
    }
}
