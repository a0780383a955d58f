package io.coord.election;

import io.coord.CoordSession;
import io.coord.FencingToken;
import io.coord.LeaseListener;
import io.coord.LeaseState;
import io.coord.Registration;
import io.coord.CoordPath;
import io.coord.internal.NodeLease;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.curator.framework.api.transaction.CuratorTransactionResult;
import org.apache.zookeeper.data.Stat;

/**
 * A leadership: the shared {@link NodeLease} of the candidate node, plus who we are. Every
 * {@link io.coord.Lease} method is the lease's; ending (released or lost) runs {@code onEnd} once.
 */
final class ZkLeadership implements Leadership {
    private final NodeLease lease;
    private final String election;
    private final LeaderInfo info;
    private final Runnable onEnd;
    private final AtomicBoolean ended = new AtomicBoolean();

    ZkLeadership(NodeLease lease, String election, LeaderInfo info, Runnable onEnd) {
        this.lease = lease;
        this.election = election;
        this.info = info;
        this.onEnd = onEnd;
        lease.onRelease(this::end);
        if (lease.state().isTerminal()) {
            end(); // it ended before the release step was set: run it here instead
        }
    }

    private void end() {
        if (ended.compareAndSet(false, true)) {
            onEnd.run();
        }
    }

    @Override
    public String election() {
        return election;
    }

    @Override
    public LeaderInfo info() {
        return info;
    }

    @Override
    public FencingToken token() {
        return lease.token();
    }

    @Override
    public LeaseState state() {
        return lease.state();
    }

    @Override
    public CoordSession session() {
        return lease.session();
    }

    @Override
    public void checkValid() {
        lease.checkValid();
    }

    @Override
    public CompletableFuture<LeaseState> ended() {
        return lease.ended();
    }

    @Override
    public Registration addListener(LeaseListener listener, Executor executor) {
        return lease.addListener(listener, executor);
    }

    @Override
    public CuratorOp fenceCheck() {
        return lease.fenceCheck();
    }

    @Override
    public Stat guardedSetData(CoordPath target, byte[] data) {
        return lease.guardedSetData(target, data);
    }

    @Override
    public List<CuratorTransactionResult> guardedTransaction(List<CuratorOp> ops) {
        return lease.guardedTransaction(ops);
    }

    @Override
    public void close() {
        lease.close();
    }

    @Override
    public String toString() {
        return "Leadership[" + election + " " + info.id() + " epoch 0x" + Long.toHexString(token().value()) + " " + state() + "]";
    }
}
