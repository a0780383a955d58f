package io.coord.barrier;

import io.coord.BarrierBrokenException;
import io.coord.CoordException;
import io.coord.CoordMetrics;
import io.coord.CoordPath;
import io.coord.barrier.BarrierStatus.Phase;
import io.coord.barrier.BarrierStore.Root;
import io.coord.barrier.Generation.Members;
import io.coord.barrier.Generation.Seat;
import io.coord.internal.ForeignNodeWarnings;
import io.coord.internal.NodeLease;
import io.coord.internal.Zk;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One member of one double barrier: finds (or opens) the current generation, takes a seat in it,
 * and hands the waiting to {@link Waiting}. Also the operator's reset and the clean-up of old
 * generations.
 */
final class ZkDoubleBarrier implements DoubleBarrier {
    private static final Logger LOG = LoggerFactory.getLogger(ZkDoubleBarrier.class);
    private static final DateTimeFormatter TIME = DateTimeFormatter.ISO_LOCAL_DATE_TIME.withZone(ZoneOffset.UTC);

    private final Zk zk;
    private final String name;
    private final int parties;
    private final BarrierOptions options;
    private final BarrierStore store;
    private final AtomicReference<ZkBarrierSeat> current = new AtomicReference<>();
    private final ForeignNodeWarnings foreign;
    private volatile boolean rootChecked;
    /**
     * Starts the unique part of every seat this member makes: a seat carrying it that this member
     * does not hold was made on a session of this member's that has ended (see {@link #lostSeat}).
     */
    private final String incarnation = UUID.randomUUID().toString().replace("-", "").substring(0, Generation.UNIQUE_LENGTH / 2);
    private volatile long nextGuess = -1;

    ZkDoubleBarrier(Zk zk, String name, int parties, BarrierOptions options) {
        this.zk = zk;
        this.name = name;
        this.parties = parties;
        this.options = options;
        this.store = new BarrierStore(zk, Generation.rootOf(name));
        this.foreign = new ForeignNodeWarnings(LOG, "barrier '" + name + "'");
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public int parties() {
        return parties;
    }

    @Override
    public String memberId() {
        return options.memberId();
    }

    BarrierStore store() {
        return store;
    }

    CoordMetrics metrics() {
        return zk.client().metrics();
    }

    @Override
    public BarrierSeat enter(Duration timeout) throws InterruptedException {
        requireNotIn(timeout);
        return new Entering(this, timeout).enter();
    }

    @Override
    public CompletableFuture<BarrierSeat> enterAsync(Duration timeout, Executor executor) {
        requireExecutor(executor);
        requireNotIn(timeout);
        return new Entering(this, timeout).enterAsync(executor);
    }

    private void requireNotIn(Duration timeout) {
        requirePositive(timeout, "enter");
        ZkBarrierSeat held = current.get();
        if (held != null) {
            throw new IllegalStateException("member " + memberId() + " is still in generation " + held.generation()
                    + " of barrier " + name + "; leave it (or close its seat) before entering again");
        }
    }

    static void requireExecutor(Executor executor) {
        if (executor == null) {
            throw new IllegalArgumentException("executor must not be null: it runs the future's completion");
        }
    }

    /**
     * Before this barrier object's first enter: refuse to enter beside Curator's
     * DistributedDoubleBarrier nodes (every time, until they are gone), and log any other foreign
     * child of the root once. Once per object, not per round: a rolling deploy starts new members
     * beside the old ones, and a member's later rounds would only pay a round trip for it.
     */
    void checkRootOnce() throws InterruptedException {
        if (rootChecked) {
            return;
        }
        List<String> children;
        try {
            children = zk.call(store.root(), () -> zk.curator().getChildren().forPath(store.root().value()));
        } catch (CoordException e) {
            if (!(e.getCause() instanceof KeeperException.NoNodeException)) {
                throw e;
            }
            children = List.of();
        }
        List<String> curators = children.stream().filter(RootChildren::isCuratorNode).sorted().toList();
        if (!curators.isEmpty()) {
            throw RootChildren.curatorBarrierAt(name, store.root(), curators);
        }
        foreign.check(store.root(), children, RootChildren::isGeneration, "generations (10 digits)");
        rootChecked = true;
    }

    @Override
    public void leave(Duration timeout) throws InterruptedException {
        ZkBarrierSeat seat = current.get();
        if (seat == null) {
            throw new IllegalStateException("member " + memberId() + " has not entered barrier " + name);
        }
        seat.leave(timeout);
    }

    @Override
    public CompletableFuture<Void> leaveAsync(Duration timeout, Executor executor) {
        ZkBarrierSeat seat = current.get();
        if (seat == null) {
            throw new IllegalStateException("member " + memberId() + " has not entered barrier " + name);
        }
        return seat.leaveAsync(timeout, executor);
    }

    /** Called by {@link BarrierSeat#leave}. */
    void leave(ZkBarrierSeat seat, Duration timeout) throws InterruptedException {
        requirePositive(timeout, "leave");
        new Leaving(this, seat, timeout).leave();
    }

    /** Called by {@link BarrierSeat#leaveAsync}. */
    CompletableFuture<Void> leaveAsync(ZkBarrierSeat seat, Duration timeout, Executor executor) {
        requirePositive(timeout, "leave");
        return new Leaving(this, seat, timeout).leaveAsync(executor);
    }

    void entered(ZkBarrierSeat seat) {
        current.set(seat);
    }

    void forget(ZkBarrierSeat seat) {
        current.compareAndSet(seat, null);
    }

    @Override
    public BarrierStatus status() throws InterruptedException {
        return StatusReader.read(zk, name);
    }

    @Override
    public boolean reset() throws InterruptedException {
        return reset(zk, name);
    }

    static boolean reset(Zk zk, String name) throws InterruptedException {
        BarrierStore store = new BarrierStore(zk, Generation.rootOf(name));
        // Synced: the caller may have learnt of the break from a member, before this client's
        // server applied it; an unsynced read could then say "not broken" and reset nothing.
        Root root = store.readRootSynced();
        if (root == null || root.record().phase() != Phase.BROKEN) {
            return false;
        }
        long next = root.record().generation() + 1;
        boolean opened = store.tryOpen(root, next, root.record().parties()) >= 0;
        if (opened) {
            LOG.info("barrier {}: broken generation {} reset; generation {} is open", name, next - 1, next);
        }
        return opened;
    }

    /**
     * The generation to join, read from the root: a DONE generation (or none) is followed by a new
     * one, opened here unless someone else is first (then -1: read again); a BROKEN one fails fast
     * (late arrival); a READY one is full (this member is one more than the parties).
     */
    long generationToJoin(Root root) throws InterruptedException {
        if (root == null || root.record().phase() == Phase.DONE) {
            long next = root == null ? 1 : root.record().generation() + 1;
            if (store.tryOpen(root, next, parties) < 0) {
                return -1;
            }
            removeOldGenerations(next);
            return next;
        }
        GenerationRecord record = root.record();
        if (record.phase() == Phase.BROKEN || record.phase() == Phase.READY) {
            // A refusal is decided on a synced read only. This client's server may lag behind the
            // leader: right after an operator's reset (or the next generation's opening) it can
            // still show the broken (or full) generation, and refusing on that would turn away a
            // member the open generation waits for, and break that generation by its timeout.
            Root synced = store.readRootSynced();
            if (synced == null || synced.version() != root.version()) {
                return -1; // it moved on: read again
            }
        }
        if (record.phase() == Phase.BROKEN) {
            throw broken(record, root.mtime(), lateArrival());
        }
        if (record.phase() == Phase.READY) {
            Seat own = lostSeat(admittedNotLeft(record.generation()));
            if (own != null) {
                return breakForLostSeat(record, root.version(), own);
            }
            throw new BarrierBrokenException("barrier " + name + " generation " + record.generation() + " already has all its "
                    + record.parties() + " parties (entered since " + time(root.mtime()) + " UTC); member " + memberId()
                    + " would be one more than the parties and is refused");
        }
        return record.generation();
    }

    /** The seats generation {@code generation} admitted that have not left. */
    private List<Seat> admittedNotLeft(long generation) throws InterruptedException {
        Generation g = new Generation(store.root(), generation);
        Members members = store.readMembers(zk.curator(), g, null);
        List<Seat> out = new ArrayList<>();
        for (String node : store.readAdmitted(generation)) {
            Generation.parseSeat(node).filter(s -> !members.left().contains(s.seq())).ifPresent(out::add);
        }
        return out;
    }

    /** The unique part of a new seat's name: this member's prefix, then 16 random hex digits. */
    String newUnique() {
        return incarnation + UUID.randomUUID().toString().replace("-", "").substring(0, Generation.UNIQUE_LENGTH / 2);
    }

    /**
     * Among {@code seats} of a generation this member is only now joining, one it made itself, or
     * null. Such a seat was taken on a session that has ended (Curator gave it up, by its own
     * timer or on an expiry, while the create's answer was lost or before the wait was over) or
     * is being deleted: the server keeps an ended session's seat until it expires that session,
     * up to a session timeout later. It counts as this member in the generation, yet can never
     * leave it.
     */
    Seat lostSeat(Collection<Seat> seats) {
        for (Seat s : seats) {
            if (s.unique().startsWith(incarnation)) {
                return s;
            }
        }
        return null;
    }

    /**
     * Breaks generation {@code record} (at root version {@code version}) for this member's
     * {@link #lostSeat}: waiting for the server to drop that seat would only break it later (a
     * seat that vanishes breaks its generation), after the others had counted this member twice
     * in enter or waited for it in leave. Throws the break; returns -1 if the record moved first
     * (read again).
     */
    long breakForLostSeat(GenerationRecord record, int version, Seat seat) throws InterruptedException {
        String why = "member " + memberId() + " is back on a new session, but seat #" + seat.seq() + " in this generation"
                + " was taken on its session that ended (the server keeps that seat until it expires the session): the"
                + " generation cannot " + (record.phase() == Phase.OPEN ? "pass" : "finish") + " with it";
        GenerationRecord broken = record.broken(why, List.of(seat.label()), memberId());
        if (!store.tryBreak(broken, version, true)) {
            return -1;
        }
        recordedBreak(broken);
        throw broken(broken, 0, null);
    }

    String lateArrival() {
        return "it broke before member " + memberId() + " arrived (late arrival); reset the barrier (DoubleBarrier.reset,"
                + " or `coord barrier reset " + name + "`) to start a new generation";
    }

    /** The generation this member expects to join next (the one after its last), or -1 if unknown. */
    long guess() {
        return nextGuess;
    }

    void guess(long generation) {
        nextGuess = generation;
    }

    /** A seat found again (after a lost answer): checks that our current session owns it, then starts its lease. */
    ZkBarrierSeat seat(Generation g, String node, org.apache.zookeeper.data.Stat stat) {
        return seat(g, node, stat.getCzxid(), stat.getEphemeralOwner());
    }

    /**
     * A seat made by session {@code owner}: checks that it is our current session, then starts its
     * lease (token: the seat's czxid).
     */
    ZkBarrierSeat seat(Generation g, String node, long czxid, long owner) {
        io.coord.internal.ZkSession session = zk.sessions().current();
        CoordPath path = g.seat(node);
        if (session == null || session.id() != owner || session.state().isTerminal()) {
            // made by a session we no longer hold: it vanishes with that session (and the
            // generation notices); never adopt it
            throw new io.coord.SessionExpiredException("seat " + path + " belongs to session 0x"
                    + Long.toHexString(owner) + ", which has ended");
        }
        long seq = Generation.parseSeat(node).orElseThrow(() -> new IllegalStateException("unexpected seat name " + path)).seq();
        NodeLease lease = new NodeLease(zk, session, new io.coord.FencingToken(czxid, path));
        return new ZkBarrierSeat(this, lease, g.number(), seq);
    }

    /**
     * Removes generations older than the last {@code keepGenerations}: each in one transaction
     * (its left markers, any seat left behind, its markers, itself). Best effort: a failure leaves
     * them for the next opener.
     */
    private void removeOldGenerations(long opened) {
        long oldestKept = opened - options.keepGenerations();
        if (oldestKept <= 1) {
            return;
        }
        try {
            List<String> children = zk.call(store.root(), () -> zk.curator().getChildren().forPath(store.root().value()));
            for (String child : children) {
                long number = Generation.parseNumber(child);
                if (number >= 1 && number < oldestKept) {
                    removeGeneration(new Generation(store.root(), number));
                }
            }
        } catch (CoordException e) {
            LOG.debug("barrier {}: could not remove old generations (will retry on the next one)", name, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void removeGeneration(Generation g) throws InterruptedException {
        List<CuratorOp> ops = new ArrayList<>();
        List<String> markers = zk.call(g.path(), () -> zk.curator().getChildren().forPath(g.path().value()));
        if (markers.contains(Generation.MEMBERS)) {
            List<String> members = zk.call(g.members(), () -> zk.curator().getChildren().forPath(g.members().value()));
            for (String m : members) {
                CoordPath p = g.members().child(m);
                ops.add(zk.call(p, () -> zk.curator().transactionOp().delete().forPath(p.value())));
            }
        }
        for (String m : markers) {
            CoordPath p = g.path().child(m);
            ops.add(zk.call(p, () -> zk.curator().transactionOp().delete().forPath(p.value())));
        }
        ops.add(zk.call(g.path(), () -> zk.curator().transactionOp().delete().forPath(g.path().value())));
        try {
            zk.call(g.path(), () -> zk.curator().transaction().forOperations(ops));
        } catch (CoordException e) {
            if (!(e.getCause() instanceof KeeperException.NoNodeException || e.getCause() instanceof KeeperException.NotEmptyException)) {
                throw e;
            }
        }
    }

    /** Counts a break this member recorded: once per broken generation across all members. */
    void recordedBreak(GenerationRecord broken) {
        metrics().increment("coord.barrier.broken", "barrier", name, "phase", broken.brokenIn() == Phase.OPEN ? "enter" : "leave");
        LOG.warn("barrier {} generation {} BROKEN by {}: {} {}", name, broken.generation(), memberId(), broken.reason(),
                broken.failed().isEmpty() ? "" : broken.failed());
    }

    /** The exception every waiter of a broken generation gets; {@code context} adds this member's angle. */
    BarrierBrokenException broken(GenerationRecord record, long mtime, String context) {
        Objects.requireNonNull(record.reason(), "reason");
        StringBuilder text = new StringBuilder("barrier ").append(name).append(" generation ").append(record.generation())
                .append(" is broken (during ").append(record.brokenIn() == Phase.OPEN ? "enter" : "leave");
        if (mtime > 0) {
            text.append(", since ").append(time(mtime)).append(" UTC");
        }
        text.append("): ").append(record.reason());
        if (!record.failed().isEmpty()) {
            text.append("; failed or missing: ").append(String.join(", ", record.failed()));
        }
        if (record.by() != null) {
            text.append(" [recorded by ").append(record.by()).append(']');
        }
        if (context != null) {
            text.append("; ").append(context);
        }
        return new BarrierBrokenException(text.toString());
    }

    static String time(long epochMillis) {
        return epochMillis <= 0 ? "?" : TIME.format(Instant.ofEpochMilli(epochMillis));
    }

    static void requirePositive(Duration timeout, String what) {
        if (timeout == null) {
            throw new IllegalArgumentException(what + " timeout must not be null");
        }
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException(what + " timeout must be > 0, got " + timeout);
        }
    }

    @Override
    public String toString() {
        return "DoubleBarrier[" + name + " parties=" + parties + " member=" + memberId() + "]";
    }
}
