package io.coord.queue;

import io.coord.CoordSession;
import io.coord.FencingToken;
import io.coord.Lease;
import io.coord.LeaseListener;
import io.coord.LeaseState;
import io.coord.Registration;
import io.coord.internal.NodeLease;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.curator.framework.api.transaction.CuratorTransactionResult;
import org.apache.zookeeper.data.Stat;

/** The {@link Lease} contract of a claim, from the shared {@link NodeLease} of its claim node. */
abstract class LeaseDelegate implements Lease {
    final NodeLease lease;

    LeaseDelegate(NodeLease lease) {
        this.lease = lease;
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
    public Stat guardedSetData(io.coord.CoordPath target, byte[] data) {
        return lease.guardedSetData(target, data);
    }

    @Override
    public List<CuratorTransactionResult> guardedTransaction(List<CuratorOp> ops) {
        return lease.guardedTransaction(ops);
    }
}
