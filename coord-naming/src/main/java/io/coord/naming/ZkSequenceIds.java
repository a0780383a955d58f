package io.coord.naming;

import io.coord.CoordException;
import io.coord.CoordPath;
import io.coord.internal.Zk;
import io.coord.internal.CallerExecutor;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link SequenceIds} on one counter node: an unconditional {@code setData} makes ZooKeeper
 * increment the node's version atomically, and the reply's {@code czxid + version} is the ID
 * ({@link IdRule}). No read, no compare-and-set, so no conflicts between clients. Before its first
 * write a generator reads the counter's nodes once and refuses a Curator counter's bytes there
 * ({@link IdNodes}); every write stores {@link IdNodes#SEQUENCE_MARK}, which Curator refuses in turn.
 */
final class ZkSequenceIds implements SequenceIds {
    private static final Logger LOG = LoggerFactory.getLogger(ZkSequenceIds.class);

    private final Zk zk;
    private final String name;
    private final CoordPath node;
    private final IdOptions options;
    private final LongSupplier nanoTime;
    private final int rolloverAt;
    /** Whether this generator has seen that the counter's nodes are Coord's ({@link IdNodes}): once, before its first write. */
    private volatile boolean checked;
    /** The check of the counter's nodes for async calls, while it runs (once; again after a failure). */
    private CompletableFuture<Void> checking;
    /** Whether an async call's rollover is running (one at a time: the next write sees whether another is due). */
    private final AtomicBoolean rolling = new AtomicBoolean();

    /** {@code rolloverAt} is {@link IdRule#ROLLOVER_VERSION}; tests lower it to reach a rollover. */
    ZkSequenceIds(Zk zk, String name, IdOptions options, LongSupplier nanoTime, int rolloverAt) {
        this.zk = zk;
        this.node = Layout.sequenceNode(name);
        this.name = name;
        this.options = Objects.requireNonNull(options, "options");
        this.nanoTime = nanoTime;
        this.rolloverAt = rolloverAt;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public long next() throws InterruptedException {
        Attempts attempts = new Attempts(options, nanoTime, "SequenceIds.next() on " + node);
        CuratorFramework curator = zk.curator();
        while (true) {
            Stat stat;
            try {
                if (!checked) {
                    IdNodes.check(zk, name, node);
                    checked = true;
                }
                stat = zk.call(node, () -> {
                    try {
                        return curator.setData().forPath(node.value(), IdNodes.SEQUENCE_MARK);
                    } catch (KeeperException.NoNodeException e) {
                        return null;
                    }
                });
                if (stat == null) {
                    // First use, or the node (or its parent) was deleted: a new incarnation has a
                    // higher czxid, so its IDs start above every ID handed out before.
                    create();
                    attempts.again(null);
                    continue;
                }
            } catch (CoordException e) {
                if (!Attempts.isTransient(e)) {
                    throw e;
                }
                attempts.backoff(e);
                continue;
            }
            if (IdRule.needsRollover(stat.getVersion(), rolloverAt)) {
                rollover(stat.getVersion());
            }
            long id = IdRule.sequenceId(stat.getCzxid(), stat.getVersion());
            if (id > 0) {
                return id;
            }
            attempts.again(null);
        }
    }

    @Override
    public CompletableFuture<Long> nextAsync() {
        return nextAsync(CallerExecutor.DEFAULT);
    }

    @Override
    public CompletableFuture<Long> nextAsync(Executor executor) {
        Objects.requireNonNull(executor, "executor");
        CompletableFuture<Long> caller = new CompletableFuture<>();
        AsyncNext call = new AsyncNext(this, zk, node, new Attempts(options, nanoTime, "SequenceIds.nextAsync() on " + node), caller);
        CallerExecutor.completeOn(call.work, caller, executor);
        if (checked) {
            call.write(); // sent now, on the calling thread: calls keep the order they were made in
        } else {
            checked(executor).whenComplete((ok, error) -> {
                if (error != null) {
                    call.work.completeExceptionally(error instanceof java.util.concurrent.CompletionException && error.getCause() != null
                            ? error.getCause() : error);
                } else {
                    call.write();
                }
            });
        }
        return caller;
    }

    /**
     * The one read of the counter's nodes before the first write ({@link IdNodes#check}), for async
     * calls: it blocks, so it runs once on the first caller's executor, and every call made
     * meanwhile waits for it without a thread of its own. A failed check is tried again by the
     * next call.
     */
    private synchronized CompletableFuture<Void> checked(Executor executor) {
        if (checked) {
            return CompletableFuture.completedFuture(null);
        }
        if (checking == null) {
            CompletableFuture<Void> run = new CompletableFuture<>();
            checking = run;
            Runnable check = () -> {
                try {
                    IdNodes.check(zk, name, node);
                    checked = true;
                    run.complete(null);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    run.completeExceptionally(ie);
                } catch (RuntimeException | Error re) {
                    run.completeExceptionally(re);
                } finally {
                    synchronized (this) {
                        checking = null;
                    }
                }
            };
            try {
                executor.execute(check);
            } catch (java.util.concurrent.RejectedExecutionException refused) {
                CallerExecutor.DEFAULT.execute(check);
            }
            return run;
        }
        return checking;
    }

    boolean rolloverDue(int version) {
        return IdRule.needsRollover(version, rolloverAt);
    }

    /** An async call's rollover: it blocks, so it runs on the client's callback thread, one at a time. */
    void rolloverInBackground(int version) {
        if (!rolling.compareAndSet(false, true)) {
            return;
        }
        try {
            zk.callbacks().execute(() -> {
                try {
                    rollover(version);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (RuntimeException e) {
                    LOG.warn("rollover of {} failed; the next write that finds it due tries again", node, e);
                } finally {
                    rolling.set(false);
                }
            });
        } catch (java.util.concurrent.RejectedExecutionException closed) {
            rolling.set(false);
        }
    }

    private void create() throws InterruptedException {
        zk.call(node, () -> {
            try {
                zk.curator().create().creatingParentContainersIfNeeded().forPath(node.value(), IdNodes.SEQUENCE_MARK);
            } catch (KeeperException.NodeExistsException raced) {
                // another client created it first: fine, it is the same counter
            }
            return null;
        });
    }

    /**
     * Deletes and re-creates the counter in one transaction, before its 32-bit version can wrap.
     * Unconditional on purpose: under load a version check would rarely pass, and an extra rollover
     * by a racing client is harmless (every new incarnation starts above every earlier ID).
     */
    private void rollover(int version) throws InterruptedException {
        try {
            zk.call(node, () -> {
                CuratorFramework curator = zk.curator();
                try {
                    curator.transaction().forOperations(
                            curator.transactionOp().delete().forPath(node.value()),
                            curator.transactionOp().create().forPath(node.value(), IdNodes.SEQUENCE_MARK));
                } catch (KeeperException.NoNodeException gone) {
                    // deleted meanwhile: the next write re-creates it
                }
                return null;
            });
            LOG.info("rolled over sequence counter {} at version {}", node, version);
            zk.client().metrics().increment("coord.ids.rollovers", "name", name);
        } catch (CoordException e) {
            if (!Attempts.isTransient(e)) {
                throw e;
            }
            LOG.debug("rollover of {} failed; the next write tries again", node, e);
        }
    }

    @Override
    public String toString() {
        return "SequenceIds[" + node + "]";
    }
}
