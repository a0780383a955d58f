package io.coord.queue;

import io.coord.CoordPath;
import io.coord.internal.Payloads;
import io.coord.internal.Zk;
import java.util.List;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.curator.framework.api.transaction.CuratorTransactionResult;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.OpResult;

/**
 * One ZooKeeper transaction ({@code multi}), with the failing operation kept visible: the queue's
 * decisions depend on <em>which</em> operation failed (the claim check, the task's version, a key),
 * so {@link KeeperException} is handed back untranslated for the caller to read.
 */
final class Txn {
    private Txn() {
    }

    /** Commits {@code ops} (size-checked first); KeeperExceptions come back raw, anything else translated. */
    static List<CuratorTransactionResult> commit(Zk zk, CoordPath where, List<CuratorOp> ops)
            throws KeeperException, InterruptedException {
        Payloads.checkTransaction(ops, Payloads.TRANSACTION_LIMIT);
        try {
            return zk.curator().transaction().forOperations(ops);
        } catch (KeeperException | InterruptedException e) {
            throw e;
        } catch (Exception e) {
            throw zk.translate(e, where);
        }
    }

    /**
     * Sends {@code ops} as one {@code multi} exactly once, on the current ZooKeeper handle, outside
     * Curator's retry loop. For creates that must never run twice: after a lost reply Curator sends
     * the transaction again, and if what the first one created is gone by then (its task was
     * claimed and completed meanwhile), the second one succeeds and adds a duplicate. The caller
     * decides what an {@linkplain #indeterminate indeterminate} failure means. Waits for a
     * connection first (at most the connection timeout).
     */
    static List<OpResult> commitOnce(Zk zk, CoordPath where, List<CuratorOp> ops)
            throws KeeperException, InterruptedException {
        Payloads.checkTransaction(ops, Payloads.TRANSACTION_LIMIT);
        return zk.multiOnce(where, ops);
    }

    /** Whether {@code e} leaves a transaction's outcome unknown: it may or may not have committed. */
    static boolean indeterminate(KeeperException e) {
        return Zk.indeterminate(e);
    }

    /**
     * The index of the operation that failed. ZooKeeper reports the ops before it as rolled back
     * (code 0) and the ops after it as not run (RUNTIMEINCONSISTENCY); -1 if the results are missing.
     */
    static int failedIndex(KeeperException e) {
        return failedIndex(e.getResults());
    }

    /** {@link #failedIndex(KeeperException)} from the per-op results of an async {@code multi} (null: missing). */
    static int failedIndex(List<OpResult> results) {
        if (results == null) {
            return -1;
        }
        for (int i = 0; i < results.size(); i++) {
            if (results.get(i) instanceof OpResult.ErrorResult err && err.getErr() != 0
                    && err.getErr() != KeeperException.Code.RUNTIMEINCONSISTENCY.intValue()) {
                return i;
            }
        }
        return -1;
    }

    /** A Curator op built from a lambda that declares Exception (the transactionOp builders do). */
    static CuratorOp op(Zk zk, CoordPath where, io.coord.internal.ZkCall<CuratorOp> build) {
        return zk.callUninterruptibly(where, build);
    }
}
