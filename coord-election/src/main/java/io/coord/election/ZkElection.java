package io.coord.election;

import com.google.common.util.concurrent.MoreExecutors;
import io.coord.CoordClient;
import io.coord.CoordException;
import io.coord.CoordMetrics;
import io.coord.CoordPath;
import io.coord.LeaseState;
import io.coord.Registration;
import io.coord.internal.LeaseNodes;
import io.coord.internal.NodeLease;
import io.coord.internal.Zk;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.framework.recipes.leader.LeaderSelectorListener;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The election over ZooKeeper: candidates are protected ephemeral-sequential nodes
 * {@code /elections/{name}/_c_<uuid>-latch-<seq>} (or {@code -lock-}, see {@link CuratorLayout})
 * holding {@link CandidateData}, ordered with Curator's candidates of the same layout. The waiting
 * is in {@link Candidacy}, the task loop in {@link LeaderRunner}, observing in
 * {@link ElectionObserver}; this class wires them and reads participants.
 */
final class ZkElection implements Election {
    private static final Logger LOG = LoggerFactory.getLogger(ZkElection.class);
    private static final AtomicInteger IDS = new AtomicInteger();

    private final Zk zk;
    private final String name;
    private final CoordPath path;
    private final ElectionOptions options;
    private final CoordMetrics metrics;
    private final byte[] nodeData;
    private final CandidateData data;
    private final ExecutorService threads;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** One candidacy or leadership per handle at a time. */
    /** This handle's one candidacy, leadership or runner (null: free); each engage() takes a new token. */
    private final AtomicReference<Object> engagement = new AtomicReference<>();
    private final Set<Candidacy> candidacies = ConcurrentHashMap.newKeySet();
    private final Set<ZkLeadership> leaderships = ConcurrentHashMap.newKeySet();
    private final Set<LeaderRunner> runners = ConcurrentHashMap.newKeySet();
    private final Object observerLock = new Object();
    private ElectionObserver observer; // guarded by observerLock

    private final ElectionNodes nodes;

    ZkElection(CoordClient client, String name, ElectionOptions options) {
        this.name = CoordPath.validateName(name);
        Objects.requireNonNull(client, "client");
        this.options = Objects.requireNonNull(options, "options");
        this.zk = Zk.of(client);
        this.path = ROOT.child(name);
        this.nodes = new ElectionNodes(zk, path, options.curatorLayout());
        this.metrics = client.metrics();
        this.data = new CandidateData(options.participantId(), options.metadata());
        this.nodeData = CandidateData.CODEC.encode(path, data);
        int id = IDS.incrementAndGet();
        AtomicInteger threadIds = new AtomicInteger();
        this.threads = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "coord-election-" + name + "-" + id + "-" + threadIds.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    Zk zk() {
        return zk;
    }

    ElectionNodes nodes() {
        return nodes;
    }

    byte[] nodeData() {
        return nodeData;
    }

    void metric(String counter) {
        metrics.increment(counter, "election", name);
    }

    CoordMetrics metrics() {
        return metrics;
    }

    ExecutorService threads() {
        return threads;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public CoordPath path() {
        return path;
    }

    @Override
    public ElectionOptions options() {
        return options;
    }

    @Override
    public Leadership campaign(Duration timeout) throws InterruptedException {
        if (timeout == null || timeout.isNegative()) {
            throw new IllegalArgumentException("campaign timeout must be >= 0, got " + timeout);
        }
        Runnable disengage = engage("campaign");
        Candidacy candidacy = newCandidacy(disengage);
        boolean ok = false;
        try {
            long deadline = System.nanoTime() + Math.min(timeout.toNanos(), Long.MAX_VALUE / 4);
            ZkLeadership leadership = candidacy.await(deadline, timeout);
            ok = true;
            return leadership;
        } catch (CancellationException e) {
            throw new CoordException("election " + name + " was closed while campaigning", e);
        } finally {
            forget(candidacy);
            if (!ok) {
                disengage.run();
            }
        }
    }

    @Override
    public CompletableFuture<Leadership> campaignAsync() {
        Runnable disengage = engage("campaignAsync");
        Candidacy candidacy = newCandidacy(disengage);
        CompletableFuture<Leadership> future = new CompletableFuture<>();
        future.whenComplete((l, e) -> {
            if (future.isCancelled()) {
                candidacy.withdraw();
            }
        });
        try {
            threads.execute(() -> {
                try {
                    ZkLeadership leadership = candidacy.await(System.nanoTime() + Long.MAX_VALUE / 4, null);
                    if (!future.complete(leadership)) {
                        leadership.resign(); // cancelled just as we won
                    }
                } catch (InterruptedException e) {
                    disengage.run();
                    future.completeExceptionally(e);
                } catch (RuntimeException e) {
                    disengage.run();
                    future.completeExceptionally(e);
                } finally {
                    forget(candidacy);
                }
            });
        } catch (RuntimeException rejected) {
            forget(candidacy);
            disengage.run();
            throw new CoordException("election " + name + " is closed", rejected);
        }
        return future;
    }

    @Override
    public Registration lead(LeaderTask task) {
        Objects.requireNonNull(task, "task");
        return startRunner(task, options.requeue(), "lead");
    }

    @Override
    public LeaderRegistration lead(LeaderLatchListener listener, Executor executor) {
        Objects.requireNonNull(listener, "listener");
        Objects.requireNonNull(executor, "executor");
        AtomicReference<Leadership> current = new AtomicReference<>();
        LeaderTask task = CuratorListeners.latch(listener, MoreExecutors.newSequentialExecutor(executor), current);
        return CuratorListeners.registration(startRunner(task, true, "lead"), current, () -> { });
    }

    @Override
    public LeaderRegistration lead(LeaderSelectorListener listener, Executor executor) {
        Objects.requireNonNull(listener, "listener");
        Objects.requireNonNull(executor, "executor");
        AtomicReference<Leadership> current = new AtomicReference<>();
        CuratorListeners.Taker taker = new CuratorListeners.Taker();
        LeaderTask task = CuratorListeners.selector(listener, zk.curator(), executor, taker, current,
                options.taskStopTimeout().toMillis());
        ConnectionStateListener states = CuratorListeners.states(listener, taker);
        Registration runner = startRunner(task, options.requeue(), "lead");
        zk.curator().getConnectionStateListenable().addListener(states, executor);
        return CuratorListeners.registration(runner, current,
                () -> zk.curator().getConnectionStateListenable().removeListener(states));
    }

    private Registration startRunner(LeaderTask task, boolean requeue, String what) {
        Runnable disengage = engage(what);
        LeaderRunner runner = new LeaderRunner(this, task, requeue, disengage);
        runners.add(runner);
        try {
            threads.execute(runner::run);
        } catch (RuntimeException rejected) {
            runners.remove(runner);
            disengage.run();
            throw new CoordException("election " + name + " is closed", rejected);
        }
        return () -> {
            runner.stop();
            runners.remove(runner);
        };
    }

    /**
     * Takes this handle for one candidacy, leadership or runner; returns what frees it again (a
     * no-op once a later engagement took over). A leadership whose lease has ended frees the handle
     * at once: its end step runs off the event thread, possibly after the caller saw
     * {@code ended()} complete, and the caller may campaign again right then.
     */
    private Runnable engage(String what) {
        if (closed.get()) {
            throw new IllegalStateException("election " + name + " is closed; cannot " + what);
        }
        Object mine = new Object();
        while (true) {
            Object current = engagement.get();
            if (current != null && !endedButNotYetFreed()) {
                throw new IllegalStateException("election " + name + " handle already has a candidacy or leadership;"
                        + " cannot " + what + " again (open another Election handle for another candidate)");
            }
            if (engagement.compareAndSet(current, mine)) {
                return () -> engagement.compareAndSet(mine, null);
            }
        }
    }

    /** No candidacy or runner, and every leadership of this handle has ended (its end step still to run). */
    private boolean endedButNotYetFreed() {
        return candidacies.isEmpty() && runners.isEmpty() && !leaderships.isEmpty()
                && leaderships.stream().allMatch(l -> l.state().isTerminal());
    }

    /** A new candidacy; {@code onLeadershipEnd} runs once when the leadership it may win ends. */
    Candidacy newCandidacy(Runnable onLeadershipEnd) {
        Candidacy c = new Candidacy(this, onLeadershipEnd);
        candidacies.add(c);
        return c;
    }

    void forget(Candidacy c) {
        candidacies.remove(c);
    }

    /** Called by a {@link Candidacy} that may act: the leadership handle, its announcement, its figures. */
    ZkLeadership newLeadership(NodeLease lease, LeaseNodes.Created created, long predecessorGoneAt, Runnable onEnd) {
        long now = System.nanoTime();
        Participant me = new Participant(options.participantId(), options.metadata(), created.token(),
                Instant.ofEpochMilli(created.stat().getCtime()));
        LeaderInfo info = new LeaderInfo(me, true, Instant.now());
        ZkLeadership[] self = new ZkLeadership[1];
        // Started before the handle, so that an end at once (already LOST) still closes it.
        ForeignWatch foreign = ForeignWatch.start(zk, path, options.curatorLayout(), lease);
        ZkLeadership leadership = new ZkLeadership(lease, name, info, () -> {
            foreign.close();
            if (lease.state() == LeaseState.LOST) {
                metric("coord.election.lost");
            }
            metrics.recordTime("coord.election.held", Duration.ofNanos(System.nanoTime() - now), "election", name);
            // Free the handle before forgetting the leadership: engage() lets a caller who saw the
            // end in while this ended leadership is still listed, so there is no moment when the
            // handle is taken and the leadership that took it is no longer listed (CI saw one).
            onEnd.run();
            leaderships.remove(self[0]);
        });
        self[0] = leadership;
        leaderships.add(leadership);
        metric("coord.election.changes");
        if (predecessorGoneAt != 0) {
            metrics.recordTime("coord.election.handover", Duration.ofNanos(now - predecessorGoneAt), "election", name);
        }
        // Off this thread: the new leader's task starts now, the announcement follows in the background.
        try {
            zk.events().execute(() -> nodes.announce(lease, options.participantId()));
        } catch (java.util.concurrent.RejectedExecutionException closing) {
            LOG.debug("client closing: leader {} not announced", lease.token());
        }
        return leadership;
    }

    @Override
    public Optional<LeaderInfo> leader() throws InterruptedException {
        return nodes.leader();
    }

    @Override
    public List<Participant> candidates() throws InterruptedException {
        return nodes.candidates();
    }

    @Override
    public Registration observe(ElectionListener listener, Executor executor) {
        Objects.requireNonNull(listener, "listener");
        Objects.requireNonNull(executor, "executor");
        synchronized (observerLock) {
            if (closed.get()) {
                throw new IllegalStateException("election " + name + " is closed; cannot observe");
            }
            if (observer == null) {
                observer = new ElectionObserver(this);
            }
            return observer.add(listener, executor);
        }
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        for (LeaderRunner runner : List.copyOf(runners)) {
            runner.stop();
        }
        runners.clear();
        candidacies.forEach(Candidacy::withdraw);
        for (ZkLeadership l : List.copyOf(leaderships)) {
            l.resign();
        }
        synchronized (observerLock) {
            if (observer != null) {
                observer.close();
            }
        }
        threads.shutdown();
        try {
            if (!threads.awaitTermination(5, TimeUnit.SECONDS)) {
                threads.shutdownNow();
            }
        } catch (InterruptedException e) {
            threads.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }

    boolean isClosed() {
        return closed.get();
    }

    @Override
    public String toString() {
        return "Election[" + path + " as " + options.participantId() + (closed.get() ? " closed" : "") + "]";
    }
}
