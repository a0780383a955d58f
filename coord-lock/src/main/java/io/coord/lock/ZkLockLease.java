package io.coord.lock;

import io.coord.CoordException;
import io.coord.CoordPath;
import io.coord.CoordSession;
import io.coord.FencingToken;
import io.coord.Lease;
import io.coord.LeaseListener;
import io.coord.LeaseState;
import io.coord.LockLostException;
import io.coord.Registration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.curator.framework.api.transaction.CuratorTransactionResult;
import org.apache.zookeeper.data.Stat;

/**
 * One handle on a {@link Holding}. State, token and loss signal are the shared {@link io.coord.internal.NodeLease}'s;
 * this adds the handle's own close (so nested handles from {@link #reenter()} each close once) and
 * the lock's metrics for refused writes.
 */
final class ZkLockLease implements LockLease {
    private final Holding holding;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final CompletableFuture<LeaseState> ended = new CompletableFuture<>();
    /** How this handle ended when it was closed: RELEASED, or LOST if its lease was lost before. */
    private volatile LeaseState closedAs;

    ZkLockLease(Holding holding) {
        this.holding = holding;
        holding.lease.ended().thenAccept(ended::complete);
    }

    Holding holding() {
        return holding;
    }

    @Override
    public FencingToken token() {
        return holding.lease.token();
    }

    @Override
    public CoordPath lockPath() {
        return holding.lockPath;
    }

    @Override
    public Instant heldSince() {
        return holding.heldSince;
    }

    @Override
    public LeaseState state() {
        LeaseState atClose = closedAs;
        return atClose != null ? atClose : holding.lease.state();
    }

    @Override
    public CoordSession session() {
        return holding.lease.session();
    }

    @Override
    public void checkValid() {
        if (closed.get()) {
            throw new LockLostException("lease handle " + token() + " was closed");
        }
        holding.lease.checkValid();
    }

    @Override
    public CompletableFuture<LeaseState> ended() {
        return ended.copy();
    }

    @Override
    public Registration addListener(LeaseListener listener, Executor executor) {
        LockLease self = this;
        return holding.lease.addListener(new LeaseListener() {
            @Override
            public void onUncertain(Lease lease) {
                listener.onUncertain(self);
            }

            @Override
            public void onRestored(Lease lease) {
                listener.onRestored(self);
            }

            @Override
            public void onLost(Lease lease, CoordException cause) {
                listener.onLost(self, cause);
            }

            @Override
            public void onReleased(Lease lease) {
                listener.onReleased(self);
            }
        }, executor);
    }

    @Override
    public CuratorOp fenceCheck() {
        return holding.lease.fenceCheck();
    }

    @Override
    public Stat guardedSetData(CoordPath target, byte[] data) {
        try {
            checkValid();
            return holding.lease.guardedSetData(target, data);
        } catch (LockLostException e) {
            holding.metrics.fencedRejection(holding.type);
            throw e;
        }
    }

    @Override
    public List<CuratorTransactionResult> guardedTransaction(List<CuratorOp> ops) {
        try {
            checkValid();
            return holding.lease.guardedTransaction(ops);
        } catch (LockLostException e) {
            holding.metrics.fencedRejection(holding.type);
            throw e;
        }
    }

    @Override
    public LockLease reenter() {
        checkValid();
        if (!holding.retain()) {
            throw new LockLostException("lease " + token() + " was released; it cannot be re-entered");
        }
        return new ZkLockLease(holding);
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            // Closing a lease that was already LOST does not make it RELEASED: its end stays a loss.
            closedAs = holding.lease.state() == LeaseState.LOST ? LeaseState.LOST : LeaseState.RELEASED;
            ended.complete(closedAs);
            holding.releaseOne();
        }
    }

    @Override
    public String toString() {
        return "LockLease[" + holding.type.label() + " " + token() + " " + state() + "]";
    }
}
