package io.coord;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.curator.framework.api.transaction.CuratorTransactionResult;
import org.apache.zookeeper.data.Stat;

/**
 * Something held through one ephemeral node of one {@link CoordSession}: a lock lease, a
 * leadership, a queue claim, a barrier seat. The shared handle contract of every recipe.
 *
 * <p>States and moves are drawn on {@link LeaseState}. The lease is owned by this handle, not by a
 * thread: any thread may close it. {@link #close()} is idempotent and deletes only this lease's
 * own node (its exact path, which carries a unique protection prefix), never "whatever has that
 * name now".
 *
 * <p>Protecting work:
 * <ul>
 *   <li>before each step of protected work, {@link #checkValid()};
 *   <li>writes into ZooKeeper: {@link #guardedSetData} or {@link #guardedTransaction}, one
 *       {@code multi} that commits only while this lease's node exists;
 *   <li>writes elsewhere: pass {@link #token()} to a {@link io.coord.fence.FenceGuard}.
 * </ul>
 */
public interface Lease extends AutoCloseable {
    /** The fencing token: czxid of this lease's node. Never changes for one lease. */
    FencingToken token();

    /** The path of this lease's own ephemeral node. */
    default CoordPath node() {
        return token().node();
    }

    LeaseState state();

    /** The session this lease is bound to. */
    CoordSession session();

    /**
     * Returns if the lease is {@link LeaseState#ACQUIRED} and its session connected; otherwise
     * throws {@link LockLostException} naming the state. UNCERTAIN throws too: the lease may come
     * back, but no new protected work may start meanwhile.
     */
    void checkValid();

    /**
     * Completes with {@code LOST} or {@code RELEASED} when the lease ends. Dependents
     * ({@code ended().thenRun(...)}) never run on Coord's event thread nor ZooKeeper's: they run on
     * the thread that ended the lease by a call ({@link #close()}, a refused guarded write), on the
     * thread that adds them once the future is complete, or else on the client's callback thread.
     * That thread is one per client and runs callbacks one at a time: a dependent that blocks delays
     * the other leases' {@code ended()} dependents (never their state, their listeners on your
     * executors, nor any lease event), so long or blocking work belongs on your own executor
     * ({@code ended().thenRunAsync(work, yourExecutor)}).
     */
    CompletableFuture<LeaseState> ended();

    /**
     * Registers a listener, called on {@code executor}. See {@link LeaseListener} for the contract.
     * A direct executor ({@code Runnable::run}) runs the listener on Coord's event thread, which
     * drives every lease of the client: such a listener must return at once and never block.
     */
    Registration addListener(LeaseListener listener, Executor executor);

    /** A {@code check} of this lease's node, to put first in your own Curator transaction. */
    CuratorOp fenceCheck();

    /**
     * {@code multi(check(ourNode), setData(target, data))}: commits only while this lease's node
     * exists. Throws {@link LockLostException} (and the lease becomes LOST) if the node is gone:
     * then nothing was written; {@link ValueTooLargeException} before sending if {@code data} is
     * over the limit. The write is sent once, never retried: if the connection drops before the
     * reply, it throws {@link ConnectionLostException}, and the write may or may not have
     * committed (a retry by Curator could have reported a committed write as refused).
     */
    Stat guardedSetData(CoordPath target, byte[] data);

    /** Runs {@code ops} in one transaction behind {@link #fenceCheck()}; same failure rules as {@link #guardedSetData}. */
    List<CuratorTransactionResult> guardedTransaction(List<CuratorOp> ops);

    /**
     * Releases the lease: it is RELEASED when this returns, and the delete of its node has been sent
     * (not yet acknowledged: ZooKeeper applies it after everything this session sent before, and
     * before anything it sends after; a delete lost to a connection loss is retried until it lands
     * or the session ends). Others may still see the node until then; see FENCING.md for what a
     * caller may assume. Idempotent; after LOST it only records the close.
     */
    @Override
    void close();
}
