package io.coord.barrier;

import io.coord.Codec;
import io.coord.CodecException;
import io.coord.ConnectionLostException;
import io.coord.CoordException;
import io.coord.CoordPath;
import io.coord.barrier.BarrierStatus.Phase;
import io.coord.barrier.Generation.Members;
import io.coord.barrier.Generation.Seat;
import io.coord.internal.Payloads;
import io.coord.internal.Zk;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.BackgroundCallback;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.curator.framework.api.transaction.CuratorTransactionResult;
import org.apache.zookeeper.CreateMode;
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

    BarrierStore(Zk zk, CoordPath root) {
        this.zk = zk;
        this.root = root;
    }

    CoordPath root() {
        return root;
    }

    Zk zk() {
        return zk;
    }

    private CuratorFramework curator() {
        return zk.curator();
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
     * children with {@code watcher}: a marker appearing (ready, done, broken) is the change a waiter
     * waits for. This is every waiter's re-read after a wake-up: one listing of three names at
     * most, no root data. The root version is not known here ({@link View#version()} is -1): a
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
        if (!commit(ops, "open generation " + next)) {
            return -1;
        }
        return current == null ? 0 : current.version() + 1;
    }

    /** Records READY for {@code admitted}, as long as the record is still at {@code version} and every admitted seat still exists. */
    boolean tryReady(GenerationRecord open, int version, List<Seat> admitted) throws InterruptedException {
        Generation g = new Generation(root, open.generation());
        List<CuratorOp> ops = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (Seat seat : admitted) {
            names.add(seat.node());
            ops.add(op(() -> curator().transactionOp().check().forPath(g.seat(seat.node()).value())));
        }
        byte[] data = RECORDS.encode(root, open.ready());
        byte[] list = READY_RECORDS.encode(g.marker(Generation.READY), new ReadyRecord(names));
        ops.add(op(() -> curator().transactionOp().setData().withVersion(version).forPath(root.value(), data)));
        ops.add(op(() -> curator().transactionOp().create().forPath(g.marker(Generation.READY).value(), list)));
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

    /** Records {@code broken} (the broken record of a generation at {@code version}); false if the record moved first. */
    boolean tryBreak(GenerationRecord broken, int version) throws InterruptedException {
        Generation g = new Generation(root, broken.generation());
        byte[] data = RECORDS.encode(root, broken);
        return commit(List.of(
                op(() -> curator().transactionOp().setData().withVersion(version).forPath(root.value(), data)),
                op(() -> curator().transactionOp().create().forPath(g.marker(Generation.BROKEN).value(), data))),
                "record BROKEN of generation " + broken.generation());
    }

    // ---- pipelined calls: sent back to back on one session, so ZooKeeper applies them in order ----

    /** One background call: hands Curator the callback. */
    @FunctionalInterface
    interface Call {
        void start(BackgroundCallback callback) throws Exception;
    }

    /** Starts one background call; its event (any result code) completes the future. */
    CompletableFuture<CuratorEvent> async(CoordPath path, Call call) {
        CompletableFuture<CuratorEvent> result = new CompletableFuture<>();
        try {
            call.start((client, event) -> result.complete(event));
        } catch (Exception e) {
            result.completeExceptionally(zk.translate(e, path));
        }
        return result;
    }

    /** The event of a background call, waiting at most until {@code deadlineNanos}. */
    static CuratorEvent await(CompletableFuture<CuratorEvent> call, long deadlineNanos, CoordPath path) throws InterruptedException {
        try {
            return call.get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof CoordException ce ? ce : new CoordException("call on " + path + " failed", e.getCause());
        } catch (TimeoutException e) {
            throw new ConnectionLostException("no answer from ZooKeeper for " + path + " in time");
        }
    }

    /** The result code of an event, as ZooKeeper's enum. */
    static KeeperException.Code code(CuratorEvent event) {
        return KeeperException.Code.get(event.getResultCode());
    }

    /** The Coord exception for a failed event. */
    CoordException failure(CuratorEvent event, CoordPath path) {
        return zk.translate(KeeperException.create(code(event), event.getPath() == null ? path.value() : event.getPath()), path);
    }

    /**
     * Takes a seat: one transaction that bumps the members node's data version (every arrival
     * does, so a member that read the seats can tell, by compare-and-set, that nobody arrived
     * since) and creates the seat (ephemeral-sequential; not protected: the caller's unique name is
     * its protection). The seat's czxid is the transaction's zxid: the set's {@code mzxid}.
     */
    CompletableFuture<CuratorEvent> takeSeat(Generation g, String name) {
        CoordPath base = g.members().child(name);
        List<CuratorOp> ops = List.of(
                op(() -> curator().transactionOp().setData().forPath(g.members().value(), new byte[0])),
                op(() -> curator().transactionOp().create().withMode(CreateMode.EPHEMERAL_SEQUENTIAL).forPath(base.value(), new byte[0])));
        return async(base, cb -> curator().transaction().inBackground(cb).forOperations(ops));
    }

    /** A seat just made: its node name and czxid. */
    record Taken(String node, long czxid) {
    }

    /** The seat from a {@link #takeSeat} (or {@link #tryComplete}) answer. */
    static Taken taken(List<CuratorTransactionResult> results) {
        long czxid = -1;
        String node = null;
        for (CuratorTransactionResult r : results) {
            if (r.getType() == org.apache.curator.framework.api.transaction.OperationType.SET_DATA && czxid < 0) {
                czxid = r.getResultStat().getMzxid();
            } else if (r.getType() == org.apache.curator.framework.api.transaction.OperationType.CREATE
                    && r.getForPath().contains("/" + Generation.MEMBERS + "/")) {
                String path = r.getResultPath();
                node = path.substring(path.lastIndexOf('/') + 1);
            }
        }
        if (node == null || czxid < 0) {
            throw new IllegalStateException("a seat's transaction answered without its seat: " + results);
        }
        return new Taken(node, czxid);
    }

    /**
     * The arrival that completes the count, in one transaction: nobody else arrived since
     * {@code membersVersion} was read, the other {@code parties - 1} seats still exist, our seat
     * is created (so it gets sequence parties-1), and READY is recorded at {@code rootVersion}
     * with the ready marker. Null if any of it no longer holds (then join the ordinary way).
     */
    List<CuratorTransactionResult> tryComplete(Generation g, GenerationRecord open, int rootVersion, int membersVersion,
                                               List<Seat> others, String name, long seq) throws InterruptedException {
        CoordPath base = g.members().child(name);
        List<CuratorOp> ops = new ArrayList<>();
        ops.add(op(() -> curator().transactionOp().setData().withVersion(membersVersion).forPath(g.members().value(), new byte[0])));
        List<String> admitted = new ArrayList<>();
        for (Seat seat : others) {
            admitted.add(seat.node());
            ops.add(op(() -> curator().transactionOp().check().forPath(g.seat(seat.node()).value())));
        }
        admitted.add(name + String.format("%010d", seq));
        ops.add(op(() -> curator().transactionOp().create().withMode(CreateMode.EPHEMERAL_SEQUENTIAL).forPath(base.value(), new byte[0])));
        byte[] data = RECORDS.encode(root, open.ready());
        byte[] list = READY_RECORDS.encode(g.marker(Generation.READY), new ReadyRecord(admitted));
        ops.add(op(() -> curator().transactionOp().setData().withVersion(rootVersion).forPath(root.value(), data)));
        ops.add(op(() -> curator().transactionOp().create().forPath(g.marker(Generation.READY).value(), list)));
        Payloads.checkTransaction(ops, Payloads.TRANSACTION_LIMIT);
        try {
            return zk.call(root, () -> curator().transaction().forOperations(ops));
        } catch (CoordException e) {
            Throwable c = e.getCause();
            if (c instanceof KeeperException.BadVersionException || c instanceof KeeperException.NoNodeException
                    || c instanceof KeeperException.NodeExistsException) {
                return null;
            }
            throw e;
        }
    }

    /**
     * The last member's leave, in one transaction: our seat is still ours (the fence), we leave
     * (our left marker) and DONE is recorded at {@code readyVersion} with the done marker. False if
     * the record moved (the generation broke) or our seat is gone.
     */
    boolean tryLeaveLast(Generation g, CoordPath seat, GenerationRecord ready, int readyVersion, long seq, String memberId)
            throws InterruptedException {
        byte[] data = RECORDS.encode(root, ready.done());
        return commit(List.of(
                op(() -> curator().transactionOp().check().forPath(seat.value())),
                op(() -> curator().transactionOp().create().forPath(g.leftMarker(seq).value(), memberId.getBytes(StandardCharsets.UTF_8))),
                op(() -> curator().transactionOp().setData().withVersion(readyVersion).forPath(root.value(), data)),
                op(() -> curator().transactionOp().create().forPath(g.marker(Generation.DONE).value(), data))),
                "record DONE of generation " + ready.generation() + " while leaving last");
    }

    CompletableFuture<CuratorEvent> readMembersAsync(CuratorFramework via, Generation g, Watcher childWatcher) {
        CoordPath members = g.members();
        return async(members, cb -> {
            if (childWatcher == null) {
                via.getChildren().inBackground(cb).forPath(members.value());
            } else {
                via.getChildren().usingWatcher(childWatcher).inBackground(cb).forPath(members.value());
            }
        });
    }

    CompletableFuture<CuratorEvent> readRootAsync(CuratorFramework via, Watcher watcher) {
        return async(root, cb -> via.getData().usingWatcher(watcher).inBackground(cb).forPath(root.value()));
    }

    /** The members from a {@link #readMembersAsync} event. */
    Members members(CuratorEvent event, Generation g) {
        if (code(event) != KeeperException.Code.OK) {
            throw failure(event, g.members());
        }
        Stat stat = event.getStat();
        return Members.parse(event.getChildren(), stat.getCversion(), stat.getNumChildren());
    }

    /** The members node's data version in a {@link #readMembersAsync} event (it counts arrivals). */
    static int membersVersion(CuratorEvent event) {
        return event.getStat().getVersion();
    }

    /** The root from a {@link #readRootAsync} event; null if there is none. */
    Root root(CuratorEvent event) {
        if (code(event) == KeeperException.Code.NONODE) {
            return null;
        }
        if (code(event) != KeeperException.Code.OK) {
            throw failure(event, root);
        }
        return new Root(RECORDS.decode(root, event.getData()), event.getStat().getVersion(), event.getStat().getMtime());
    }

    /**
     * Leaves: one transaction that checks our seat (the fence: we still hold it), checks that the
     * record is still the READY one at {@code readyVersion}, and creates our left marker.
     */
    CompletableFuture<CuratorEvent> leave(Generation g, CoordPath seat, int readyVersion, long seq, String memberId) {
        byte[] who = memberId.getBytes(StandardCharsets.UTF_8);
        List<CuratorOp> ops = List.of(
                op(() -> curator().transactionOp().check().forPath(seat.value())),
                op(() -> curator().transactionOp().check().withVersion(readyVersion).forPath(root.value())),
                op(() -> curator().transactionOp().create().forPath(g.leftMarker(seq).value(), who)));
        return async(seat, cb -> curator().transaction().inBackground(cb).forOperations(ops));
    }

    /** Our seat's node, found by its unique name after a create whose answer was lost; null if it is not there. */
    String findSeat(Generation g, String uniquePart) throws InterruptedException {
        List<String> children = zk.call(g.members(), () -> curator().getChildren().forPath(g.members().value()));
        for (String child : children) {
            if (child.contains(uniquePart)) {
                return child;
            }
        }
        return null;
    }

    Stat stat(CoordPath path) throws InterruptedException {
        return zk.call(path, () -> curator().checkExists().forPath(path.value()));
    }

    /** Runs a decision; false when it lost a race (the version moved, a node is gone or already there). */
    private boolean commit(List<CuratorOp> ops, String what) throws InterruptedException {
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
    private CuratorOp op(io.coord.internal.ZkCall<CuratorOp> build) {
        return zk.callUninterruptibly(root, build);
    }
}
