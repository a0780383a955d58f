package io.coord.membership;

import io.coord.ConfigurationException;
import io.coord.CoordClient;
import io.coord.CoordException;
import io.coord.CoordMetrics;
import io.coord.CoordPath;
import io.coord.CoordSession;
import io.coord.CoordTimeoutException;
import io.coord.Registration;
import io.coord.SessionListener;
import io.coord.internal.EventThreads;
import io.coord.internal.Listeners;
import io.coord.internal.Zk;
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
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The group: its worker thread, the {@link GroupWatch} that keeps its view current, its
 * listeners, flap counting and awaits, and the memberships joined through it.
 *
 * <p>Threading: watch events (ZooKeeper's event thread) and session events only mark and
 * schedule; reads, view installs, diffs, flap counting and membership moves all run on the
 * worker, one at a time, so they need no locks. Listeners run on their own executors.
 */
final class ZkGroup<M> implements Group<M> {
    private static final Logger LOG = LoggerFactory.getLogger(ZkGroup.class);
    private static final AtomicInteger IDS = new AtomicInteger();

    private final Zk zk;
    private final String name;
    private final CoordPath path;
    private final GroupOptions<M> options;
    private final CoordMetrics metrics;
    private final ExecutorService worker;
    private final GroupWatch<M> watch;
    private final Listeners<GroupListener<M>> listeners = new Listeners<>();
    private final FlapRule flapRule;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Object viewLock = new Object();
    private final Set<ZkMembership<M>> memberships = ConcurrentHashMap.newKeySet();
    private final AtomicInteger size = new AtomicInteger();
    private final AtomicReference<Registration> sessionRegistration = new AtomicReference<>();
    private volatile Registration newSessionRegistration;
    private volatile GroupView<M> current;
    private volatile Map<String, Flap> flaps = Map.of();
    private volatile Thread workerThread;
    private boolean initialized; // worker only: the first view is the baseline, not "joins"
    private final Set<PendingAwait<M>> awaits = ConcurrentHashMap.newKeySet();

    private ZkGroup(Zk zk, String name, GroupOptions<M> options) {
        this.zk = zk;
        this.name = name;
        this.path = ROOT.child(name);
        this.options = options;
        this.metrics = zk.client().metrics();
        this.flapRule = new FlapRule(options.flapWindow());
        this.current = GroupView.empty(name);
        this.watch = new GroupWatch<>(this, zk, path, new GroupReader<>(zk, path, options.codec()));
        int id = IDS.incrementAndGet();
        this.worker = EventThreads.newSerialExecutor(r -> {
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
            watch.refresh();
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

    private void bind(CoordSession session) {
        Registration old = sessionRegistration.getAndSet(session.addListener(new SessionListener() {
            @Override
            public void onReconnected(CoordSession s) {
                watch.reconnected();
                memberships.forEach(ZkMembership::kick);
            }
        }, worker));
        if (old != null) {
            old.close();
        }
    }

    /** Runs on the worker. */
    private void onNewSession(CoordSession session) {
        if (closed.get()) {
            return;
        }
        bind(session);
        watch.newSession();
        memberships.forEach(ZkMembership::kick);
    }

    boolean isClosed() {
        return closed.get();
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

    /**
     * On the worker: makes {@code next} the view if it differs (in members or version) and tells
     * listeners the exact differences. Versions never go back (the watch guarantees it).
     */
    void publish(GroupView<M> next) {
        publish(next, null);
    }

    /**
     * {@link #publish(GroupView)} when only the members {@code touched} can differ (the watch's
     * incremental path knows which): the differences are computed over those alone, not over the
     * whole group, so a change costs each observer O(changed) work, not O(members).
     */
    void publish(GroupView<M> next, Set<String> touched) {
        GroupView<M> old = current;
        List<Change<M>> changes = touched == null ? ViewDiff.between(old.members(), next.members())
                : ViewDiff.between(only(old.members(), touched), only(next.members(), touched));
        if (changes.isEmpty() && next.version() == old.version()) {
            initialized = true;
            return;
        }
        if (next.version() < old.version()) {
            throw new IllegalStateException("group " + name + ": view version would go back from 0x" + Long.toHexString(old.version())
                    + " to 0x" + Long.toHexString(next.version()));
        }
        current = next;
        size.set(next.size());
        synchronized (viewLock) {
            viewLock.notifyAll();
        }
        tell(changes, next); // also when only the version moved: listeners track versions too
        for (PendingAwait<M> a : awaits) {
            a.offer(next);
        }
        initialized = true;
        for (ZkMembership<M> m : List.copyOf(memberships)) {
            execute(() -> yieldIfOverwritten(m, next));
        }
    }

    private static <M> Map<String, MemberInfo<M>> only(Map<String, MemberInfo<M>> members, Set<String> ids) {
        Map<String, MemberInfo<M>> out = new java.util.HashMap<>();
        for (String id : ids) {
            MemberInfo<M> m = members.get(id);
            if (m != null) {
                out.put(id, m);
            }
        }
        return out;
    }

    private void yieldIfOverwritten(ZkMembership<M> m, GroupView<M> view) {
        try {
            m.yieldIfOverwritten(view);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // the worker is shutting down
        } catch (CoordException e) {
            LOG.debug("group {}: could not check member {}'s node; the next view checks again", name, m.memberId(), e);
        }
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
                        LOG.debug("group {}: member {} flapped ({} times; gone {})", name, flap.memberId(), flap.count(),
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
    public CompletableFuture<GroupView<M>> awaitMembersAsync(int n, Duration timeout, Executor executor) {
        if (n < 0) {
            throw new IllegalArgumentException("awaitMembersAsync needs n >= 0, got " + n);
        }
        java.util.Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("awaitMembersAsync needs a timeout >= 0, got " + timeout);
        }
        java.util.Objects.requireNonNull(executor, "executor");
        checkOpen();
        PendingAwait<M> a = new PendingAwait<>(v -> v.size() >= n, executor, awaits::remove,
                () -> new CoordTimeoutException("group " + name + " has " + current.size() + " of the " + n
                        + " members awaited after " + timeout + ": " + current.ids()));
        awaits.add(a);
        a.startTimer(zk.timer(), timeout);
        if (closed.get()) {
            a.fail(new IllegalStateException("group " + name + " is closed")); // closed meanwhile: close() may have missed it
        }
        a.offer(current); // after the add: a view installed meanwhile is offered by publish, this one here
        return a.future();
    }

    /** Pending async awaits, for tests: cancelled and completed ones are gone from it. */
    int pendingAwaits() {
        return awaits.size();
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
        for (PendingAwait<M> a : List.copyOf(awaits)) {
            a.fail(new IllegalStateException("group " + name + " closed while awaiting members"));
        }
        watch.close();
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
