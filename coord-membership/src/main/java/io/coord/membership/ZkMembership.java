package io.coord.membership;

import io.coord.ConnectionLostException;
import io.coord.CoordException;
import io.coord.CoordPath;
import io.coord.CoordSession;
import io.coord.FencingToken;
import io.coord.Lease;
import io.coord.LeaseListener;
import io.coord.LockLostException;
import io.coord.Registration;
import io.coord.SessionExpiredException;
import io.coord.SessionListener;
import io.coord.SessionState;
import io.coord.internal.Listeners;
import io.coord.internal.NodeLease;
import io.coord.internal.Payloads;
import io.coord.internal.Zk;
import io.coord.internal.ZkSession;
import io.coord.membership.MembershipRule.Event;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A membership: one node at a time, each watched by a {@link NodeLease} (the shared lease
 * plumbing: SUSPENDED or a process stall → uncertain until one round trip confirms the node;
 * session ended or node deleted → lost). The lease's moves drive {@link MembershipRule} on the
 * client's events thread (they never block); a lost node is re-created on the group's worker
 * thread.
 *
 * <p>The lease is never {@code close()}d: that deletes by path with a guaranteed (retried) delete,
 * which for a fixed member path could remove a node another session created meanwhile. Leaving
 * ends the lease RELEASED without a delete ({@link NodeLease#releaseKeepingNode()}) and deletes
 * through {@link MemberNode#deleteIfOwned}, so the lease takes the node's disappearance for the
 * release it is, not a loss.
 */
final class ZkMembership<M> implements Membership<M> {
    private static final Logger LOG = LoggerFactory.getLogger(ZkMembership.class);
    /** Live handles of this process, so that two handles of one client never share a node. */
    private static final Map<Map.Entry<Zk, CoordPath>, ZkMembership<?>> HELD = new ConcurrentHashMap<>();

    /** The state, its cause exactly when LOST, and when it was entered. */
    record Snapshot(State state, CoordException cause, long sinceNanos) {
        Snapshot {
            if ((state == State.LOST) != (cause != null)) {
                throw new IllegalArgumentException("a cause is required exactly when LOST; state=" + state + ", cause=" + cause);
            }
        }
    }

    private final ZkGroup<M> group;
    private final Zk zk;
    private final CoordPath node;
    private final Map.Entry<Zk, CoordPath> key;
    private final AtomicReference<Snapshot> state = new AtomicReference<>(new Snapshot(State.JOINED, null, System.nanoTime()));
    private final Listeners<Listener> listeners = new Listeners<>();
    private final CompletableFuture<State> ended = new CompletableFuture<>();
    private final Set<Long> ownSessions = ConcurrentHashMap.newKeySet();
    private final AtomicInteger rejoins = new AtomicInteger();
    private final AtomicBoolean left = new AtomicBoolean();
    private final Object updateLock = new Object();
    private volatile M metadata;
    private volatile byte[] bytes;
    /**
     * update() attempts since the last confirmed write, newest last (under updateLock, at most
     * {@link #UNSETTLED_CAP}): one whose reply was lost may have landed, and then the node's
     * later version is a write of ours, not a takeover. A retry must not make an earlier attempt
     * that landed look foreign (CI saw a member LOST that way).
     */
    private final Deque<Attempt<M>> unsettled = new ArrayDeque<>();
    private volatile NodeLease lease;
    private volatile ZkSession session;
    private volatile long czxid;
    private volatile int dataVersion;
    private volatile long waitingForOldNodeSince; // nanos; 0 when not waiting

    private static final int UNSETTLED_CAP = 8;

    /** One update() attempt: the value and the bytes it wrote. */
    private record Attempt<M>(M metadata, byte[] bytes) {
    }

    /** An attempt of ours found on the node, with the node's stat. */
    private record Landed<M>(Attempt<M> attempt, Stat stat) {
    }

    private ZkMembership(ZkGroup<M> group, Zk zk, CoordPath node, M metadata, byte[] bytes) {
        this.group = group;
        this.zk = zk;
        this.node = node;
        this.key = Map.entry(zk, node);
        this.metadata = metadata;
        this.bytes = bytes;
    }

    /** The first join, on the caller's thread. */
    static <M> ZkMembership<M> join(ZkGroup<M> group, Zk zk, CoordPath node, M metadata) throws InterruptedException {
        byte[] bytes = group.options().codec().encode(node, metadata);
        zk.checkSize(node, bytes.length);
        ZkMembership<M> m = new ZkMembership<>(group, zk, node, metadata, bytes);
        ZkMembership<?> other = HELD.putIfAbsent(m.key, m);
        if (other != null) {
            throw new MemberIdTakenException("member id \"" + node.name() + "\" in group " + group.name() + " (" + node
                    + ") is already held by another Membership handle of this client (" + other + "); nothing was created",
                    node.name(), other.session == null ? 0 : other.session.id());
        }
        boolean ok = false;
        try {
            Payloads.checkChildCap(zk, node.parent(), group.options().maxMembers());
            MemberNode.Outcome outcome = MemberNode.create(zk, node, bytes);
            if (outcome instanceof MemberNode.Held held) {
                ZkSession now = zk.liveSession();
                if (held.stat().getEphemeralOwner() != now.id()) {
                    throw taken(group.name(), node, held.stat(), "");
                }
                // Our own session made it: a create whose reply was lost and was retried. Adopt it.
                LOG.info("member {}: adopting {} created by this session ({}) in an earlier attempt", node.name(), node, now.idHex());
                m.install(now, MemberNode.adopt(zk, node, held.stat(), bytes));
            } else {
                MemberNode.Created created = (MemberNode.Created) outcome;
                m.install(created.session(), created.stat());
            }
            ok = true;
            return m;
        } catch (InterruptedException e) {
            // The caller gave up: a node the create may have made must not outlive the attempt.
            group.execute(() -> removeOrphan(zk, node, m.key));
            throw e;
        } finally {
            if (!ok) {
                HELD.remove(m.key, m);
            }
        }
    }

    /** Deletes {@code node} if this client's session holds it and no handle does (an abandoned join). */
    private static void removeOrphan(Zk zk, CoordPath node, Map.Entry<Zk, CoordPath> key) {
        try {
            ZkSession now = zk.liveSession();
            Stat stat = zk.call(node, () -> zk.curator().checkExists().forPath(node.value()));
            if (stat != null && stat.getEphemeralOwner() == now.id() && !HELD.containsKey(key)) {
                MemberNode.deleteIfOwned(zk, node, now.id(), stat.getCzxid());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (CoordException e) {
            LOG.debug("member {}: could not check for a node left by an interrupted join", node.name(), e);
        }
    }

    static MemberIdTakenException taken(String group, CoordPath node, Stat holder, String when) {
        long owner = holder.getEphemeralOwner();
        String who = owner == 0 ? "a persistent node (not a member: no session owns it)"
                : "live session 0x" + Long.toHexString(owner) + " (joined " + Instant.ofEpochMilli(holder.getCtime())
                + "; if that process crashed, the server removes the node when it expires the session)";
        return new MemberIdTakenException("member id \"" + node.name() + "\" in group " + group + " (" + node + ") is held by "
                + who + when + "; nothing was created", node.name(), owner);
    }

    /** Starts watching a node just created (or adopted) for this member. */
    private void install(ZkSession owner, Stat stat) {
        session = owner;
        czxid = stat.getCzxid();
        dataVersion = stat.getVersion();
        ownSessions.add(owner.id());
        NodeLease l = new NodeLease(zk, owner, new FencingToken(stat.getCzxid(), node));
        lease = l;
        l.addListener(new LeaseListener() {
            @Override
            public void onUncertain(Lease x) {
                move(l, Event.SUSPEND, null);
            }

            @Override
            public void onRestored(Lease x) {
                move(l, Event.RESTORE, null);
            }

            @Override
            public void onLost(Lease x, CoordException cause) {
                nodeGone(l, cause);
            }
            // Not on the group's worker: it reads the group with blocking calls, and while the
            // connection is dark one such read holds it for seconds; this member's SUSPENDED and
            // LOST must not wait behind it. The moves themselves never block; a rejoin does, and
            // goes to the worker (nodeGone).
        }, zk.events());
        // Moves made before the listener was added would be missed: look once more, on the worker.
        // (It also runs after a rejoin's REJOINED, so a suspension seen while REJOINING is not lost.)
        group.execute(() -> {
            switch (l.state()) {
                case UNCERTAIN -> move(l, Event.SUSPEND, null);
                case LOST -> nodeGone(l, l.snapshot().cause());
                default -> { }
            }
        });
    }

    // ---- moves: lease moves on the events thread, rejoins on the group's worker, leave() on its caller ----

    private void move(NodeLease from, Event event, CoordException cause) {
        if (from == lease) {
            apply(event, cause);
        }
    }

    private void nodeGone(NodeLease from, CoordException cause) {
        if (from != lease || left.get()) {
            return;
        }
        if (!group.options().rejoin()) {
            apply(Event.GIVE_UP, cause);
            return;
        }
        if (apply(Event.NODE_GONE, cause)) {
            group.execute(this::tryRejoin);
        }
    }

    /** A session event happened (reconnect, new session): a rejoin waiting for one may go now. */
    void kick() {
        tryRejoin();
    }

    private void tryRejoin() {
        if (state() != State.REJOINING || left.get()) {
            return;
        }
        ZkSession now = zk.sessions().current();
        if (now == null || now.state() != SessionState.CONNECTED) {
            return; // the reconnect or the new session will kick us
        }
        try {
            MemberNode.Outcome outcome = MemberNode.create(zk, node, bytes);
            Stat stat;
            if (outcome instanceof MemberNode.Held held) {
                long owner = held.stat().getEphemeralOwner();
                if (owner != now.id()) {
                    if (ownSessions.contains(owner) && waitForOldNode()) {
                        // The client gave our old session up before the server did: its node
                        // goes when the server expires that session. Try again shortly.
                        group.executeLater(this::tryRejoin, 250);
                        return;
                    }
                    apply(Event.GIVE_UP, taken(group.name(), node, held.stat(), " while this member was rejoining"));
                    return;
                }
                stat = MemberNode.adopt(zk, node, held.stat(), bytes);
            } else {
                stat = ((MemberNode.Created) outcome).stat();
            }
            waitingForOldNodeSince = 0;
            install(now, stat);
            if (!apply(Event.REJOINED, null)) {
                // left (or closed) while the create was in flight: do not leave a member behind
                MemberNode.deleteIfOwned(zk, node, now.id(), stat.getCzxid());
                return;
            }
            rejoins.incrementAndGet();
            zk.client().metrics().increment("coord.membership.rejoins", "group", group.name());
            LOG.info("member {} of group {} rejoined on session {} (rejoin {})", node.name(), group.name(), now.idHex(), rejoins.get());
            listeners.forEach(l -> l.onRejoined(this, now));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ConnectionLostException | SessionExpiredException e) {
            LOG.debug("member {}: rejoin failed, retrying", node.name(), e);
            group.executeLater(this::tryRejoin, 1000);
        } catch (CoordException e) {
            if (e.retryable()) {
                group.executeLater(this::tryRejoin, 1000);
            } else {
                apply(Event.GIVE_UP, e);
            }
        }
    }

    /**
     * On the group's worker, after each new view: our node at a data version we did not write
     * means another client took it for its own. Curator's {@code GroupMember} does exactly that
     * (its {@code PersistentNode} meets our node, writes its payload into it and keeps it as its
     * member), and then two processes would hold one member id. This member gives the id up: LOST
     * with {@link MemberIdTakenException} saying so, its node deleted; the other client, which
     * watches the node, creates its own. The id then has one holder again.
     */
    void yieldIfOverwritten(GroupView<M> view) throws InterruptedException {
        MemberInfo<M> seen = view.members().get(node.name());
        long incarnation = czxid;
        if (left.get() || seen == null || seen.czxid() != incarnation || seen.metadataVersion() <= dataVersion) {
            return;
        }
        ZkSession owner = session;
        Stat stat;
        synchronized (updateLock) { // no update() of ours in flight: dataVersion is our last write
            if (state() != State.JOINED) {
                return;
            }
            Stat read = new Stat();
            byte[] data = zk.call(node, () -> {
                try {
                    return zk.curator().getData().storingStatIn(read).forPath(node.value());
                } catch (KeeperException.NoNodeException gone) {
                    return null; // the lease's watch reports that
                }
            });
            if (data == null) {
                return;
            }
            stat = read;
            if (stat.getCzxid() != incarnation || stat.getEphemeralOwner() != owner.id() || stat.getVersion() == dataVersion) {
                return;
            }
            Attempt<M> ours = unsettledMatching(data);
            if (ours != null) {
                // An update() of ours landed although its reply was lost (it failed with a
                // connection loss): our write, not a takeover.
                adopt(new Landed<>(ours, stat));
                return;
            }
            if (!left.compareAndSet(false, true)) {
                return;
            }
        }
        MemberIdTakenException cause = new MemberIdTakenException("member id \"" + node.name() + "\" in group " + group.name()
                + " (" + node + "): another client wrote into this member's node (data version " + stat.getVersion()
                + ", ours " + dataVersion + "), taking it for its own, as a Curator GroupMember started with the same id"
                + " does; this member leaves so that the id has one holder. Give every member of the group its own id",
                node.name(), owner.id());
        NodeLease l = lease;
        if (l != null) {
            l.releaseKeepingNode(); // its disappearance is this yield, not a loss to rejoin from
        }
        deleteOwnNode(owner, incarnation);
        apply(Event.GIVE_UP, cause);
    }

    /** Whether to keep waiting for our old session's node to go: at most the session timeout and a margin. */
    private boolean waitForOldNode() {
        long now = System.nanoTime();
        if (waitingForOldNodeSince == 0) {
            waitingForOldNodeSince = now;
        }
        long budget = zk.client().negotiatedSessionTimeout().toNanos() + 5_000_000_000L;
        return now - waitingForOldNodeSince < budget;
    }

    /** Applies one event; tells listeners; returns whether the state moved. */
    private boolean apply(Event event, CoordException cause) {
        while (true) {
            Snapshot from = state.get();
            Optional<State> to = MembershipRule.next(from.state(), event);
            if (to.isEmpty()) {
                return false;
            }
            if (!MembershipRule.isLegal(from.state(), to.get())) {
                throw new IllegalStateException("illegal membership transition " + from.state() + " -> " + to.get());
            }
            Snapshot next = new Snapshot(to.get(), to.get() == State.LOST ? cause : null, System.nanoTime());
            if (state.compareAndSet(from, next)) {
                announce(event, next, cause);
                return true;
            }
        }
    }

    private void announce(Event event, Snapshot to, CoordException cause) {
        switch (to.state()) {
            case SUSPENDED -> listeners.forEach(l -> l.onSuspended(this));
            case JOINED -> {
                if (event == Event.RESTORE) {
                    listeners.forEach(l -> l.onRestored(this));
                } // REJOINED is announced by tryRejoin with its session
            }
            case REJOINING -> {
                LOG.warn("member {} of group {} lost its node: {}", node.name(), group.name(), cause == null ? "?" : cause.getMessage());
                listeners.forEach(l -> l.onNodeLost(this, cause));
            }
            case LOST -> {
                LOG.warn("member {} of group {} is out of the group for good: {}", node.name(), group.name(), to.cause().getMessage());
                listeners.forEach(l -> l.onLost(this, to.cause()));
                finish(State.LOST);
            }
            case LEFT -> {
                listeners.forEach(l -> l.onLeft(this));
                finish(State.LEFT);
            }
        }
    }

    private void finish(State finalState) {
        HELD.remove(key, this);
        group.forget(this);
        // a lease move ends it on the events thread: the caller's continuations must not run there
        zk.offEventThread(() -> ended.complete(finalState));
    }

    // ---- the API ----

    @Override
    public String group() {
        return group.name();
    }

    @Override
    public String memberId() {
        return node.name();
    }

    @Override
    public CoordPath node() {
        return node;
    }

    @Override
    public State state() {
        return state.get().state();
    }

    @Override
    public CoordSession session() {
        return session;
    }

    @Override
    public long incarnation() {
        return czxid;
    }

    @Override
    public int rejoins() {
        return rejoins.get();
    }

    @Override
    public M metadata() {
        return metadata;
    }

    @Override
    public void update(M value) throws InterruptedException {
        byte[] encoded = group.options().codec().encode(node, value);
        zk.checkSize(node, encoded.length);
        synchronized (updateLock) {
            Snapshot s = state.get();
            ZkSession owner = session;
            if (s.state() != State.JOINED || owner.state() != SessionState.CONNECTED) {
                throw new LockLostException("member " + node.name() + " of group " + group.name() + " is " + s.state()
                        + (s.state() == State.JOINED ? " but its session " + owner.idHex() + " is " + owner.state() : "")
                        + "; metadata not written", s.cause());
            }
            long incarnation = czxid;
            Attempt<M> attempt = new Attempt<>(value, encoded);
            if (unsettled.size() == UNSETTLED_CAP) {
                unsettled.removeFirst();
            }
            unsettled.addLast(attempt);
            boolean adoptedEarlier = false;
            while (true) {
                Stat stat;
                try {
                    stat = zk.curator().setData().withVersion(dataVersion).forPath(node.value(), encoded);
                } catch (KeeperException.NoNodeException e) {
                    throw new LockLostException("member node " + node + " is gone; metadata not written", e);
                } catch (KeeperException.BadVersionException e) {
                    // Curator retries a setData whose reply was lost, and the retry meets our own
                    // write as BadVersion: look before calling it someone else's.
                    Landed<M> landed = adoptedEarlier ? null : ownLandedWrite(owner, incarnation);
                    if (landed == null) {
                        throw new LockLostException("member node " + node + " was changed by someone else (expected version "
                                + dataVersion + "); metadata not written", e);
                    }
                    adopt(landed);
                    if (landed.attempt() == attempt) {
                        return; // this write landed
                    }
                    adoptedEarlier = true; // an earlier attempt landed: write this one on top of it
                    continue;
                } catch (InterruptedException e) {
                    throw e;
                } catch (Exception e) {
                    throw zk.translate(e, node);
                }
                if (stat.getCzxid() != incarnation) {
                    LOG.error("member {}: the metadata write landed on another incarnation of {} (czxid 0x{}, ours 0x{})",
                            node.name(), node, Long.toHexString(stat.getCzxid()), Long.toHexString(incarnation));
                    throw new LockLostException("member node " + node + " now belongs to another incarnation; our node is gone");
                }
                adopt(new Landed<>(attempt, stat));
                return;
            }
        }
    }

    /** Under updateLock: our node, at a later version than our last write, holding one of our unsettled attempts. */
    private Landed<M> ownLandedWrite(ZkSession owner, long incarnation) throws InterruptedException {
        Stat stat = new Stat();
        byte[] data;
        try {
            data = zk.curator().getData().storingStatIn(stat).forPath(node.value());
        } catch (KeeperException.NoNodeException gone) {
            return null;
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            throw zk.translate(e, node);
        }
        if (stat.getCzxid() != incarnation || stat.getEphemeralOwner() != owner.id() || stat.getVersion() <= dataVersion) {
            return null;
        }
        Attempt<M> ours = unsettledMatching(data);
        return ours == null ? null : new Landed<>(ours, stat);
    }

    /** Under updateLock: the newest unsettled attempt that wrote exactly {@code data}. */
    private Attempt<M> unsettledMatching(byte[] data) {
        Iterator<Attempt<M>> newestFirst = unsettled.descendingIterator();
        while (newestFirst.hasNext()) {
            Attempt<M> a = newestFirst.next();
            if (Arrays.equals(a.bytes(), data)) {
                return a;
            }
        }
        return null;
    }

    /** Under updateLock: the node holds this attempt of ours; attempts before it are settled. */
    private void adopt(Landed<M> landed) {
        dataVersion = landed.stat().getVersion();
        metadata = landed.attempt().metadata();
        bytes = landed.attempt().bytes();
        while (!unsettled.isEmpty() && unsettled.peekFirst() != landed.attempt()) {
            unsettled.removeFirst();
        }
        unsettled.pollFirst();
    }

    @Override
    public CompletableFuture<State> ended() {
        return ended.copy();
    }

    @Override
    public Registration addListener(Listener listener, Executor executor) {
        // A listener added after the end still hears it, once (as a lease's late listener does).
        return listeners.addThenAsk(new FinalOnce(listener), executor, () -> {
            Snapshot now = state.get();
            return switch (now.state()) {
                case LOST -> l -> l.onLost(this, now.cause());
                case LEFT -> l -> l.onLeft(this);
                default -> null;
            };
        });
    }

    @Override
    public void leave() {
        if (!left.compareAndSet(false, true)) {
            return;
        }
        NodeLease l = lease;
        if (l != null) {
            l.releaseKeepingNode(); // before the delete: its disappearance is our leaving, not a loss
        }
        if (!state().isTerminal()) {
            // Delete first, so that when onLeft runs observers are already being told.
            deleteOwnNode(session, czxid);
        }
        apply(Event.LEAVE, null);
    }

    /** Deletes our node while our session lives; once it has ended, the server has deleted it. */
    private void deleteOwnNode(ZkSession owner, long incarnation) {
        if (owner.state().isTerminal()) {
            return;
        }
        if (owner.state() == SessionState.CONNECTED) {
            try {
                MemberNode.deleteIfOwned(zk, node, owner.id(), incarnation);
                return;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (CoordException e) {
                LOG.debug("member {}: could not delete {} now; retrying on reconnect", node.name(), node, e);
            }
        }
        deleteOnReconnect(owner, incarnation);
    }

    /**
     * Deletes our node once {@code owner} is connected again. The retry starts on the client's event
     * thread (the session listener), so it only sends background requests: a blocking delete there
     * would hold up every lease event of the client while the connection is dark again.
     */
    private void deleteOnReconnect(ZkSession owner, long incarnation) {
        AtomicReference<Registration> retry = new AtomicReference<>();
        Runnable attempt = () -> {
            Registration r = retry.getAndSet(null);
            if (r == null) {
                return; // another wake-up got there first
            }
            r.close();
            if (owner.state().isTerminal()) {
                return;
            }
            MemberNode.deleteIfOwnedInBackground(zk, node, owner.id(), incarnation, gone -> {
                if (!gone) {
                    LOG.debug("member {}: could not delete {} yet; retrying on reconnect", node.name(), node);
                    deleteOnReconnect(owner, incarnation);
                }
            });
        };
        retry.set(owner.addListener(new SessionListener() {
            @Override
            public void onReconnected(CoordSession s) {
                attempt.run();
            }

            @Override
            public void onEnded(CoordSession s, SessionState finalState) {
                Registration r = retry.getAndSet(null);
                if (r != null) {
                    r.close();
                }
            }
        }, zk.events()));
        if (owner.state() == SessionState.CONNECTED) {
            // it reconnected before the listener was in: that reconnect will not come again
            try {
                zk.events().execute(attempt);
            } catch (java.util.concurrent.RejectedExecutionException closing) {
                LOG.debug("member {}: client closing; {} goes with the session", node.name(), node);
            }
        }
    }

    @Override
    public void close() {
        leave();
    }

    @Override
    public String toString() {
        return "Membership[" + node + " " + state() + " session=" + (session == null ? "?" : session.idHex()) + "]";
    }
}
