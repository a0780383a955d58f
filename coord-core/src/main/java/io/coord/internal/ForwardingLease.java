package io.coord.internal;

import io.coord.CoordPath;
import io.coord.CoordSession;
import io.coord.FencingToken;
import io.coord.Lease;
import io.coord.LeaseListener;
import io.coord.LeaseState;
import io.coord.Registration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.curator.framework.api.transaction.CuratorTransactionResult;
import org.apache.zookeeper.data.Stat;

/**
 * A recipe's own lease type (a leadership, a queue claim, a barrier seat) whose {@link Lease}
 * contract is exactly that of the {@link NodeLease} of its node. Subclasses add their recipe's
 * meaning and override only what differs (a seat's {@code checkValid}, a claim's {@code close}).
 */
public abstract class ForwardingLease implements Lease {
    protected final NodeLease lease;

    protected ForwardingLease(NodeLease lease) {
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
}
