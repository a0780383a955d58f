package io.coord.lock;

import io.coord.CoordClient;
import io.coord.CoordPath;
import io.coord.ForeignNodesException;
import io.coord.LeaseState;
import io.coord.LockLostException;
import io.coord.SessionExpiredException;
import io.coord.TooManyChildrenException;
import io.coord.internal.LeaseNodes;
import io.coord.internal.NodeLease;
import io.coord.internal.SequentialNodes;
import io.coord.internal.Zk;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ZooKeeper plumbing every lock kind shares: queue a protected ephemeral-sequential node
 * (token = its czxid, from the create itself), read the children, ask {@link WaitRule}, watch what
 * it names, and either hand back a {@link Holding} or remove our node — on timeout, interrupt or
 * any failure, before returning. Curator's lock protocol (sequential nodes, a getData watch on one
 * predecessor, protected creates, guaranteed deletes) with Coord's additions: the token, the
 * per-lease state machine, nanoTime deadlines, and no re-read when the only node ahead of a
 * lock or read waiter goes (nothing can queue ahead of it later, so the read would tell nothing).
 */
final class ZkLockQueue {
    private static final Logger LOG = LoggerFactory.getLogger(ZkLockQueue.class);

    /**
     * What to queue: the node kind, its name prefix, the kinds that share its queue, and for an
     * anchored read the sequence of its write (-1: none; the node is then sequential, an anchored
     * read's name is whole already).
     */
    record Request(WaitRule.Type type, String prefix, Set<WaitRule.Type> family, long anchor) {
        static Request of(WaitRule.Type type, Set<WaitRule.Type> family) {
            return new Request(type, type.prefix, family, -1);
        }

        static Request anchoredRead(long writeSequence, Set<WaitRule.Type> family) {
            return new Request(WaitRule.Type.READ, WaitRule.anchoredReadName(writeSequence), family, writeSequence);
        }
    }

    private final Zk zk;
    private final CoordPath path;
    private final LockOptions options;
    private final LockMetrics metrics;
    private final HeldSinceStamper stamper;
    /** Node data by kind and owner: the few distinct owners of one lock object are encoded once. */
    private final java.util.Map<WaitRule.Type, java.util.Map<String, byte[]>> encodedInfo = new java.util.EnumMap<>(WaitRule.Type.class);

    ZkLockQueue(CoordClient client, CoordPath path, LockOptions options) {
        if (path.isRoot()) {
            throw new IllegalArgumentException("a lock needs its own node; \"/\" cannot be a lock path");
        }
        this.zk = Zk.of(client);
        this.path = path;
        this.options = options;
        this.metrics = new LockMetrics(client.metrics());
        this.stamper = new HeldSinceStamper(zk.timer());
    }

    CoordPath path() {
        return path;
    }

    /**
     * Queues and waits. {@code timeoutNanos} < 0 waits until granted or interrupted. Empty on
     * timeout (our node removed).
     */
    Optional<Holding> acquire(Request request, long timeoutNanos) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException("interrupted before queueing for lock " + path);
        }
        long start = System.nanoTime();
        boolean forever = timeoutNanos < 0;
        long deadline = forever ? 0 : start + timeoutNanos;
        HolderInfo info = HolderInfo.of(owner(), request.type(), null);
        // The create and the first read go out back to back: one round trip, not two; the read's reply wakes us.
        LeaseNodes.Listed listed = LeaseNodes.createThenList(zk, path, request.prefix(), encoded(info, request.type()),
                request.anchor() < 0);
        LeaseNodes.Created created = listed.created();
        // The lease starts now, while we queue: its own-node watch goes out in the background beside
        // the first read, so neither an uncontended grant nor a handoff waits for (or pays) it.
        NodeLease lease = LeaseNodes.lease(zk, created);
        String ours = created.token().node().name();
        String outcome = "failed";
        NodeWatch watch = null; // made on the first wait: an uncontended acquire needs none
        try {
            List<WaitRule.Node> queue = listed.children() != null ? queue(request, created, listed.children()) : read(request, created);
            while (true) {
                WaitRule.Decision d = WaitRule.decide(queue, ours, request.anchor());
                switch (d.outcome()) {
                    case GRANTED -> {
                        Holding holding = grant(request, created, lease, info);
                        outcome = "acquired";
                        return Optional.of(holding);
                    }
                    case MISSING -> throw missing(created);
                    case ANCHOR_MISSING -> throw new LockLostException("the write lease a read of " + path
                            + " was anchored to is gone; the read was not granted");
                    case WAIT -> { }
                }
                if (!forever && System.nanoTime() - deadline >= 0) {
                    outcome = "timeout";
                    return Optional.empty();
                }
                if (watch == null) {
                    watch = new NodeWatch(zk, created.session());
                }
                NodeWatch.Signal signal = watch.await(path, d.watch(), forever, deadline);
                switch (signal.kind()) {
                    case GONE -> {
                        List<WaitRule.Node> reduced = WaitRule.without(queue, signal.nodes());
                        boolean grantedNow = WaitRule.decide(reduced, ours, request.anchor()).outcome()
                                == WaitRule.Outcome.GRANTED;
                        queue = grantedNow && WaitRule.grantSafeWithoutReread(request.type()) ? reduced : read(request, created);
                    }
                    case CHANGED -> queue = read(request, created);
                    case TIMEOUT -> {
                        outcome = "timeout";
                        return Optional.empty();
                    }
                    case SESSION_ENDED -> throw new SessionExpiredException("session " + created.session().idHex()
                            + " ended while waiting for lock " + path + "; its node " + created.token().node() + " is gone with it");
                }
            }
        } catch (InterruptedException e) {
            outcome = "interrupted";
            throw e;
        } finally {
            if (watch != null) {
                watch.close();
            }
            if (!outcome.equals("acquired")) {
                lease.releaseKeepingNode(); // never granted: it ends here, and remove() deletes the node
                remove(created);
            }
            metrics.waited(request.type(), outcome, System.nanoTime() - start);
        }
    }

    /** The node data for {@code info} (which has no held-since yet), cached per kind and owner. */
    byte[] encoded(HolderInfo info, WaitRule.Type type) {
        java.util.Map<String, byte[]> byOwner;
        synchronized (encodedInfo) {
            byOwner = encodedInfo.computeIfAbsent(type, t -> new java.util.concurrent.ConcurrentHashMap<>());
        }
        byte[] bytes = byOwner.get(info.owner());
        if (bytes == null) {
            bytes = info.encode(path);
            if (byOwner.size() < 64) {
                byOwner.put(info.owner(), bytes);
            }
        }
        return bytes;
    }

    private List<WaitRule.Node> read(Request request, LeaseNodes.Created created) throws InterruptedException {
        return queue(request, created, children());
    }

    /** The queue {@code children} make for {@code request}; refuses an overlong queue and nodes of a rule we cannot see. */
    List<WaitRule.Node> queue(Request request, LeaseNodes.Created created, List<String> children) {
        if (children.size() > options.maxQueueLength()) {
            throw new TooManyChildrenException("lock " + path + " has " + children.size() + " nodes, over its maxQueueLength of "
                    + options.maxQueueLength() + "; our node " + created.token().node() + " was removed");
        }
        List<WaitRule.Node> queue = WaitRule.queue(children, request.family());
        if (queue.size() != children.size()) {
            // Never ignored: a node we cannot read may be a holder by a rule we cannot see.
            throw foreignNodes(request.type(), WaitRule.foreign(children, request.family()), created);
        }
        return queue;
    }

    /** The refusal to decide beside nodes whose rule we cannot see; names them and what to do. */
    private ForeignNodesException foreignNodes(WaitRule.Type type, List<String> foreign, LeaseNodes.Created created) {
        String understood = switch (type) {
            case LOCK -> "mutex nodes (lock-, Coord's and Curator InterProcessMutex's)";
            case READ, WRITE -> "read-write lock nodes (__READ__/__WRIT__, Coord's and Curator InterProcessReadWriteLock's)";
            case LEASE -> "semaphore lease nodes (lease-, Coord's and Curator InterProcessSemaphoreV2's)";
        };
        boolean oldLayout = foreign.stream().anyMatch(n -> n.matches("(_c_[0-9a-f-]{36}-)?(read-|write-).*"));
        String names = ForeignNodesException.listed(foreign);
        return new ForeignNodesException(path + " holds " + foreign.size() + " node(s) that are not " + understood + ": " + names
                + ". Whoever made them waits by a rule Coord cannot see, so Coord will not decide who holds; our node "
                + created.token().node().name() + " was removed. "
                + (oldLayout ? "read-/write- nodes are Coord's read-write layout before it took Curator's names: finish the"
                        + " upgrade (stop the older clients on this path) or give the new clients another path. "
                        : "")
                + "Remove the nodes if they are stale, or give this lock a path of its own (see coord lock show " + path + ")",
                path, foreign);
    }

    RuntimeException missing(LeaseNodes.Created created) {
        if (created.session().state().isTerminal()) {
            return new SessionExpiredException("session " + created.session().idHex() + " ended while waiting for lock "
                    + path + "; its node " + created.token().node() + " is gone with it");
        }
        return new LockLostException("our node " + created.token().node() + " of lock " + path
                + " (token " + created.token() + ") was deleted by someone else while it waited");
    }

    private Holding grant(Request request, LeaseNodes.Created created, NodeLease lease, HolderInfo info) {
        return hold(request.type(), path, lease, info, options.clock().instant());
    }

    /**
     * The holding of a granted node: checks its lease has not ended meanwhile and has its grant
     * time stamped once it has held a while. {@code lockPath} is what the lease belongs to: this
     * queue's path, or for a semaphore the semaphore's own path above its {@code leases/}.
     */
    Holding hold(WaitRule.Type type, CoordPath lockPath, NodeLease lease, HolderInfo info, Instant heldSince) {
        lease.requireNotEnded("the grant of lock " + lockPath);
        Holding holding = new Holding(type, lockPath, lease, info, heldSince, metrics, stamper);
        stamper.track(holding, () -> stampLater(holding));
        return holding;
    }

    /** Who the nodes of this queue name as their owner: the options' name, else the calling thread's. */
    String owner() {
        return options.ownerName() != null ? options.ownerName() : Thread.currentThread().getName();
    }

    LockOptions options() {
        return options;
    }

    /** Records the grant time in a node held for a while, for inspection; best effort, never blocks. */
    private void stampLater(Holding holding) {
        if (holding.lease.state() != LeaseState.ACQUIRED || !holding.claimStamp()) {
            return;
        }
        CoordPath node = holding.lease.node();
        try {
            byte[] data = holding.info.stamped(holding.heldSince.toEpochMilli()).encode(node);
            zk.curator().setData().withVersion(0).inBackground((client, event) -> { }).forPath(node.value(), data);
        } catch (Exception e) {
            LOG.debug("could not stamp the grant time into {}", node, e);
        }
    }

    /** Removes our node after a failed wait; the interrupt flag is kept but does not stop the delete. */
    void remove(LeaseNodes.Created created) {
        if (created.session().state().isTerminal()) {
            return; // the node ended with its session
        }
        boolean interrupted = Thread.interrupted();
        try {
            zk.curator().delete().guaranteed().forPath(created.token().node().value());
        } catch (KeeperException.NoNodeException ignored) {
            // already gone
        } catch (Exception e) {
            LOG.warn("could not remove waiter node {} now; the guaranteed delete keeps trying", created.token().node(), e);
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    LockMetrics metrics() {
        return metrics;
    }

    Zk zk() {
        return zk;
    }

    /** The lock directory's children; none if it does not exist yet. */
    private List<String> children() throws InterruptedException {
        try {
            return zk.curator().getChildren().forPath(path.value());
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            throw zk.translate(e, path);
        }
    }

    /**
     * Every child's full path in Curator's order (the sequence suffix; a node without one last, by
     * name), as {@code InterProcessMutex.getParticipantNodes()} answers for the same directory.
     */
    List<String> participantNodes() throws InterruptedException {
        return children().stream()
                .sorted(java.util.Comparator.<String>comparingLong(n -> SequentialNodes.sequence(n) < 0 ? Long.MAX_VALUE : SequentialNodes.sequence(n))
                        .thenComparing(java.util.Comparator.naturalOrder()))
                .map(n -> path.value() + "/" + n).toList();
    }
}
