package io.coord.barrier;

import io.coord.Codec;
import io.coord.CodecException;
import io.coord.CoordException;
import io.coord.CoordPath;
import io.coord.barrier.BarrierStatus.Phase;
import io.coord.barrier.Generation.Members;
import io.coord.barrier.Generation.Seat;
import io.coord.internal.Payloads;
import io.coord.internal.Zk;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reads and the decisions of one barrier, in ZooKeeper. Every decision is one transaction
 * that starts with a check of the root node's version and sets the root's record: two racing
 * decisions about one generation (READY against BROKEN, DONE against BROKEN, two openers of the
 * next generation) can never both commit. The same transaction creates the generation's marker
 * ({@code ready}, {@code done} or {@code broken}), so the markers are exactly the committed
 * decisions.
 */
final class BarrierStore {
    private static final Logger LOG = LoggerFactory.getLogger(BarrierStore.class);
    static final Codec<GenerationRecord> RECORDS = Codec.json(GenerationRecord.class).withLimit(64 * 1024);
    static final Codec<ReadyRecord> READY_RECORDS = Codec.json(ReadyRecord.class);

    /** The data of the {@code ready} marker: the admitted seats, in order. */
    record ReadyRecord(List<String> admitted) {
        ReadyRecord {
            admitted = List.copyOf(admitted);
        }
    }

    /** The root as read: the current record, its version (for compare-and-set) and its last change (server clock). */
    record Root(GenerationRecord record, int version, long mtime) {
    }

    /** One generation's record as a waiter sees it; {@code version} -1 when the root has moved on (no more decisions). */
    record View(GenerationRecord record, int version, long mtime) {
    }

    private final Zk zk;
    private final CoordPath root;
    private final SeatCalls seats;

    BarrierStore(Zk zk, CoordPath root) {
        this.zk = zk;
        this.root = root;
        this.seats = new SeatCalls(this);
    }

    CoordPath root() {
        return root;
    }

    Zk zk() {
        return zk;
    }

    /** The seat calls (pipelined reads, taking and leaving seats) on this barrier. */
    SeatCalls seats() {
        return seats;
    }

    CuratorFramework curator() {
        return zk.curator();
    }

    /**
     * The root's record read after a {@code sync}: whichever server this client talks to, the
     * read sees every decision committed before the call, also one made by another client (an
     * operator's reset, say) that this member heard of only outside ZooKeeper. A plain read from a
     * follower may lag behind the leader; a member must not refuse itself on such a read.
     */
    Root readRootSynced() throws InterruptedException {
        CompletableFuture<CuratorEvent> synced = seats.async(root, cb -> curator().sync().inBackground(cb).forPath(root.value()));
        CuratorEvent answer = SeatCalls.await(synced, System.nanoTime() + zk.client().settings().requestTimeout().toNanos(), root);
        if (SeatCalls.code(answer) != KeeperException.Code.OK) {
            throw seats.failure(answer, root);
        }
        return readRoot(curator(), null);
    }

    /** The root's record, watched with {@code watcher} if not null; null if the barrier was never used. */
    Root readRoot(CuratorFramework via, Watcher watcher) throws InterruptedException {
        Stat stat = new Stat();
        byte[] data;
        try {
            data = zk.call(root, () -> watcher == null
                    ? via.getData().storingStatIn(stat).forPath(root.value())
                    : via.getData().storingStatIn(stat).usingWatcher(watcher).forPath(root.value()));
        } catch (CoordException e) {
            if (e.getCause() instanceof KeeperException.NoNodeException) {
                if (watcher != null) {
                    // learn when the first member creates it
                    zk.call(root, () -> via.checkExists().usingWatcher(watcher).forPath(root.value()));
                }
                return null;
            }
            throw e;
        }
        return new Root(RECORDS.decode(root, data), stat.getVersion(), stat.getMtime());
    }

    /**
     * Generation {@code generation}'s decision as its markers show it, watching the generation's
     * children with {@code watcher} if not null: a marker appearing (ready, done, broken) is a
     * decision. A waiter whose root watch is still armed re-reads this way, setting no watch (see
     * {@link Waiting#reread}): one listing of three names at most, no root data. The root version
     * is not known here ({@link View#version()} is -1): a
     * member that must decide reads the root first. {@code parties} fills the record for the
     * phases that carry none (the member checked them against the root's record when it joined).
     */
    View readGeneration(CuratorFramework via, Watcher watcher, long generation, int parties) throws InterruptedException {
        Generation g = new Generation(root, generation);
        List<String> markers;
        try {
            markers = zk.call(g.path(), () -> watcher == null
                    ? via.getChildren().forPath(g.path().value())
                    : via.getChildren().usingWatcher(watcher).forPath(g.path().value()));
        } catch (CoordException e) {
            if (e.getCause() instanceof KeeperException.NoNodeException) {
                throw new io.coord.BarrierBrokenException("barrier " + root + ": generation " + generation
                        + " is no longer recorded (removed by hand, or cleaned up long after it ended); its outcome cannot be read");
            }
            throw e;
        }
        if (markers.contains(Generation.BROKEN)) {
            CoordPath broken = g.marker(Generation.BROKEN);
            Stat stat = new Stat();
            byte[] data = zk.call(broken, () -> curator().getData().storingStatIn(stat).forPath(broken.value()));
            return new View(RECORDS.decode(broken, data), -1, stat.getMtime());
        }
        Phase phase = markers.contains(Generation.DONE) ? Phase.DONE : markers.contains(Generation.READY) ? Phase.READY : Phase.OPEN;
        return decided(generation, phase, parties);
    }

    /** A view of {@code generation} in {@code phase}, known from its markers (no record, no root version). */
    static View decided(long generation, Phase phase, int parties) {
        return new View(new GenerationRecord(generation, phase, parties, null, null, List.of(), null), -1, 0);
    }

    /** A finished generation's record, read from its markers; null if it has none (or is gone). */
    GenerationRecord readOutcome(long generation) throws InterruptedException {
        Generation g = new Generation(root, generation);
        List<String> markers;
        try {
            markers = zk.call(g.path(), () -> curator().getChildren().forPath(g.path().value()));
        } catch (CoordException e) {
            if (e.getCause() instanceof KeeperException.NoNodeException) {
                return null;
            }
            throw e;
        }
        if (markers.contains(Generation.BROKEN)) {
            CoordPath broken = g.marker(Generation.BROKEN);
            return RECORDS.decode(broken, zk.call(broken, () -> curator().getData().forPath(broken.value())));
        }
        if (markers.contains(Generation.DONE)) {
            CoordPath done = g.marker(Generation.DONE);
            return RECORDS.decode(done, zk.call(done, () -> curator().getData().forPath(done.value())));
        }
        return null;
    }

    /** The admitted seats of a generation that went READY (empty if it did not). */
    List<String> readAdmitted(long generation) throws InterruptedException {
        CoordPath ready = new Generation(root, generation).marker(Generation.READY);
        try {
            return READY_RECORDS.decode(ready, zk.call(ready, () -> curator().getData().forPath(ready.value()))).admitted();
        } catch (CoordException e) {
            if (e.getCause() instanceof KeeperException.NoNodeException || e instanceof CodecException) {
                return List.of();
            }
            throw e;
        }
    }

    /** One listing of the generation's members, watching the children if {@code childWatcher} is not null. */
    Members readMembers(CuratorFramework via, Generation g, Watcher childWatcher) throws InterruptedException {
        Stat stat = new Stat();
        List<String> children = zk.call(g.members(), () -> childWatcher == null
                ? via.getChildren().storingStatIn(stat).forPath(g.members().value())
                : via.getChildren().storingStatIn(stat).usingWatcher(childWatcher).forPath(g.members().value()));
        return Members.parse(children, stat.getCversion(), stat.getNumChildren());
    }

    /** Watches {@code seat}'s node; false if it is already gone (the caller reads again at once). */
    boolean watchSeat(CuratorFramework via, Generation g, Seat seat, Watcher watcher) throws InterruptedException {
        CoordPath path = g.seat(seat.node());
        return zk.call(path, () -> via.checkExists().usingWatcher(watcher).forPath(path.value())) != null;
    }

    /**
     * Opens generation {@code next} for {@code parties}: sets the root's record (creating the root
     * if {@code current} is null) and creates the generation's nodes, in one transaction. Returns
     * the new root version, or -1 if someone else changed the root first.
     */
    int tryOpen(Root current, long next, int parties) throws InterruptedException {
        Generation g = new Generation(root, next);
        GenerationRecord record = GenerationRecord.open(next, parties);
        byte[] data = RECORDS.encode(root, record);
        if (current == null) {
            ensureBarriersNode();
        }
        List<CuratorOp> ops = new ArrayList<>();
        ops.add(current == null
                ? op(() -> curator().transactionOp().create().forPath(root.value(), data))
                : op(() -> curator().transactionOp().setData().withVersion(current.version()).forPath(root.value(), data)));
        ops.add(op(() -> curator().transactionOp().create().forPath(g.path().value(), new byte[0])));
        ops.add(op(() -> curator().transactionOp().create().forPath(g.members().value(), new byte[0])));
        ops.add(op(() -> curator().transactionOp().create().forPath(g.marker(Generation.DECISION).value(), new byte[0])));
        if (!commit(ops, "open generation " + next)) {
            return -1;
        }
        return current == null ? 0 : current.version() + 1;
    }

    /**
     * Records READY for {@code admitted}, as long as the record is still at {@code version} and every
     * admitted seat still exists. {@code decisionNode}: whether the generation has its
     * {@link Generation#DECISION} node (one opened by an earlier Coord has none).
     */
    boolean tryReady(GenerationRecord open, int version, List<Seat> admitted, boolean decisionNode) throws InterruptedException {
        Generation g = new Generation(root, open.generation());
        List<CuratorOp> ops = new ArrayList<>();
        if (decisionNode) {
            ops.add(decideReady(g));
        }
        List<String> names = new ArrayList<>();
        for (Seat seat : admitted) {
            names.add(seat.node());
            ops.add(op(() -> curator().transactionOp().check().forPath(g.seat(seat.node()).value())));
        }
        byte[] data = RECORDS.encode(root, open.ready());
        byte[] list = READY_RECORDS.encode(g.marker(Generation.READY), new ReadyRecord(names));
        ops.add(op(() -> curator().transactionOp().create().forPath(g.marker(Generation.READY).value(), list)));
        ops.add(op(() -> curator().transactionOp().setData().withVersion(version).forPath(root.value(), data)));
        return commit(ops, "record READY of generation " + open.generation());
    }

    /** Records DONE, as long as the record is still at {@code version}. */
    boolean tryDone(GenerationRecord ready, int version) throws InterruptedException {
        Generation g = new Generation(root, ready.generation());
        byte[] data = RECORDS.encode(root, ready.done());
        return commit(List.of(
                op(() -> curator().transactionOp().setData().withVersion(version).forPath(root.value(), data)),
                op(() -> curator().transactionOp().create().forPath(g.marker(Generation.DONE).value(), data))),
                "record DONE of generation " + ready.generation());
    }

    /**
     * Records {@code broken} (the broken record of a generation at {@code version}); false if the
     * record moved first. A break during enter also deletes the generation's
     * {@link Generation#DECISION} node, if it has one ({@code decisionNode}): the event that wakes
     * every enter waiter.
     */
    boolean tryBreak(GenerationRecord broken, int version, boolean decisionNode) throws InterruptedException {
        Generation g = new Generation(root, broken.generation());
        byte[] data = RECORDS.encode(root, broken);
        List<CuratorOp> ops = new ArrayList<>();
        ops.add(op(() -> curator().transactionOp().setData().withVersion(version).forPath(root.value(), data)));
        ops.add(op(() -> curator().transactionOp().create().forPath(g.marker(Generation.BROKEN).value(), data)));
        if (decisionNode && broken.brokenIn() == Phase.OPEN) {
            ops.add(op(() -> curator().transactionOp().delete().forPath(g.marker(Generation.DECISION).value())));
        }
        return commit(ops, "record BROKEN of generation " + broken.generation());
    }

    /**
     * READY's operation on the decision node, first in its transaction: ZooKeeper sends a
     * transaction's watch events in the order of its operations, so this one (the fact each enter
     * waiter returns on, see {@link DecisionWatch}) goes out before any other.
     */
    CuratorOp decideReady(Generation g) {
        return op(() -> curator().transactionOp().setData().forPath(g.marker(Generation.DECISION).value(), new byte[0]));
    }

    /** Runs a decision; false when it lost a race (the version moved, a node is gone or already there). */
    boolean commit(List<CuratorOp> ops, String what) throws InterruptedException {
        Payloads.checkTransaction(ops, Payloads.TRANSACTION_LIMIT);
        try {
            zk.call(root, () -> curator().transaction().forOperations(ops));
            return true;
        } catch (CoordException e) {
            Throwable c = e.getCause();
            if (c instanceof KeeperException.BadVersionException || c instanceof KeeperException.NoNodeException
                    || c instanceof KeeperException.NodeExistsException) {
                LOG.debug("{} of {} lost a race: {}", what, root, c.toString());
                return false;
            }
            throw e;
        }
    }

    private void ensureBarriersNode() throws InterruptedException {
        CoordPath parent = root.parent();
        try {
            zk.call(parent, () -> curator().create().creatingParentsIfNeeded().forPath(parent.value(), new byte[0]));
        } catch (CoordException e) {
            if (!(e.getCause() instanceof KeeperException.NodeExistsException)) {
                throw e;
            }
        }
    }

    /** Builds one transaction operation (Curator's builders declare {@code throws Exception}). */
    CuratorOp op(io.coord.internal.ZkCall<CuratorOp> build) {
        return zk.callUninterruptibly(root, build);
    }
}
