package io.coord.config;

import io.coord.CoordClient;
import io.coord.CoordException;
import io.coord.CoordMetrics;
import io.coord.CoordPath;
import io.coord.CoordSession;
import io.coord.CoordSettings;
import io.coord.CoordTimeoutException;
import io.coord.Registration;
import io.coord.SessionListener;
import io.coord.internal.Listeners;
import io.coord.internal.Zk;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.WatcherRemoveCuratorFramework;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reader: one-shot getData watches on each key's node and canary node, every event followed
 * by a re-read on the reader's own config thread, a sync before the re-read after every reconnect
 * and new session, {@link ConfigState} to decide what applies.
 *
 * <p>Over 300 lines because the lifecycle (connect or adopt, fall back, attach, close) and the
 * read loop share the same few fields; splitting them would only pass those fields around.
 */
final class ZkLiveConfig<T> implements LiveConfig<T> {
    private static final Logger LOG = LoggerFactory.getLogger(ZkLiveConfig.class);
    private static final AtomicInteger IDS = new AtomicInteger();
    private static final long RETRY_MS = 1000;

    /** What callers see: the value in effect (null before any), whether it came from a live read, whether the connection is down. */
    private record View<T>(Versioned<T> current, boolean suspended) {
        boolean stale() {
            return suspended || (current != null && current.origin() == Versioned.Origin.SNAPSHOT);
        }
    }

    /** The connection, once there is one. */
    private record Attached(Zk zk, WatcherRemoveCuratorFramework curator, Registration newSessions) {
    }

    private final ConfigKey<T> key;
    private final ConfigOptions options;
    private final CoordMetrics metrics;
    private final String[] tags;
    private final ConfigState<T> state;
    private final ScheduledThreadPoolExecutor thread;
    private final Listeners<ConfigListener<T>> listeners = new Listeners<>();
    private final LocalSnapshot<T> snapshot;
    private final Versioned<T> fallback;
    private final AppliedReporter reporter;
    private final AtomicReference<View<T>> view = new AtomicReference<>(new View<>(null, false));
    private final CountDownLatch initialized = new CountDownLatch(1);
    private final ConcurrentLinkedQueue<NodeTrack> queue = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean drainScheduled = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Watcher watcher = this::onWatch;
    private volatile Attached attached;
    private volatile CoordException lastError;
    private volatile CoordClient ownedClient;
    private Thread connector;
    private volatile Registration sessionRegistration;
    private final java.util.concurrent.atomic.AtomicLong suspensions = new java.util.concurrent.atomic.AtomicLong();
    private long resyncAfter;
    private boolean resyncPending;
    private boolean reportDirty;
    private boolean snapshotDirty;

    private ZkLiveConfig(ConfigKey<T> key, ConfigOptions options, CoordMetrics metrics) {
        this.key = key;
        this.options = options;
        this.metrics = metrics;
        this.tags = new String[] {"app", key.app(), "key", key.isWholeApp() ? "*" : key.key(), "instance", options.instanceId()};
        this.state = new ConfigState<>(key, options);
        this.snapshot = options.snapshotDir() == null ? null : new LocalSnapshot<>(key, options.snapshotDir(), options.maxValueBytes());
        this.fallback = snapshot == null ? null : snapshot.load().orElse(null);
        this.reporter = new AppliedReporter(key, options);
        int id = IDS.incrementAndGet();
        String name = "coord-config-" + key.app() + (key.isWholeApp() ? "" : "/" + key.key()) + "-" + id;
        this.thread = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        });
        thread.setRemoveOnCancelPolicy(true);
        metrics.gauge("coord.config.applied.version", () -> {
            Versioned<T> v = view.get().current();
            return v == null ? Versioned.NO_VERSION : v.version();
        }, tags);
        metrics.gauge("coord.config.stale", () -> view.get().stale() ? 1 : 0, tags);
    }

    static <T> ZkLiveConfig<T> open(CoordClient client, ConfigKey<T> key, ConfigOptions options) {
        ZkLiveConfig<T> reader = new ZkLiveConfig<>(key, options, client.metrics());
        reader.attach(Zk.of(client));
        return reader;
    }

    static <T> ZkLiveConfig<T> open(CoordSettings settings, ConfigKey<T> key, ConfigOptions options) {
        ZkLiveConfig<T> reader = new ZkLiveConfig<>(key, options, settings.metrics());
        reader.connector = new Thread(() -> reader.connectLoop(settings), "coord-config-connect-" + key.app());
        reader.connector.setDaemon(true);
        reader.connector.start();
        return reader;
    }

    /** Connects until it works or the reader is closed; falls back to the snapshot after the first failure. */
    private void connectLoop(CoordSettings settings) {
        long backoff = 200;
        while (!closed.get()) {
            try {
                CoordClient client = CoordClient.connect(settings);
                ownedClient = client;
                if (closed.get()) {
                    client.close();
                    return;
                }
                attach(Zk.of(client));
                return;
            } catch (CoordException e) {
                lastError = e;
                useFallback("could not connect to " + settings.connectString() + ": " + e.getMessage());
                try {
                    Thread.sleep(backoff); // pacing between attempts; close() interrupts it
                } catch (InterruptedException interrupted) {
                    return;
                }
                backoff = Math.min(backoff * 2, 5000);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void attach(Zk zk) {
        WatcherRemoveCuratorFramework curator = zk.curator().newWatcherRemoveCuratorFramework();
        Registration newSessions = zk.client().onNewSession(this::onNewSession, thread);
        reporter.attach(curator, watcher, thread);
        attached = new Attached(zk, curator, newSessions);
        runOnThread(() -> watchSession(zk.sessions().current()));
        runOnThread(() -> resync("started"));
    }

    // ---- events from ZooKeeper and the session, turned into work for the config thread ----

    private void onWatch(WatchedEvent event) {
        if (closed.get() || event.getType() == Watcher.Event.EventType.None || event.getPath() == null) {
            return;
        }
        NodeTrack track = state.track(event.getPath());
        if (track != null) {
            enqueue(track, false);
        } else if (reporter.isReportPath(event.getPath())) {
            runOnThread(() -> {
                reportDirty = true;
                drain();
            });
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
                view.updateAndGet(v -> new View<>(v.current(), true));
            }

            @Override
            public void onReconnected(CoordSession s) {
                runOnThread(() -> resync("reconnected on session " + s.idHex()));
            }
        }, Runnable::run);
    }

    private void onNewSession(CoordSession session) {
        watchSession(session);
        reportDirty = true;
        resync("new session " + session.idHex());
    }

    /**
     * After a reconnect nothing is assumed: every node is synced and read again (and its watch set
     * again). The reader is current again once all those reads succeeded with no suspension since.
     */
    private void resync(String why) {
        LOG.debug("{}: {}, reading every node again", key.path(), why);
        resyncAfter = suspensions.get();
        resyncPending = true;
        state.forgetReads();
        state.tracks().forEach(t -> enqueue(t, true));
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

    // ---- the config thread ----

    private void drain() {
        drainScheduled.set(false);
        NodeTrack track;
        while (!closed.get() && (track = queue.poll()) != null) {
            track.queued.set(false);
            boolean sync = track.needsSync;
            track.needsSync = false;
            read(track, sync);
        }
        if (closed.get() || !queue.isEmpty()) {
            return;
        }
        if (resyncPending && state.allRead() && suspensions.get() == resyncAfter) {
            resyncPending = false;
            view.updateAndGet(v -> new View<>(v.current(), false));
            reportDirty = true; // current again: say so (and a new session needs its report node anyway)
        }
        View<T> now = view.get();
        if (snapshotDirty && snapshot != null && now.current() != null && now.current().origin() != Versioned.Origin.DEFAULT) {
            snapshot.save(now.current());
            snapshotDirty = false;
        }
        if (reportDirty && options.reportApplied() && attached != null && now.current() != null
                && now.current().origin() != Versioned.Origin.SNAPSHOT) {
            reportDirty = false;
            reporter.publish(state.contentsInEffect(), now.stale());
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
                handle(state.onPresent(track, data, stat));
                return;
            }
            Stat exists = a.zk().call(track.path, () -> a.curator().checkExists().usingWatcher(watcher).forPath(path));
            if (exists != null) {
                enqueue(track, false); // created between the two reads
                return;
            }
            CoordPath parent = track.path.parent();
            Stat parentStat = a.zk().call(parent, () -> a.curator().checkExists().forPath(parent.value()));
            handle(state.onAbsent(track, parentStat == null ? VersionRule.PARENT_MISSING : parentStat.getPzxid()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (CoordException e) {
            lastError = e;
            LOG.debug("{}: reading {} failed ({}); trying again", key.path(), path, e.getMessage());
            if (view.get().current() == null) {
                useFallback("reading " + path + " failed: " + e.getMessage());
            }
            track.needsSync = true;
            thread.schedule(() -> enqueue(track, true), RETRY_MS, TimeUnit.MILLISECONDS);
        } catch (RuntimeException e) {
            lastError = new CoordException("reading " + path + " failed: " + e, e);
            LOG.warn("{}: reading {} failed", key.path(), path, e);
        }
    }

    private void handle(ConfigState.Outcome<T> outcome) {
        ConfigRejection rejection = outcome.rejection();
        if (rejection != null) {
            LOG.warn("config update refused, keeping the last good value: {}", rejection);
            metrics.increment("coord.config.rejected", "app", key.app(), "key", keyOf(rejection.path()),
                    "version", Long.toString(rejection.version()), "reason", rejection.reason());
            listeners.forEach(l -> l.onRejected(rejection));
            if (view.get().current() == null) {
                lastError = new CoordException(rejection.toString());
            }
        }
        if (outcome.applied() != null) {
            publish(outcome.applied());
        }
        if (state.allRead() && view.get().current() != null) {
            initialized.countDown();
        }
    }

    private void publish(Versioned<T> applied) {
        View<T> before = view.getAndUpdate(v -> new View<>(applied, v.suspended()));
        Versioned<T> previous = before.current();
        if (previous != null && previous.origin() != Versioned.Origin.SNAPSHOT && applied.origin() != Versioned.Origin.DEFAULT) {
            Duration delay = Duration.between(applied.modified(), options.clock().instant());
            metrics.recordTime("coord.config.propagation", delay.isNegative() ? Duration.ZERO : delay, "app", key.app(),
                    "key", tags[3]);
        }
        snapshotDirty = true;
        reportDirty = true;
        if (previous != null && previous.version() == applied.version() && previous.revision() == applied.revision()
                && previous.value().equals(applied.value())) {
            return; // the snapshot's value confirmed live: nothing changed for the application
        }
        ConfigChange<T> change = new ConfigChange<>(key.path().value(), previous, applied);
        LOG.debug("applied {}", change);
        listeners.forEach(l -> l.onChange(change));
    }

    /** Uses the local snapshot if there is one and nothing live is in effect yet. */
    private void useFallback(String why) {
        if (fallback == null) {
            return;
        }
        View<T> before = view.get();
        if (before.current() == null && view.compareAndSet(before, new View<>(fallback, before.suspended()))) {
            LOG.warn("{}: using the local snapshot {} ({}) until the ensemble can be read: {}", key.path(), snapshot.file(),
                    fallback, why);
            ConfigChange<T> change = new ConfigChange<>(key.path().value(), null, fallback);
            listeners.forEach(l -> l.onChange(change));
            initialized.countDown();
        }
    }

    private String keyOf(String path) {
        return CoordPath.of(path).name();
    }

    // ---- the public handle ----

    @Override
    public ConfigKey<T> key() {
        return key;
    }

    @Override
    public T awaitInitialized(Duration timeout) throws InterruptedException {
        long start = System.nanoTime();
        if (fallback != null && !initialized.await(Math.min(timeout.toNanos(), options.fallbackAfter().toNanos()), TimeUnit.NANOSECONDS)) {
            useFallback("no live read within " + options.fallbackAfter());
        }
        long left = timeout.toNanos() - (System.nanoTime() - start);
        if (!initialized.await(Math.max(0, left), TimeUnit.NANOSECONDS)) {
            CoordException error = lastError;
            throw new CoordTimeoutException("config " + key.path() + " has no value after " + timeout + ": "
                    + (error != null ? "last error: " + error.getMessage()
                    : attached == null ? "not connected yet" : "the key does not exist and has no default (and no snapshot)"), error);
        }
        return get();
    }

    @Override
    public T get() {
        return current().value();
    }

    @Override
    public Versioned<T> current() {
        Versioned<T> v = view.get().current();
        if (v == null) {
            throw new IllegalStateException("config " + key.path() + " has no value yet: call awaitInitialized(timeout) first");
        }
        return v;
    }

    @Override
    public Optional<Versioned<T>> currentIfAny() {
        return Optional.ofNullable(view.get().current());
    }

    @Override
    public boolean isStale() {
        return view.get().stale();
    }

    @Override
    public boolean inCanary() {
        Versioned<T> v = view.get().current();
        return v != null && v.origin() == Versioned.Origin.CANARY;
    }

    @Override
    public Registration addListener(ConfigListener<T> listener, Executor executor) {
        return listeners.add(listener, executor);
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        if (connector != null) {
            connector.interrupt();
            try {
                connector.join(TimeUnit.SECONDS.toMillis(20));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        Attached a = attached;
        if (a != null) {
            a.newSessions().close();
        }
        closeSessionRegistration();
        thread.shutdownNow(); // interrupts a read blocked on a dead connection
        try {
            if (!thread.awaitTermination(5, TimeUnit.SECONDS)) {
                LOG.warn("{}: config thread did not stop within 5 s", key.path());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        closeSessionRegistration(); // in case the thread registered again meanwhile
        if (a != null) {
            boolean connected = a.curator().getZookeeperClient().isConnected();
            reporter.close(a.zk(), a.curator(), connected);
            if (connected) {
                a.curator().removeWatchers();
            }
        }
        listeners.clear();
        CoordClient owned = ownedClient;
        if (owned != null) {
            owned.close();
        }
    }

    private void closeSessionRegistration() {
        Registration r = sessionRegistration;
        if (r != null) {
            r.close();
        }
    }

    @Override
    public String toString() {
        View<T> v = view.get();
        return "LiveConfig[" + key.path() + " " + (v.current() == null ? "no value" : v.current()) + (v.stale() ? " stale" : "")
                + (closed.get() ? " closed" : "") + "]";
    }
}
