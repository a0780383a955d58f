package io.coord.lock;

import io.coord.CoordTimeoutException;
import io.coord.LockLostException;
import io.coord.Registration;
import io.coord.SessionExpiredException;
import io.coord.SessionListener;
import io.coord.SessionState;
import io.coord.CoordSession;
import io.coord.internal.LeaseNodes;
import io.coord.internal.NodeLease;
import io.coord.internal.Zk;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One {@link DistributedLock#acquireAsync} in flight: the same queue protocol as
 * {@link ZkLockQueue#acquire} (pipelined create and read, a getData watch on what {@link WaitRule}
 * names, no re-read when the only node ahead goes), driven by replies and watch events instead of
 * a parked thread. Each step is a background request sent from the reply or event before it, so a
 * pending acquire holds no thread, only a watch.
 *
 * <p>States: QUEUEING → GRANTED (the lease is handed to the caller's executor) or ENDED (failed,
 * timed out, cancelled: our node is deleted, or deleted when its create's reply comes). The
 * move out of QUEUEING happens once, under {@link #lock}, which guards the fields; while it is
 * held nothing blocks and no caller code runs (background sends only).
 * The caller's future completes on the caller's executor, never on ZooKeeper's event thread.
 */
final class AsyncAcquire {
    private static final Logger LOG = LoggerFactory.getLogger(AsyncAcquire.class);

    private enum State { QUEUEING, GRANTED, ENDED }

    private final ZkLockQueue queue;
    private final ZkLockQueue.Request request;
    private final Zk zk;
    private final long start = System.nanoTime();
    private final long timeoutNanos;
    private final Executor executor;
    private final CompletableFuture<LockLease> result = new CompletableFuture<>();
    private final Watcher watcher = this::onWatch;
    private final HolderInfo info;
    private final Object lock = new Object();
    private State state = State.QUEUEING;
    private LeaseNodes.Created created;
    private NodeLease lease;
    private Registration sessionRegistration;
    private Registration leaseRegistration;
    private ScheduledFuture<?> timer;
    /** The queue last decided on, and which decision it was: replies and events of an older one are ignored. */
    private List<WaitRule.Node> nodes = List.of();
    /** Names watched so far, for removing our watcher when the acquire ends. */
    private final Set<String> watched = new java.util.HashSet<>();
    private long decision;

    private AsyncAcquire(ZkLockQueue queue, ZkLockQueue.Request request, long timeoutNanos, Executor executor) {
        this.queue = queue;
        this.request = request;
        this.zk = queue.zk();
        this.timeoutNanos = timeoutNanos;
        this.executor = executor;
        this.info = HolderInfo.of(queue.owner(), request.type(), null);
    }

    /** Starts an acquire of {@code request} on {@code queue}; {@code timeoutNanos} from now, nanoTime-based. */
    static CompletableFuture<LockLease> start(ZkLockQueue queue, ZkLockQueue.Request request, long timeoutNanos, Executor executor) {
        if (executor == null) {
            throw new IllegalArgumentException("executor must not be null: it runs the future's completion");
        }
        AsyncAcquire a = new AsyncAcquire(queue, request, timeoutNanos, executor);
        a.begin();
        return a.result;
    }

    private void begin() {
        // A cancel (or any end we did not cause) withdraws what we queued; runs on the cancelling thread, never blocks.
        result.whenComplete((lease, error) -> {
            if (error != null) {
                end(null);
            }
        });
        try {
            LeaseNodes.createListing(zk, queue.path(), request.prefix(), queue.encoded(info, request.type()), true)
                    .whenComplete((listed, error) -> {
                        if (error != null) {
                            end(error instanceof CompletionException c ? c.getCause() : error);
                        } else {
                            queued(listed);
                        }
                    });
        } catch (RuntimeException | Error e) {
            end(e instanceof RejectedExecutionException ? new io.coord.CoordException("client " + queue.path()
                    + " is closing: the acquire was not started", e) : e);
        }
    }

    /** Our node exists (the create's reply; ZooKeeper's event thread). */
    private void queued(LeaseNodes.Listed listed) {
        synchronized (lock) {
            if (state != State.QUEUEING) {
                // Withdrawn while the create was in flight: the node must not stay behind.
                LeaseNodes.deleteInBackground(zk, listed.created().token().node().value());
                return;
            }
            created = listed.created();
            lease = LeaseNodes.lease(zk, created);
            // Runs on the client's events thread, never here: no callback under the lock.
            sessionRegistration = created.session().addListener(new SessionListener() {
                @Override
                public void onEnded(CoordSession s, SessionState finalState) {
                    end(new SessionExpiredException("session " + s.idHex() + " ended while waiting for lock " + queue.path()
                            + "; its node " + created.token().node() + " is gone with it"));
                }
            }, zk.events());
            // The lease ends while we queue when its client closes keeping its session (a wrapped
            // Curator client: the node is deleted then), or its node is found gone: the wait ends too.
            leaseRegistration = lease.addListener(new io.coord.LeaseListener() {
                @Override
                public void onLost(io.coord.Lease l, io.coord.CoordException cause) {
                    // A session's end (or a client closing) fails as SessionExpiredException, whichever listener hears it first.
                    end(cause instanceof SessionExpiredException ? cause : new LockLostException("the node " + created.token().node() + " queued for lock " + queue.path()
                            + " was lost while waiting: " + cause.getMessage(), cause));
                }
            }, Runnable::run);
        }
        if (listed.children() != null) {
            decide(listed.children(), null);
        } else {
            read();
        }
    }

    /** Reads the queue in the background; the reply decides. */
    private void read() {
        try {
            zk.curator().getChildren().inBackground((c, e) -> onChildren(e)).forPath(queue.path().value());
        } catch (Exception e) {
            end(zk.translate(e, queue.path()));
        }
    }

    private void onChildren(CuratorEvent e) {
        KeeperException.Code code = KeeperException.Code.get(e.getResultCode());
        if (code == KeeperException.Code.NONODE) {
            decide(List.of(), null);
        } else if (code != KeeperException.Code.OK) {
            end(zk.translate(KeeperException.create(code, queue.path().value()), queue.path()));
        } else {
            decide(e.getChildren(), null);
        }
    }

    /** Decides on {@code children} (or on {@code known}, a queue already checked), then grants, fails, or watches. */
    private void decide(List<String> children, List<WaitRule.Node> known) {
        List<WaitRule.Node> q;
        long mine;
        synchronized (lock) {
            if (state != State.QUEUEING) {
                return;
            }
            try {
                q = known != null ? known : queue.queue(request, created, children);
            } catch (RuntimeException e) {
                endLocked(e);
                return;
            }
            nodes = q;
            mine = ++decision;
        }
        WaitRule.Decision d = WaitRule.decide(q, created.token().node().name(), -1);
        switch (d.outcome()) {
            case GRANTED -> grant();
            case MISSING -> end(queue.missing(created));
            case ANCHOR_MISSING -> end(new LockLostException("the write lease a read of " + queue.path() + " was anchored to is gone"));
            case WAIT -> {
                if (armTimer()) {
                    d.watch().forEach(name -> watch(name, mine));
                }
            }
        }
    }

    /**
     * Arms the timeout on the first wait (an acquire granted at once needs none), measured from the
     * call by nanoTime; false if the time is already up (the acquire then ended with a timeout).
     */
    private boolean armTimer() {
        long left = timeoutNanos - (System.nanoTime() - start);
        CoordTimeoutException timedOut = new CoordTimeoutException("lock " + queue.path() + " was not granted within "
                + java.time.Duration.ofNanos(timeoutNanos) + "; our node was removed");
        synchronized (lock) {
            if (state != State.QUEUEING) {
                return false;
            }
            if (left <= 0) {
                endLocked(timedOut);
                return false;
            }
            if (timer == null) {
                try {
                    timer = zk.timer().schedule(() -> end(timedOut), left, TimeUnit.NANOSECONDS);
                } catch (RejectedExecutionException closing) {
                    endLocked(new io.coord.CoordException("client closing: the acquire of lock " + queue.path() + " ended", closing));
                    return false;
                }
            }
            return true;
        }
    }

    /** A getData watch on the node ahead; a reply saying it is gone already counts as its going. */
    private void watch(String name, long mine) {
        synchronized (lock) {
            watched.add(name);
        }
        try {
            zk.curator().getData().usingWatcher(watcher).inBackground((c, e) -> {
                if (e.getResultCode() == KeeperException.Code.NONODE.intValue()) {
                    gone(name, mine);
                } else if (e.getResultCode() != KeeperException.Code.OK.intValue()) {
                    read(); // connection trouble Curator gave up on: decide again from a fresh read
                }
            }).forPath(queue.path().child(name).value());
        } catch (Exception e) {
            end(zk.translate(e, queue.path()));
        }
    }

    private void onWatch(WatchedEvent event) {
        if (event.getType() == Watcher.Event.EventType.None || event.getPath() == null) {
            return; // a connection event: the watch survives a reconnect; a session's end comes by the listener
        }
        long mine;
        synchronized (lock) {
            if (state != State.QUEUEING) {
                return;
            }
            mine = decision;
        }
        String name = event.getPath().substring(event.getPath().lastIndexOf('/') + 1);
        if (event.getType() == Watcher.Event.EventType.NodeDeleted) {
            gone(name, mine);
        } else {
            read();
        }
    }

    /** A node we watched went: grant without a read when nothing can have queued ahead (see {@link WaitRule#grantSafeWithoutReread}). */
    private void gone(String name, long mine) {
        List<WaitRule.Node> reduced;
        synchronized (lock) {
            if (state != State.QUEUEING || mine != decision) {
                return;
            }
            reduced = WaitRule.without(nodes, Set.of(name));
        }
        boolean grantedNow = WaitRule.decide(reduced, created.token().node().name(), -1).outcome() == WaitRule.Outcome.GRANTED;
        if (grantedNow && WaitRule.grantSafeWithoutReread(request.type())) {
            decide(null, reduced);
        } else {
            read();
        }
    }

    private void grant() {
        Holding holding;
        synchronized (lock) {
            if (state != State.QUEUEING) {
                return;
            }
            try {
                holding = queue.hold(request.type(), queue.path(), lease, info, queue.options().clock().instant());
            } catch (RuntimeException e) {
                endLocked(e);
                return;
            }
            state = State.GRANTED;
            stopWaiting();
        }
        queue.metrics().waited(request.type(), "acquired", System.nanoTime() - start);
        ZkLockLease granted = new ZkLockLease(holding);
        complete(() -> {
            if (!result.complete(granted)) {
                granted.close(); // cancelled in the meantime: nobody will ever close it
            }
        }, granted::close);
    }

    /** Ends the acquire unless it already ended or was granted: withdraws our node; fails the future with {@code error} (null: it is already done, e.g. cancelled). */
    private void end(Throwable error) {
        synchronized (lock) {
            endLocked(error);
        }
    }

    private void endLocked(Throwable error) {
        if (state != State.QUEUEING) {
            return;
        }
        state = State.ENDED;
        stopWaiting();
        if (lease != null) {
            lease.releaseKeepingNode(); // never granted: it ends here, and the delete below removes the node
        }
        if (created != null && !created.session().state().isTerminal()) {
            LeaseNodes.deleteInBackground(zk, created.token().node().value());
        }
        String outcome = error == null ? "cancelled" : error instanceof CoordTimeoutException ? "timeout" : "failed";
        queue.metrics().waited(request.type(), outcome, System.nanoTime() - start);
        if (error != null) {
            complete(() -> result.completeExceptionally(error), () -> { });
        }
    }

    /** Stops the timer, the session listener and the watch (the watch locally: no request). */
    private void stopWaiting() {
        if (timer != null) {
            timer.cancel(false);
        }
        if (sessionRegistration != null) {
            sessionRegistration.close();
        }
        if (leaseRegistration != null) {
            leaseRegistration.close();
        }
        for (String name : watched) {
            try {
                zk.curator().watchers().remove(watcher).ofType(Watcher.WatcherType.Data).locally().quietly().inBackground()
                        .forPath(queue.path().child(name).value());
            } catch (Exception ignored) {
                // the client is closing: its watches go with it
            }
        }
        watched.clear();
    }

    /** Runs a completion on the caller's executor; one that refuses it gets the failure on the client's callback thread. */
    private void complete(Runnable completion, Runnable onRefused) {
        try {
            executor.execute(completion);
        } catch (RejectedExecutionException e) {
            onRefused.run();
            zk.offEventThread(() -> result.completeExceptionally(new RejectedExecutionException("the executor of an acquireAsync"
                    + " of lock " + queue.path() + " refused its completion", e)));
        }
    }

    @Override
    public String toString() {
        return "AsyncAcquire[" + queue.path() + " " + state + "]";
    }
}
