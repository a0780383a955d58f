package io.coord.barrier;

import io.coord.ConnectionLostException;
import io.coord.CoordException;
import io.coord.CoordPath;
import io.coord.barrier.Generation.Members;
import io.coord.barrier.Generation.Seat;
import io.coord.internal.Background;
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
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.curator.framework.api.transaction.CuratorTransactionResult;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;

/**
 * The calls around seats: taking one (and, for the arrival that completes the count, taking it
 * together with READY), leaving (and, for the last one, leaving together with DONE), and the
 * looks that go with them. The looks are pipelined: sent back to back on one session, so
 * ZooKeeper answers them in order (a listing sent after a create includes the new seat) and a
 * batch costs one round trip.
 */
final class SeatCalls {
    private final BarrierStore store;
    private final Zk zk;
    private final CoordPath root;

    SeatCalls(BarrierStore store) {
        this.store = store;
        this.zk = store.zk();
        this.root = store.root();
    }

    /** Starts one background call; its event (any result code) completes the future. */
    CompletableFuture<CuratorEvent> async(CoordPath path, Background.Call call) {
        return Background.call(zk, path, call);
    }

    /** The event of a background call, waiting at most until {@code deadlineNanos}. */
    static <T> T await(CompletableFuture<T> call, long deadlineNanos, CoordPath path) throws InterruptedException {
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
        return Background.code(event);
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
    CompletableFuture<Zk.MultiAnswer> takeSeat(Generation g, String name) {
        CoordPath base = g.members().child(name);
        List<CuratorOp> ops = List.of(
                store.op(() -> store.curator().transactionOp().setData().forPath(g.members().value(), new byte[0])),
                store.op(() -> store.curator().transactionOp().create().withMode(CreateMode.EPHEMERAL_SEQUENTIAL).forPath(base.value(), new byte[0])));
        // Sent once: Curator re-sends a background transaction after a lost reply, and a seat is
        // sequential, so the re-send would take a second seat for one member (the barrier would
        // count it twice and pass early). A lost answer is adopted by the unique name instead.
        return zk.multiOnceAsync(base, ops);
    }

    /** The seat from a {@link #takeSeat} answer. */
    static Taken taken(Zk.MultiAnswer answer) {
        long czxid = -1;
        String node = null;
        for (OpResult r : answer.results()) {
            if (r instanceof OpResult.SetDataResult set && czxid < 0) {
                czxid = set.getStat().getMzxid();
            } else if (r instanceof OpResult.CreateResult created) {
                String path = created.getPath();
                node = path.substring(path.lastIndexOf('/') + 1);
            }
        }
        if (node == null || czxid < 0) {
            throw new IllegalStateException("a seat's transaction answered without its seat: " + answer);
        }
        return new Taken(node, czxid);
    }

    /** The Coord exception for a failed {@link #takeSeat}. */
    CoordException failure(Zk.MultiAnswer answer, CoordPath path) {
        return zk.translate(KeeperException.create(answer.code(), path.value()), path);
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
        ops.add(store.decideReady(g));
        ops.add(store.op(() -> store.curator().transactionOp().setData().withVersion(membersVersion).forPath(g.members().value(), new byte[0])));
        List<String> admitted = new ArrayList<>();
        for (Seat seat : others) {
            admitted.add(seat.node());
            ops.add(store.op(() -> store.curator().transactionOp().check().forPath(g.seat(seat.node()).value())));
        }
        admitted.add(name + String.format("%010d", seq));
        byte[] data = BarrierStore.RECORDS.encode(root, open.ready());
        byte[] list = BarrierStore.READY_RECORDS.encode(g.marker(Generation.READY), new BarrierStore.ReadyRecord(admitted));
        ops.add(store.op(() -> store.curator().transactionOp().create().forPath(g.marker(Generation.READY).value(), list)));
        ops.add(store.op(() -> store.curator().transactionOp().create().withMode(CreateMode.EPHEMERAL_SEQUENTIAL).forPath(base.value(), new byte[0])));
        ops.add(store.op(() -> store.curator().transactionOp().setData().withVersion(rootVersion).forPath(root.value(), data)));
        Payloads.checkTransaction(ops, Payloads.TRANSACTION_LIMIT);
        List<OpResult> results;
        try {
            // Sent once: a Curator retry after a lost reply would fail at the version check and the
            // caller would then take a second seat beside the one this transaction made.
            results = zk.multiOnce(root, ops);
        } catch (KeeperException e) {
            if (Zk.indeterminate(e)) {
                throw new ConnectionLostException("the arrival that completes barrier " + root + " may or may not have"
                        + " committed: " + e.code() + " before its answer; its seat is looked for by name");
            }
            if (e instanceof KeeperException.BadVersionException || e instanceof KeeperException.NoNodeException
                    || e instanceof KeeperException.NodeExistsException) {
                return null;
            }
            throw zk.translate(e, root);
        }
        List<CuratorTransactionResult> out = new ArrayList<>(results.size());
        for (int i = 0; i < results.size(); i++) {
            OpResult r = results.get(i);
            var typed = ops.get(i).getTypeAndPath();
            String resultPath = r instanceof OpResult.CreateResult c ? c.getPath() : typed.getForPath();
            Stat stat = r instanceof OpResult.SetDataResult d ? d.getStat() : r instanceof OpResult.CreateResult c ? c.getStat() : null;
            out.add(new CuratorTransactionResult(typed.getType(), typed.getForPath(), resultPath, stat));
        }
        return out;
    }

    /**
     * The last member's leave, in one transaction: our seat is still ours (the fence), we leave
     * (our left marker) and DONE is recorded at {@code readyVersion} with the done marker. False if
     * the record moved (the generation broke) or our seat is gone.
     */
    boolean tryLeaveLast(Generation g, CoordPath seat, GenerationRecord ready, int readyVersion, long seq, String memberId)
            throws InterruptedException {
        byte[] data = BarrierStore.RECORDS.encode(root, ready.done());
        return store.commit(List.of(
                store.op(() -> store.curator().transactionOp().check().forPath(seat.value())),
                store.op(() -> store.curator().transactionOp().create().forPath(g.leftMarker(seq).value(), memberId.getBytes(StandardCharsets.UTF_8))),
                store.op(() -> store.curator().transactionOp().setData().withVersion(readyVersion).forPath(root.value(), data)),
                store.op(() -> store.curator().transactionOp().create().forPath(g.marker(Generation.DONE).value(), data))),
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

    /**
     * Reads the root, setting {@code rootWatch} unless it is null; an answer with the data arms it
     * (in the callback, on the client's event thread: before any event of that watch is delivered).
     */
    CompletableFuture<CuratorEvent> readRootAsync(CuratorFramework via, RootWatch rootWatch) {
        if (rootWatch == null) {
            return async(root, cb -> via.getData().inBackground(cb).forPath(root.value()));
        }
        long before = rootWatch.mark();
        CompletableFuture<CuratorEvent> result = new CompletableFuture<>();
        try {
            via.getData().usingWatcher(rootWatch).inBackground((client, event) -> {
                if (code(event) == KeeperException.Code.OK) {
                    rootWatch.set(before);
                }
                result.complete(event);
            }).forPath(root.value());
        } catch (Exception e) {
            result.completeExceptionally(zk.translate(e, root));
        }
        return result;
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
    BarrierStore.Root root(CuratorEvent event) {
        if (code(event) == KeeperException.Code.NONODE) {
            return null;
        }
        if (code(event) != KeeperException.Code.OK) {
            throw failure(event, root);
        }
        return new BarrierStore.Root(BarrierStore.RECORDS.decode(root, event.getData()), event.getStat().getVersion(), event.getStat().getMtime());
    }

    /**
     * Leaves: one transaction that checks our seat (the fence: we still hold it), checks that the
     * record is still the READY one at {@code readyVersion}, and creates our left marker.
     */
    CompletableFuture<CuratorEvent> leave(Generation g, CoordPath seat, int readyVersion, long seq, String memberId) {
        byte[] who = memberId.getBytes(StandardCharsets.UTF_8);
        List<CuratorOp> ops = List.of(
                store.op(() -> store.curator().transactionOp().check().forPath(seat.value())),
                store.op(() -> store.curator().transactionOp().check().withVersion(readyVersion).forPath(root.value())),
                store.op(() -> store.curator().transactionOp().create().forPath(g.leftMarker(seq).value(), who)));
        return async(seat, cb -> store.curator().transaction().inBackground(cb).forOperations(ops));
    }

    /**
     * Withdraws {@code seat} from its generation while the generation is still OPEN at
     * {@code rootVersion}, in one transaction: the record unchanged (so a READY or BROKEN
     * decision and this withdrawal cannot both commit), the seat deleted, its withdrawn marker
     * created (so the deletion is not taken for a member that vanished), and the members node's
     * version bumped (so an arrival that looked before and would complete the count with this
     * seat fails its compare-and-set and looks again). False if the generation moved first (or
     * the seat is gone): then it is too late to withdraw.
     */
    boolean withdraw(Generation g, ZkBarrierSeat seat, int rootVersion) throws InterruptedException {
        io.coord.internal.NodeLease.OwnRelease release = seat.lease().beginOwnRelease();
        boolean committed = false;
        try {
            committed = store.commit(List.of(
                    store.op(() -> store.curator().transactionOp().check().withVersion(rootVersion).forPath(root.value())),
                    release.deleteOp(),
                    store.op(() -> store.curator().transactionOp().create().withMode(CreateMode.PERSISTENT_SEQUENTIAL)
                            .forPath(g.withdrawnMarker(seat.sequence()).value(),
                            seat.memberId().getBytes(StandardCharsets.UTF_8))),
                    store.op(() -> store.curator().transactionOp().setData().forPath(g.members().value(), new byte[0]))),
                    "withdraw seat #" + seat.sequence() + " from generation " + g.number());
            return committed;
        } finally {
            if (committed) {
                release.committed();
                seat.closeNow(); // the lease is RELEASED: this only forgets it and removes the enter's watches
            } else {
                release.notCommitted();
            }
        }
    }

    /** Our seat's node, found by its unique name after a create whose answer was lost; null if it is not there. */
    String findSeat(Generation g, String uniquePart) throws InterruptedException {
        List<String> children = zk.call(g.members(), () -> store.curator().getChildren().forPath(g.members().value()));
        for (String child : children) {
            if (child.contains(uniquePart)) {
                return child;
            }
        }
        return null;
    }

    Stat stat(CoordPath path) throws InterruptedException {
        return zk.call(path, () -> store.curator().checkExists().forPath(path.value()));
    }
}
