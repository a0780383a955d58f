package io.coord.config;

import io.coord.CoordClient;
import io.coord.CoordException;
import io.coord.CoordMetrics;
import io.coord.CoordPath;
import io.coord.CoordSettings;
import io.coord.CoordTimeoutException;
import io.coord.NotAuthorizedException;
import io.coord.Registration;
import io.coord.internal.Listeners;
import io.coord.internal.Zk;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.WatcherRemoveCuratorFramework;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reader handle: what callers see (the value in effect, stale or not), listener delivery in
 * apply order, the local snapshot and fallback, reports, and the lifecycle (adopt a client or
 * connect one, close). Reading is {@link NodeReader}'s job, deciding {@link ConfigState}'s, the
 * snapshot and report writes {@link FollowUps}'.
 *
 * <p>A little over 300 lines: the public handle's methods, the owner callbacks and the lifecycle
 * all touch the same view and event queue; splitting further would pass those around.
 */
final class ZkLiveConfig<T> implements LiveConfig<T>, NodeReader.Owner<T> {
    private static final Logger LOG = LoggerFactory.getLogger(ZkLiveConfig.class);
    private static final AtomicInteger IDS = new AtomicInteger();

    /** What callers see: the value in effect (null before any) and whether the connection is down. */
    private record View<T>(Versioned<T> current, boolean suspended) {
        boolean stale() {
            return suspended || (current != null && current.origin() == Versioned.Origin.SNAPSHOT);
        }
    }

    private final ConfigKey<T> key;
    private final ConfigOptions options;
    private final CoordMetrics metrics;
    private final String[] tags;
    private final ConfigState<T> state;
    private final ScheduledThreadPoolExecutor thread;
    private final NodeReader<T> reader;
    private final Listeners<ConfigListener<T>> listeners = new Listeners<>();
    private final ConcurrentLinkedQueue<Runnable> events = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean dispatching = new AtomicBoolean();
    private final LocalSnapshot<T> snapshot;
    private final Versioned<T> fallback;
    private final AppliedReporter reporter;
    private final AtomicReference<View<T>> view = new AtomicReference<>(new View<>(null, false));
    /** Counted down once there is a value, or once the server refuses to let this client read the key. */
    private final CountDownLatch decided = new CountDownLatch(1);
    private volatile NotAuthorizedException refused;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final FollowUps<T> followUps;
    private volatile WatcherRemoveCuratorFramework curator;
    private volatile Zk zk;
    private volatile CoordException lastError;
    private volatile CoordClient ownedClient;
    private Thread connector;

    private ZkLiveConfig(ConfigKey<T> key, ConfigOptions options, CoordMetrics metrics) {
        this.key = key;
        this.options = options;
        this.metrics = metrics;
        this.tags = new String[] {"app", key.app(), "key", key.isWholeApp() ? "*" : key.key(), "instance", options.instanceId()};
        this.state = new ConfigState<>(key, options);
        this.snapshot = options.snapshotDir() == null ? null : new LocalSnapshot<>(key, options.snapshotDir(), options.maxValueBytes());
        this.fallback = snapshot == null ? null : snapshot.load().orElse(null);
        this.reporter = new AppliedReporter(key, options);
        String name = "coord-config-" + key.app() + (key.isWholeApp() ? "" : "/" + key.key()) + "-" + IDS.incrementAndGet();
        this.thread = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        });
        thread.setRemoveOnCancelPolicy(true);
        this.reader = new NodeReader<>(state, this, thread, key.path().value(), key.isWholeApp() ? new AppDirCheck(key) : null);
        this.followUps = new FollowUps<>(thread, snapshot, reporter, options.reportApplied(),
                FollowUps.offsetMs(options.instanceId(), key.path().value()), new FollowUps.Source<>() {
            @Override
            public Versioned<T> current() {
                return view.get().current();
            }

            @Override
            public boolean stale() {
                return view.get().stale();
            }

            @Override
            public java.util.Map<String, NodeTrack.Content> contents() {
                synchronized (state) {
                    return state.contentsInEffect();
                }
            }

            @Override
            public boolean closed() {
                return closed.get();
            }
        });
        metrics.gauge("coord.config.applied.version", () -> {
            Versioned<T> v = view.get().current();
            return v == null ? Versioned.NO_VERSION : v.version();
        }, tags);
        metrics.gauge("coord.config.stale", () -> view.get().stale() ? 1 : 0, tags);
    }

    static <T> ZkLiveConfig<T> open(CoordClient client, ConfigKey<T> key, ConfigOptions options) {
        ZkLiveConfig<T> live = new ZkLiveConfig<>(key, options, client.metrics());
        live.attach(Zk.of(client));
        return live;
    }

    static <T> ZkLiveConfig<T> open(CoordSettings settings, ConfigKey<T> key, ConfigOptions options) {
        ZkLiveConfig<T> live = new ZkLiveConfig<>(key, options, settings.metrics());
        live.connector = new Thread(() -> live.connectLoop(settings), "coord-config-connect-" + key.app());
        live.connector.setDaemon(true);
        live.connector.start();
        return live;
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
                refuseIfNotAuthorized(e);
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
        this.zk = zk;
        WatcherRemoveCuratorFramework c = reader.attach(zk);
        reporter.attach(c, reader.watcher(), thread);
        curator = c;
        followUps.startReporting();
    }

    // ---- what the reader tells us ----

    @Override
    public void onOutcome(ConfigState.Outcome<T> outcome) {
        ConfigRejection rejection = outcome.rejection();
        if (rejection != null) {
            metrics.increment("coord.config.rejected", "app", key.app(), "key", CoordPath.of(rejection.path()).name(),
                    "version", Long.toString(rejection.version()), "reason", rejection.reason());
            if (view.get().current() == null) {
                lastError = new CoordException(rejection.toString());
            }
            events.add(() -> {
                LOG.warn("config update refused, keeping the last good value: {}", rejection);
                listeners.forEach(l -> l.onRejected(rejection));
            });
        }
        if (outcome.applied() != null) {
            publish(outcome.applied());
        }
        if (state.allRead() && view.get().current() != null) {
            initialized();
        }
    }

    private void publish(Versioned<T> applied) {
        View<T> before = view.getAndUpdate(v -> new View<>(applied, v.suspended()));
        Versioned<T> previous = before.current();
        if (previous != null && previous.origin() != Versioned.Origin.SNAPSHOT && applied.origin() != Versioned.Origin.DEFAULT) {
            Duration delay = Duration.between(applied.modified(), options.clock().instant());
            metrics.recordTime("coord.config.propagation", delay.isNegative() ? Duration.ZERO : delay, "app", key.app(), "key", tags[3]);
        }
        followUps.valueChanged();
        if (previous != null && previous.version() == applied.version() && previous.revision() == applied.revision()
                && previous.value().equals(applied.value())) {
            return; // the snapshot's value confirmed live: nothing changed for the application
        }
        ConfigChange<T> change = new ConfigChange<>(key.path().value(), previous, applied);
        events.add(() -> listeners.forEach(l -> l.onChange(change)));
    }

    /** Delivers recorded events in the order they were recorded, one thread at a time, outside the state lock. */
    @Override
    public void dispatch() {
        while (!events.isEmpty() && dispatching.compareAndSet(false, true)) {
            try {
                Runnable event;
                while ((event = events.poll()) != null) {
                    event.run();
                }
            } finally {
                dispatching.set(false);
            }
        }
    }

    @Override
    public void onReadFailure(CoordException error) {
        lastError = error;
        if (view.get().current() == null) {
            useFallback("reading " + key.path() + " failed: " + error.getMessage());
        }
        refuseIfNotAuthorized(error);
    }

    private void initialized() {
        decided.countDown();
    }

    /**
     * Waiting cannot help a reader the server refuses for lack of READ (bad-input row 32), so
     * {@link #awaitInitialized} fails at once instead of at its timeout. The reader keeps trying
     * (once a second), so it recovers by itself if the ACL is changed.
     */
    private void refuseIfNotAuthorized(CoordException error) {
        if (error instanceof NotAuthorizedException e && view.get().current() == null) {
            refused = e;
            decided.countDown();
        }
    }

    @Override
    public void onSuspended() {
        view.updateAndGet(v -> new View<>(v.current(), true));
    }

    @Override
    public void onCurrent() {
        view.updateAndGet(v -> new View<>(v.current(), false));
        followUps.reportAgain(); // current again: say so
    }

    @Override
    public void onNewSession() {
        followUps.reportAgain(); // the report node went with the old session
    }

    /** Uses the local snapshot if there is one and nothing live is in effect yet. */
    private void useFallback(String why) {
        if (fallback == null) {
            return;
        }
        synchronized (state) { // in order with live applies, which hold the same lock
            View<T> before = view.get();
            if (before.current() != null || !view.compareAndSet(before, new View<>(fallback, before.suspended()))) {
                return;
            }
            ConfigChange<T> change = new ConfigChange<>(key.path().value(), null, fallback);
            events.add(() -> {
                LOG.warn("{}: using the local snapshot {} ({}) until the ensemble can be read: {}", key.path(), snapshot.file(),
                        fallback, why);
                listeners.forEach(l -> l.onChange(change));
            });
            initialized();
        }
        dispatch();
    }

    // ---- the public handle ----

    @Override
    public ConfigKey<T> key() {
        return key;
    }

    @Override
    public T awaitInitialized(Duration timeout) throws InterruptedException {
        long start = System.nanoTime();
        if (fallback != null && !decided.await(Math.min(timeout.toNanos(), options.fallbackAfter().toNanos()), TimeUnit.NANOSECONDS)) {
            useFallback("no live read within " + options.fallbackAfter());
        }
        long left = timeout.toNanos() - (System.nanoTime() - start);
        boolean settled = decided.await(Math.max(0, left), TimeUnit.NANOSECONDS);
        NotAuthorizedException notAuthorized = refused;
        if (settled && view.get().current() == null && notAuthorized != null) {
            throw new NotAuthorizedException("config " + key.path() + " cannot be read: " + notAuthorized.getMessage()
                    + "; the reader keeps trying in case the ACL is changed", notAuthorized);
        }
        if (!settled) {
            CoordException error = lastError;
            throw new CoordTimeoutException("config " + key.path() + " has no value after " + timeout + ": "
                    + (error != null ? "last error: " + error.getMessage()
                    : !reader.isAttached() ? "not connected yet" : "the key does not exist and has no default (and no snapshot)"), error);
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
        reader.stop();
        thread.shutdownNow(); // interrupts a read blocked on a dead connection
        try {
            if (!thread.awaitTermination(5, TimeUnit.SECONDS)) {
                LOG.warn("{}: config thread did not stop within 5 s", key.path());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        WatcherRemoveCuratorFramework c = curator;
        boolean connected = c != null && c.getZookeeperClient().isConnected();
        if (c != null) {
            reporter.close(zk, c, connected);
        }
        reader.removeWatches(connected);
        listeners.clear();
        CoordClient owned = ownedClient;
        if (owned != null) {
            owned.close();
        }
    }

    @Override
    public String toString() {
        View<T> v = view.get();
        return "LiveConfig[" + key.path() + " " + (v.current() == null ? "no value" : v.current()) + (v.stale() ? " stale" : "")
                + (closed.get() ? " closed" : "") + "]";
    }
}
