package io.coord.election;

import com.google.common.util.concurrent.MoreExecutors;
import io.coord.CoordPath;
import io.coord.Registration;
import io.coord.internal.Listeners;
import io.coord.internal.Zk;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.curator.framework.WatcherRemoveCuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches who leads, for observers: a children watch on the election node, a data watch on the
 * leader's node (to see it start acting), an exists watch on the election node while it does not
 * exist. Every event, including connection events, only schedules a re-read on the observer's one
 * thread; a failed read is retried with backoff, so the view recovers after a reconnect or a new
 * session. {@link CandidateRule#isNews} decides what is reported.
 */
final class ElectionObserver implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ElectionObserver.class);
    private static final long MAX_BACKOFF_MS = 2000;

    private final ZkElection election;
    private final Zk zk;
    private final CoordPath path;
    private final WatcherRemoveCuratorFramework watching;
    private final ScheduledExecutorService thread;
    private final Listeners<ElectionListener> listeners = new Listeners<>();
    private final AtomicBoolean pending = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Watcher watcher = event -> schedule(0);
    // Only touched on the observer thread:
    private boolean initialized;
    private Optional<LeaderInfo> reported = Optional.empty();
    private CandidateRule.View last = CandidateRule.View.NONE;
    private long highest;
    private int failures;
    /** The foreign children last warned about (a WARN once per set, not per read). */
    private List<String> warnedForeign = List.of();
    private long leaderlessSince = System.nanoTime();

    ElectionObserver(ZkElection election) {
        this.election = election;
        this.zk = election.zk();
        this.path = election.path();
        this.watching = zk.curator().newWatcherRemoveCuratorFramework();
        this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "coord-election-" + election.name() + "-observer");
            t.setDaemon(true);
            return t;
        });
        schedule(0);
    }

    /** Adds a listener; on the observer thread, so its first call (the current view) precedes any change. */
    Registration add(ElectionListener listener, Executor executor) {
        Executor serial = MoreExecutors.newSequentialExecutor(executor);
        Registration[] registration = new Registration[1];
        AtomicBoolean removed = new AtomicBoolean();
        thread.execute(() -> {
            if (removed.get()) {
                return;
            }
            registration[0] = listeners.add(listener, serial);
            if (initialized) {
                Optional<LeaderInfo> now = reported;
                serial.execute(() -> tell(listener, now));
            }
        });
        return () -> {
            removed.set(true);
            thread.execute(() -> {
                if (registration[0] != null) {
                    registration[0].close();
                }
            });
        };
    }

    private void schedule(long delayMs) {
        if (closed.get() || !pending.compareAndSet(false, true)) {
            return;
        }
        try {
            thread.schedule(this::refresh, delayMs, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            pending.set(false); // closed meanwhile
        }
    }

    private void refresh() {
        pending.set(false);
        if (closed.get()) {
            return;
        }
        try {
            Optional<LeaderInfo> leader = readLeader();
            failures = 0;
            publish(leader);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // closing
        } catch (RuntimeException e) {
            failures++;
            long backoff = Math.min(MAX_BACKOFF_MS, 50L << Math.min(failures, 6));
            LOG.debug("could not read election {} (try {}); again in {} ms", path, failures, backoff, e);
            schedule(backoff);
        }
    }

    /**
     * Reads the leader, leaving watches on what would change the answer: the children (who is
     * lowest) and the election node's data (the announcement that the lowest acts).
     */
    private Optional<LeaderInfo> readLeader() throws InterruptedException {
        List<String> children = zk.call(path, () -> {
            try {
                return watching.getChildren().usingWatcher(watcher).forPath(path.value());
            } catch (KeeperException.NoNodeException e) {
                // No election node (yet, or no more: it is a container). Watch for its creation.
                Stat exists = watching.checkExists().usingWatcher(watcher).forPath(path.value());
                if (exists != null) {
                    schedule(0);
                }
                return List.<String>of();
            }
        });
        CuratorLayout layout = election.options().curatorLayout();
        List<String> foreign = CandidateRule.foreign(children, layout);
        if (!foreign.isEmpty() && !foreign.equals(warnedForeign)) {
            // Reported, never silently ignored; candidates refuse beside them, observers go on.
            LOG.warn("{}", CandidateRule.refusal(path, layout, foreign, "reports only the " + layout + " candidates").getMessage());
        }
        warnedForeign = foreign;
        List<String> order = CandidateRule.order(children, layout);
        if (order.isEmpty()) {
            return Optional.empty();
        }
        Optional<ElectionNodes.Announced> announced = election.nodes().announcement(watching, watcher);
        for (String child : order) {
            // Candidate data never changes: no watch; the children watch tells when one leaves.
            Optional<Participant> p = election.nodes().participant(child);
            if (p.isPresent()) {
                return Optional.of(ElectionNodes.toLeaderInfo(p.get(), announced));
            }
        }
        return Optional.empty();
    }

    private void publish(Optional<LeaderInfo> leader) {
        CandidateRule.View next = leader.map(l -> new CandidateRule.View(l.epoch().value(), l.acting()))
                .orElse(CandidateRule.View.NONE);
        boolean first = !initialized;
        initialized = true;
        if (!first && !CandidateRule.isNews(last, highest, next)) {
            return;
        }
        boolean wasActing = last.acting();
        last = next;
        highest = Math.max(highest, next.epoch());
        reported = leader;
        long now = System.nanoTime();
        if (wasActing && !next.acting()) {
            leaderlessSince = now;
        } else if (!wasActing && next.acting()) {
            election.metrics().recordTime("coord.election.leaderless", Duration.ofNanos(now - leaderlessSince),
                    "election", election.name());
        }
        if (!first) {
            election.metric("coord.election.observed.changes");
        }
        listeners.forEach(l -> tell(l, leader));
    }

    private static void tell(ElectionListener listener, Optional<LeaderInfo> leader) {
        if (leader.isPresent()) {
            listener.onLeader(leader.get());
        } else {
            listener.onNoLeader();
        }
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        listeners.clear();
        thread.shutdownNow();
        try {
            thread.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        watching.removeWatchers();
    }
}
