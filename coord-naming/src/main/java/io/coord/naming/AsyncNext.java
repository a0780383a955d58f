package io.coord.naming;

import io.coord.CoordException;
import io.coord.CoordPath;
import io.coord.internal.Zk;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.zookeeper.KeeperException;

/**
 * One {@link SequenceIds#nextAsync}: the same write as {@code next()} (an unconditional
 * {@code setData} on the counter node; the reply's czxid and version are the ID), sent in the
 * background. No thread waits for it: the reply is handled on ZooKeeper's event thread, where it
 * only decides (an ID, a create first, a retry scheduled on the client's timer, a failure) and
 * never blocks. Many calls in flight on one session are answered in the order they were sent.
 *
 * <p>Cancelled (the caller's future is done): nothing more is sent. A write already sent cannot be
 * withdrawn; the ID it takes is skipped (a gap, as after a lost reply), and no node is left behind.
 */
final class AsyncNext {
    private final ZkSequenceIds ids;
    private final Zk zk;
    private final CoordPath node;
    private final Attempts attempts;
    /** The caller's future: done (answered or cancelled) means send nothing more. */
    private final CompletableFuture<Long> caller;
    /** What this call's work ends with; handed to the caller's executor. */
    final CompletableFuture<Long> work = new CompletableFuture<>();

    AsyncNext(ZkSequenceIds ids, Zk zk, CoordPath node, Attempts attempts, CompletableFuture<Long> caller) {
        this.ids = ids;
        this.zk = zk;
        this.node = node;
        this.attempts = attempts;
        this.caller = caller;
    }

    /** Sends the write (the first, or a retry). */
    void write() {
        if (caller.isDone()) {
            work.cancel(false);
            return;
        }
        try {
            zk.curator().setData().inBackground((client, event) -> answered(event)).forPath(node.value(), IdNodes.SEQUENCE_MARK);
        } catch (Exception e) {
            failed(zk.translate(e, node));
        }
    }

    /** On ZooKeeper's event thread: decide, never block. */
    private void answered(CuratorEvent event) {
        KeeperException.Code code = KeeperException.Code.get(event.getResultCode());
        if (code == KeeperException.Code.OK) {
            int version = event.getStat().getVersion();
            if (ids.rolloverDue(version)) {
                ids.rolloverInBackground(version);
            }
            long id = IdRule.sequenceId(event.getStat().getCzxid(), version);
            if (id > 0) {
                work.complete(id);
                return;
            }
            again(); // the version wrapped: the rollover above makes a new incarnation
            return;
        }
        if (code == KeeperException.Code.NONODE) {
            create();
            return;
        }
        failed(zk.translate(KeeperException.create(code, node.value()), node));
    }

    /** First use, or the node was deleted: create it (a racing creator's node is the same counter), then write. */
    private void create() {
        if (caller.isDone()) {
            work.cancel(false);
            return;
        }
        try {
            zk.curator().create().creatingParentContainersIfNeeded().inBackground((client, event) -> {
                KeeperException.Code code = KeeperException.Code.get(event.getResultCode());
                if (code == KeeperException.Code.OK || code == KeeperException.Code.NODEEXISTS) {
                    again();
                } else {
                    failed(zk.translate(KeeperException.create(code, node.value()), node));
                }
            }).forPath(node.value(), IdNodes.SEQUENCE_MARK);
        } catch (Exception e) {
            failed(zk.translate(e, node));
        }
    }

    private void again() {
        try {
            attempts.again(null);
        } catch (CoordException timedOut) {
            work.completeExceptionally(timedOut);
            return;
        }
        write();
    }

    /** A transient error is retried after a backoff on the client's timer (no thread waits); others end the call. */
    private void failed(CoordException e) {
        if (!Attempts.isTransient(e)) {
            work.completeExceptionally(e);
            return;
        }
        long pause;
        try {
            pause = attempts.pauseNanos(e);
        } catch (CoordException timedOut) {
            work.completeExceptionally(timedOut);
            return;
        }
        try {
            zk.timer().schedule(this::write, pause, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException closed) {
            work.completeExceptionally(new IllegalStateException("the client of " + ids + " is closed", e));
        }
    }
}
