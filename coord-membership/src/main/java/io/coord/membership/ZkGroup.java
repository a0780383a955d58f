package io.coord.membership;

import io.coord.ConfigurationException;
import io.coord.ConnectionLostException;
import io.coord.CoordClient;
import io.coord.CoordException;
import io.coord.CoordMetrics;
import io.coord.CoordPath;
import io.coord.CoordSession;
import io.coord.CoordTimeoutException;
import io.coord.Registration;
import io.coord.SessionListener;
import io.coord.SessionState;
import io.coord.internal.Listeners;
import io.coord.internal.Zk;
import io.coord.internal.ZkSession;
import io.coord.membership.ViewDiff.Change;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The group: one persistent recursive watch on the group node, one worker thread that re-reads
 * after every event and installs the new view, and the memberships joined through it.
 *
 * <p>Threading: watch events (Curator's event thread) and session events only set flags and
 * schedule a refresh; reads, view installs, diffs, flap counting and membership moves all run on
 * the worker, one at a time, so they need no locks. Listeners run on their own executors.
 */
final class ZkGroup<M> implements Group<M> {
    private static final Logger LOG = LoggerFactory.getLogger(ZkGroup.class);
    private static final AtomicInteger IDS = new AtomicInteger();
    private static final long RETRY_MILLIS = 500;
    /** Reads tried before a view that mixes two states of a changing group is accepted. */
    private static final int SNAPSHOT_ATTEMPTS = 8;

    private final Zk zk;
    private final String name;
    private final CoordPath path;
    private final GroupOptions<M> options;
    private final CoordMetrics metrics;
    private final ExecutorService worker;
    private final Watcher watcher = this::onWatchEvent;
    private final GroupReader<M> reader;
    private final Listeners<GroupListener<M>> listeners = new Listeners<>();
    private final FlapRule flapRule;
    private final Set<String> changed = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean full = new AtomicBoolean(true);
    private final AtomicBoolean needWatch = new AtomicBoolean(true);
    private final AtomicBoolean needSync = new AtomicBoolean();
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final java.util.concurrent.atomic.AtomicLong disconnects = new java.util.concurrent.atomic.AtomicLong();
    private final Object viewLock = new Object();
    private final Set<ZkMembership<M>> memberships = ConcurrentHashMap.newKeySet();
    private final AtomicInteger size = new AtomicInteger();
    private final AtomicReference<Registration> sessionRegistration = new AtomicReference<>();
    private volatile Registration newSessionRegistration;
    private volatile GroupView<M> current;
    private volatile Map<String, Flap> flaps = Map.of();
    private volatile Thread workerThread;
    /** Highest zxid of a watch event: the version of a group whose node was removed (no pzxid to read). */
    private volatile long lastEventZxid;
    private boolean initialized; // worker only: the first view is the baseline, not "joins"

    private ZkGroup(Zk zk, String name, GroupOptions<M> options) {
        this.zk = zk;
        this.name = name;
        this.path = ROOT.child(name);
        this.options = options;
        this.metrics = zk.client().metrics();
        this.flapRule = new FlapRule(options.flapWindow());
        this.current = GroupView.empty(name);
        this.reader = new GroupReader<>(zk, path, options.codec());
        int id = IDS.incrementAndGet();
        this.worker = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "coord-group-" + name + "-" + id);
            t.setDaemon(true);
            workerThread = t;
            return t;
        });
    }

    static <M> ZkGroup<M> open(CoordClient client, String name, GroupOptions<M> options) throws InterruptedException {
        CoordPath.validateName(name);
        java.util.Objects.requireNonNull(options, "options");
        Zk zk = Zk.of(client);
        if (options.maxMetadataBytes() > zk.maxValueBytes()) {
            throw new ConfigurationException("group " + name + ": the metadata limit of " + options.maxMetadataBytes()
                    + " bytes is over the client's maxValueBytes of " + zk.maxValueBytes());
        }
        ZkGroup<M> group = new ZkGroup<>(zk, name, options);
        boolean ok = false;
        try {
            group.start();
            ok = true;
            return group;
        } finally {
            if (!ok) {
                group.close();
            }
        }
    }

    private void start() throws InterruptedException {
        metrics.gauge("coord.membership.members", size::get, "group", name);
        newSessionRegistration = zk.client().onNewSession(this::onNewSession, worker);
        bind(zk.liveSession());
        var first = worker.submit(() -> {
            refresh();
            return null;
        });
        try {
            first.get();
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            throw cause instanceof CoordException ce ? ce : zk.translate(cause, path);
        } catch (InterruptedException e) {
            first.cancel(true);
            throw e;
        }
    }

    // ---- events in: they only mark and schedule ----

    private void onWatchEvent(WatchedEvent event) {
        if (event.getType() == Watcher.Event.EventType.None) {
            // Connection events come on the same thread as, and in order with, change events: a
            // disconnect is seen before anything that happens after it.
            switch (event.getState()) {
                case Disconnected, Expired -> {
                    // Changes made until we are back reach us through no event: rebuild, and
                    // do not install a read that overlapped the gap.
                    disconnects.incrementAndGet();
                    full.set(true);
                }
                case SyncConnected -> schedule();
                default -> { }
            }
            return;
        }
        if (event.getPath() == null) {
            return;
        }
        lastEventZxid = Math.max(lastEventZxid, event.getZxid());
        String p = event.getPath();
        String prefix = path.value() + "/";
        if (p.startsWith(prefix) && p.indexOf('/', prefix.length()) < 0) {
            changed.add(p.substring(prefix.length()));
        }
        schedule();
    }

    private void bind(CoordSession session) {
        Registration old = sessionRegistration.getAndSet(session.addListener(new SessionListener() {
            @Override
            public void onReconnected(CoordSession s) {
                // Events may have been missed while the connection was down: rebuild.
                full.set(true);
                refreshNow();
                memberships.forEach(ZkMembership::kick);
            }
        }, worker));
        if (old != null) {
            old.close();
        }
    }

    /** Runs on the worker. A new session: its watches are gone and it may talk to a lagging server. */
    private void onNewSession(CoordSession session) {
        if (closed.get()) {
            return;
        }
        bind(session);
        needWatch.set(true);
        needSync.set(true);
        full.set(true);
        refreshNow();
        memberships.forEach(ZkMembership::kick);
    }

    private void schedule() {
        if (!closed.get() && scheduled.compareAndSet(false, true)) {
            execute(this::refreshTask);
        }
    }

    /** On the worker: refresh in this turn (no extra hop), unless one is already queued. */
    private void refreshNow() {
        if (scheduled.compareAndSet(false, true)) {
            refreshTask();
        }
    }

    void execute(Runnable task) {
        try {
            worker.execute(task);
        } catch (RejectedExecutionException e) {
            if (!closed.get()) {
                throw e;
            }
        }
    }

    void executeLater(Runnable task, long millis) {
        if (!closed.get()) {
            CompletableFuture.delayedExecutor(millis, TimeUnit.MILLISECONDS).execute(() -> execute(task));
        }
    }

    // ---- the worker: read, install, tell ----

    private void refreshTask() {
        scheduled.set(false);
        if (closed.get()) {
            return;
        }
        ZkSession session = zk.sessions().current();
        if (session == null || session.state() != SessionState.CONNECTED) {
            // Reading now would block this thread in Curator's retries; the reconnect (or the new
            // session) schedules a full rebuild anyway.
            return;
        }
        try {
            refresh();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // the worker is shutting down
        } catch (RuntimeException e) {
            // Connection trouble: a reconnect (or a new session) schedules a full rebuild; the
            // delayed retry covers failures that no session event will follow.
            LOG.debug("group {}: refresh failed, retrying", name, e);
            executeLater(this::schedule, RETRY_MILLIS);
        }
    }

    private void refresh() throws InterruptedException {
        if (needWatch.getAndSet(false)) {
            try {
                zk.call(path, () -> zk.curator().watchers().add().withMode(AddWatchMode.PERSISTENT_RECURSIVE)
                        .usingWatcher(watcher).forPath(path.value()));
            } catch (RuntimeException e) {
                needWatch.set(true);
                throw e;
            }
        }
        if (needSync.get()) {
            sync();
            needSync.set(false);
        }
        Map<String, MemberInfo<M>> base = current.members();
        for (int attempt = 1; ; attempt++) {
            long epoch = disconnects.get();
            boolean fullNow = full.getAndSet(false);
            Set<String> names = Set.copyOf(changed);
            changed.removeAll(names);
            GroupReader.Read<M> read;
            long pzxidNow;
            try {
                // Members read by an earlier attempt are fresher than the installed view: start from them.
                read = reader.read(base, names, fullNow);
                pzxidNow = barrier();
            } catch (RuntimeException | InterruptedException e) {
                // What earlier attempts read is lost with this failure, and their marks with it.
                full.set(fullNow || attempt > 1 || full.get());
                changed.addAll(names);
                throw e;
            }
            // The read is a snapshot if nothing changed while it ran: the group node's pzxid is
            // the one listed (no member came or went) and no change event arrived meanwhile (the
            // barrier's reply comes after every earlier event). Otherwise read again: the marks
            // left by those events say what to re-read.
            if (disconnects.get() != epoch) {
                full.set(true); // the read overlapped a disconnect: the reconnect schedules a rebuild
                return;
            }
            boolean snapshot = read.complete() && changed.isEmpty() && pzxidNow == read.pzxid();
            if (snapshot) {
                install(read, true);
                return;
            }
            if (attempt >= SNAPSHOT_ATTEMPTS) {
                // A mixed read may stand for the listing's pzxid only if every member carried over
                // from before is still current: none of them has a change mark pending.
                boolean carriedCurrent = changed.stream().noneMatch(n -> read.members().containsKey(n) && !read.fresh().contains(n));
                if (carriedCurrent) {
                    install(read, false);
                } else {
                    full.set(true);
                    executeLater(this::schedule, 20);
                }
                return;
            }
            base = read.members();
        }
    }

    /**
     * One round trip whose reply Curator hands over on ZooKeeper's event thread, after every
     * watch event that arrived before it: when it returns, {@link #changed} holds the marks of
     * every change the server had applied when it answered. Returns the group node's pzxid then,
     * or -1 if it does not exist.
     */
    private long barrier() throws InterruptedException {
        CompletableFuture<Long> reply = new CompletableFuture<>();
        zk.call(path, () -> zk.curator().checkExists().inBackground((c, e) -> {
            if (e.getResultCode() == 0 || e.getResultCode() == org.apache.zookeeper.KeeperException.Code.NONODE.intValue()) {
                reply.complete(e.getStat() == null ? -1L : e.getStat().getPzxid());
            } else {
                reply.completeExceptionally(org.apache.zookeeper.KeeperException.create(
                        org.apache.zookeeper.KeeperException.Code.get(e.getResultCode()), path.value()));
            }
        }).forPath(path.value()));
        long timeout = zk.client().settings().requestTimeout().toMillis();
        try {
            return reply.get(timeout, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw zk.translate(e.getCause(), path);
        } catch (TimeoutException e) {
            throw new ConnectionLostException("no reply for " + path + " within " + timeout + " ms", e);
        }
    }

    /** Makes a server we may have just connected to catch up with the leader before we read. */
    private void sync() throws InterruptedException {
        CompletableFuture<Integer> done = new CompletableFuture<>();
        zk.call(path, () -> zk.curator().sync().inBackground((c, e) -> done.complete(e.getResultCode())).forPath(path.value()));
        long timeout = zk.client().settings().requestTimeout().toMillis();
        try {
            done.get(timeout, TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new ConnectionLostException("sync of " + path + " did not complete within " + timeout + " ms", e);
        }
    }

    /**
     * Installs a read. Versions: a snapshot's is the highest zxid it reflects, so two snapshots
     * differ in content exactly when they differ in version. A read that mixes two states (the
     * group kept changing through every attempt) only claims the pzxid of its listing: every later
     * snapshot that differs from it has a higher version (any change after that pzxid leaves a
     * higher zxid in the group node or a live member), so versions still move with every change.
     */
    private void install(GroupReader.Read<M> read, boolean snapshot) {
        GroupView<M> old = current;
        if (snapshot && read.exists() && read.version() < old.version()) {
            // Older than what we already showed (a lagging server): never go back. Sync and read again.
            LOG.debug("group {}: read version 0x{} is older than 0x{}; syncing", name, Long.toHexString(read.version()),
                    Long.toHexString(old.version()));
            needSync.set(true);
            full.set(true);
            executeLater(this::schedule, RETRY_MILLIS / 5);
            return;
        }
        long version = !read.exists() ? Math.max(old.version(), lastEventZxid) : snapshot ? read.version() : read.pzxid();
        GroupView<M> next = new GroupView<>(name, Math.max(old.version(), version), read.members());
        List<Change<M>> changes = ViewDiff.between(old.members(), next.members());
        if (changes.isEmpty() && next.version() == old.version()) {
            initialized = true;
            return;
        }
        if (!snapshot && next.version() <= old.version()) {
            // Installing it would let one version name two contents: drop it, and since what it
            // learned is dropped with it, read everything next time.
            LOG.debug("group {}: mixed read v0x{} not installed over v0x{}", name, Long.toHexString(next.version()),
                    Long.toHexString(old.version()));
            full.set(true);
            executeLater(this::schedule, 20);
            return;
        }
        if (!snapshot) {
            LOG.debug("group {}: the group kept changing during {} reads; installing a mixed read v0x{} over v0x{}", name,
                    SNAPSHOT_ATTEMPTS, Long.toHexString(next.version()), Long.toHexString(old.version()));
        }
        current = next;
        size.set(next.size());
        synchronized (viewLock) {
            viewLock.notifyAll();
        }
        tell(changes, next); // also when only the version moved: listeners track versions too
        initialized = true;
    }

    private void tell(List<Change<M>> changes, GroupView<M> view) {
        long now = System.nanoTime();
        Instant at = Instant.now();
        for (Change<M> c : changes) {
            switch (c.kind()) {
                case LEFT -> {
                    listeners.forEach(l -> l.onLeft(c.before(), view));
                    count("coord.membership.leaves");
                    flapRule.left(c.memberId(), now);
                }
                case UPDATED -> {
                    listeners.forEach(l -> l.onUpdated(c.before(), c.after(), view));
                    count("coord.membership.updates");
                }
                case JOINED -> {
                    listeners.forEach(l -> l.onJoined(c.after(), view));
                    count("coord.membership.joins");
                    flapRule.joined(c.memberId(), now, at).ifPresent(flap -> {
                        LOG.info("group {}: member {} flapped ({} times; gone {})", name, flap.memberId(), flap.count(),
                                flap.lastDowntime());
                        count("coord.membership.flaps");
                        listeners.forEach(l -> l.onFlap(flap));
                    });
                }
            }
        }
        flaps = flapRule.flaps();
        listeners.forEach(l -> l.onViewChanged(view));
    }

    private void count(String metric) {
        if (initialized) {
            metrics.increment(metric, "group", name);
        }
    }

    // ---- the API ----

    @Override
    public String name() {
        return name;
    }

    @Override
    public CoordPath path() {
        return path;
    }

    @Override
    public GroupOptions<M> options() {
        return options;
    }

    @Override
    public Membership<M> join(String memberId, M metadata) throws InterruptedException {
        checkOpen();
        ZkMembership<M> m = ZkMembership.join(this, zk, path.child(memberId), metadata);
        memberships.add(m);
        if (closed.get()) {
            m.leave(); // closed while joining: do not leave a member behind
            checkOpen();
        }
        return m;
    }

    void forget(ZkMembership<M> m) {
        memberships.remove(m);
    }

    @Override
    public GroupView<M> view() {
        return current;
    }

    @Override
    public Registration addListener(GroupListener<M> listener, Executor executor) {
        java.util.Objects.requireNonNull(listener, "listener");
        java.util.Objects.requireNonNull(executor, "executor");
        checkOpen();
        AtomicBoolean removed = new AtomicBoolean();
        AtomicReference<Registration> inner = new AtomicReference<>();
        // On the worker, so that no view is installed between the snapshot and the registration.
        execute(() -> {
            if (removed.get() || closed.get()) {
                return;
            }
            GroupView<M> view = current;
            inner.set(listeners.addThen(listener, executor, l -> {
                view.members().values().forEach(m -> l.onJoined(m, view));
                l.onViewChanged(view);
            }));
            if (removed.get()) {
                inner.get().close();
            }
        });
        return () -> {
            removed.set(true);
            Registration r = inner.getAndSet(null);
            if (r != null) {
                r.close();
            }
        };
    }

    @Override
    public GroupView<M> awaitMembers(int n, Duration timeout) throws InterruptedException {
        if (n < 0) {
            throw new IllegalArgumentException("awaitMembers needs n >= 0, got " + n);
        }
        GroupView<M> view = await(timeout, v -> v.size() >= n);
        if (view == null) {
            GroupView<M> now = current;
            throw new CoordTimeoutException("group " + name + " has " + now.size() + " of the " + n + " members awaited after "
                    + timeout + ": " + now.ids());
        }
        return view;
    }

    @Override
    public MemberInfo<M> awaitMember(String memberId, Duration timeout) throws InterruptedException {
        CoordPath.validateName(memberId);
        GroupView<M> view = await(timeout, v -> v.contains(memberId));
        if (view == null) {
            throw new CoordTimeoutException("member " + memberId + " did not join group " + name + " within " + timeout
                    + "; members now: " + current.ids());
        }
        return view.members().get(memberId);
    }

    private GroupView<M> await(Duration timeout, java.util.function.Predicate<GroupView<M>> done) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (viewLock) {
            while (true) {
                checkOpen();
                GroupView<M> view = current;
                if (done.test(view)) {
                    return view;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return null;
                }
                TimeUnit.NANOSECONDS.timedWait(viewLock, left);
            }
        }
    }

    @Override
    public Map<String, Flap> flaps() {
        return flaps;
    }

    private void checkOpen() {
        if (closed.get()) {
            throw new IllegalStateException("group " + name + " is closed");
        }
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        for (ZkMembership<M> m : List.copyOf(memberships)) {
            m.leave();
        }
        Registration r = newSessionRegistration;
        if (r != null) {
            r.close();
        }
        r = sessionRegistration.getAndSet(null);
        if (r != null) {
            r.close();
        }
        listeners.clear();
        try {
            // Curator forgets a persistent watch once it has fired (it takes it for one-shot), so
            // removeWatchers() alone would leave it registered: remove it by name.
            zk.curator().watchers().remove(watcher).guaranteed().inBackground()
                    .forPath(path.value());
        } catch (Exception e) {
            LOG.debug("group {}: could not remove its watch", name, e);
        }
        size.set(0);
        worker.shutdown();
        if (Thread.currentThread() != workerThread) {
            try {
                if (!worker.awaitTermination(5, TimeUnit.SECONDS)) {
                    worker.shutdownNow();
                }
            } catch (InterruptedException e) {
                worker.shutdownNow();
                Thread.currentThread().interrupt();
            }
        }
        synchronized (viewLock) {
            viewLock.notifyAll();
        }
    }

    @Override
    public String toString() {
        return "Group[" + name + " " + current.size() + " members v=0x" + Long.toHexString(current.version())
                + (closed.get() ? " closed" : "") + "]";
    }
}
