package io.coord.config;

import io.coord.ConflictException;
import io.coord.ConnectionLostException;
import io.coord.CoordException;
import io.coord.CoordPath;
import io.coord.internal.Background;
import io.coord.internal.Zk;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.OpResult;

/**
 * One {@code putAsync} or {@code compareAndSetAsync}: {@link Publisher}'s transaction, with no
 * thread waiting for it. Each step is sent in the background and the next one is taken in its
 * callback (on ZooKeeper's event thread, where nothing blocks):
 * <ol>
 *   <li>look, unless this store's last committed publish of the key left a guess (its version and
 *       history names, see {@link Publisher}), which the first attempt sends on at once; else in
 *       one round trip: the key's stat (its version, for a put) and the history's names;
 *       if the history directory is missing, its ancestors' stats (a second round trip, first
 *       publish of a key only);
 *   <li>the transaction, sent once (outside Curator's retry loop): creates of the missing
 *       directories, the key's write, the history entry, the trimming. So a publish that does not
 *       commit leaves no node behind, not even a directory;
 *   <li>its answer: committed; a put that lost a race looks again (at most
 *       {@link Publisher#MAX_ATTEMPTS} times); a compare-and-set that lost is a
 *       {@link ConflictException} naming the current version; a lost answer (connection loss) is
 *       recognised as ours if the key holds our bytes at our version, else retried after a
 *       backoff on the client's timer, until the request timeout on {@link System#nanoTime()}.
 * </ol>
 * Cancelled (the caller's future is done): nothing more is sent. A transaction already sent
 * cannot be withdrawn: it commits whole or not at all.
 */
final class AsyncPublish {
    private static final long BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    private final Zk zk;
    private final CuratorFramework curator;
    private final Publisher publisher;
    private final String app;
    private final String key;
    private final CoordPath node;
    private final CoordPath historyDir;
    private final byte[] bytes;
    private final long expected;
    private final CompletableFuture<Long> caller;
    private final long deadline;
    private int attempts;
    /** What this call's work ends with; handed to the caller's executor. */
    final CompletableFuture<Long> work = new CompletableFuture<>();

    AsyncPublish(Zk zk, Publisher publisher, String app, String key, byte[] bytes, long expected, CompletableFuture<Long> caller) {
        this.zk = zk;
        this.curator = zk.curator();
        this.publisher = publisher;
        this.app = app;
        this.key = key;
        this.node = ConfigLayout.key(app, key);
        this.historyDir = ConfigLayout.historyDir(app, key);
        this.bytes = bytes;
        this.expected = expected;
        this.caller = caller;
        this.deadline = System.nanoTime() + zk.client().settings().requestTimeout().toNanos();
    }

    /** Whether the caller gave up: then nothing more is sent. */
    private boolean withdrawn() {
        if (caller.isDone()) {
            work.cancel(false);
            return true;
        }
        return false;
    }

    void look() {
        if (withdrawn()) {
            return;
        }
        if (attempts++ >= Publisher.MAX_ATTEMPTS) {
            work.completeExceptionally(new ConflictException("publishing " + node + " lost to concurrent writers "
                    + Publisher.MAX_ATTEMPTS + " times; nothing was written"));
            return;
        }
        Publisher.Known guess = attempts == 1 ? publisher.take(node, expected) : null;
        if (guess != null) {
            step(() -> send(new ArrayList<>(), guess.history(), guess.version()));
            return;
        }
        CompletableFuture<CuratorEvent> stat = Background.call(zk, node, cb -> curator.checkExists().inBackground(cb).forPath(node.value()));
        CompletableFuture<CuratorEvent> listed = Background.call(zk, historyDir,
                cb -> curator.getChildren().inBackground(cb).forPath(historyDir.value()));
        stat.thenAcceptBoth(listed, (s, l) -> step(() -> looked(s, l))).exceptionally(this::failed);
    }

    private void looked(CuratorEvent stat, CuratorEvent listed) {
        KeeperException.Code statCode = Background.code(stat);
        KeeperException.Code listCode = Background.code(listed);
        if (!absentOrOk(statCode)) {
            failed(statCode, node);
            return;
        }
        if (!absentOrOk(listCode)) {
            failed(listCode, historyDir);
            return;
        }
        long base = expected != Publisher.ANY ? expected
                : statCode == KeeperException.Code.NONODE ? Publisher.ABSENT : stat.getStat().getVersion();
        if (listCode == KeeperException.Code.OK) {
            send(new ArrayList<>(), listed.getChildren(), base);
            return;
        }
        // The key's first publish: create the directories in the transaction itself (no node is
        // left behind if it does not commit), the ones missing from the top down.
        List<CoordPath> dirs = new ArrayList<>();
        for (CoordPath p = historyDir; !p.isRoot(); p = p.parent()) {
            dirs.add(0, p);
        }
        List<CompletableFuture<CuratorEvent>> stats = new ArrayList<>();
        for (CoordPath dir : dirs) {
            stats.add(Background.call(zk, dir, cb -> curator.checkExists().inBackground(cb).forPath(dir.value())));
        }
        CompletableFuture.allOf(stats.toArray(CompletableFuture[]::new)).thenRun(() -> step(() -> {
            List<CuratorOp> creates = new ArrayList<>();
            for (int i = 0; i < dirs.size(); i++) {
                KeeperException.Code code = Background.code(stats.get(i).join());
                if (code == KeeperException.Code.NONODE) {
                    CoordPath dir = dirs.get(i);
                    creates.add(zk.op(dir, () -> curator.transactionOp().create().forPath(dir.value())));
                } else if (code != KeeperException.Code.OK) {
                    failed(code, dirs.get(i));
                    return;
                }
            }
            send(creates, List.of(), base);
        })).exceptionally(this::failed);
    }

    private static boolean absentOrOk(KeeperException.Code code) {
        return code == KeeperException.Code.OK || code == KeeperException.Code.NONODE;
    }

    private void send(List<CuratorOp> creates, List<String> history, long base) {
        if (withdrawn()) {
            return;
        }
        long version = base == Publisher.ABSENT ? 0 : base + 1;
        int keyOp = creates.size();
        Publisher.Plan plan = publisher.plan(app, key, node, historyDir, history, bytes, base, version, creates);
        List<CuratorOp> ops = plan.ops();
        io.coord.internal.Payloads.checkTransaction(ops, io.coord.internal.Payloads.TRANSACTION_LIMIT);
        zk.multiOnceAsync(node, ops).thenAccept(answer -> step(() -> answered(answer, plan, keyOp, version))).exceptionally(this::failed);
    }

    private void answered(Zk.MultiAnswer answer, Publisher.Plan plan, int keyOp, long version) {
        List<CuratorOp> ops = plan.ops();
        KeeperException.Code code = answer.code();
        if (code == KeeperException.Code.OK) {
            publisher.remember(node, version, plan.historyAfter());
            work.complete(version);
            return;
        }
        if (Zk.indeterminate(KeeperException.create(code))) {
            ours(version); // the answer was lost: it may have committed
            return;
        }
        int failed = answer.results() == null ? -1 : Publisher.failedOp(answer.results());
        KeeperException.Code cause = failed < 0 ? code : KeeperException.Code.get(((OpResult.ErrorResult) answer.results().get(failed)).getErr());
        if (cause == KeeperException.Code.NOAUTH || cause == KeeperException.Code.INVALIDACL || failed < 0) {
            failed(cause, failed < 0 ? node : CoordPath.of(ops.get(failed).getTypeAndPath().getForPath()));
            return;
        }
        if (failed == keyOp && expected >= 0) {
            Background.call(zk, node, cb -> curator.checkExists().inBackground(cb).forPath(node.value())).thenAccept(now ->
                    work.completeExceptionally(new ConflictException("compare-and-set of " + node + " expected version " + expected
                            + " but " + (Background.code(now) != KeeperException.Code.OK ? "the key does not exist"
                            : "the current version is " + now.getStat().getVersion()) + "; nothing was written")))
                    .exceptionally(this::failed);
            return;
        }
        look(); // a put lost a race with another writer (or a directory appeared): look again
    }

    /** After a lost answer: ours if the key holds our bytes at our version; else try again after a pause. */
    private void ours(long version) {
        Background.call(zk, node, cb -> curator.getData().inBackground(cb).forPath(node.value())).thenAccept(event -> step(() -> {
            if (Background.code(event) == KeeperException.Code.OK && event.getStat().getVersion() == version
                    && Arrays.equals(event.getData(), bytes)) {
                work.complete(version);
            } else {
                retryLater(new ConnectionLostException("the answer to publishing " + node + " was lost"));
            }
        })).exceptionally(e -> {
            retryLater(e);
            return null;
        });
    }

    private void retryLater(Throwable cause) {
        if (System.nanoTime() - deadline >= 0) {
            work.completeExceptionally(cause instanceof CoordException ce ? ce
                    : new ConnectionLostException("publishing " + node + ": no answer from ZooKeeper within the request timeout", cause));
            return;
        }
        attempts--; // a connection problem is not a lost race
        try {
            zk.timer().schedule(this::look, BACKOFF_NANOS, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException closed) {
            work.completeExceptionally(new IllegalStateException("the client is closed; publishing " + node + " stopped", cause));
        }
    }

    private void failed(KeeperException.Code code, CoordPath path) {
        CoordException e = zk.translate(KeeperException.create(code, path.value()), path);
        if (e instanceof ConnectionLostException || e instanceof io.coord.SessionExpiredException) {
            retryLater(e);
        } else {
            work.completeExceptionally(e);
        }
    }

    private Void failed(Throwable e) {
        Throwable cause = e instanceof java.util.concurrent.CompletionException && e.getCause() != null ? e.getCause() : e;
        if (cause instanceof ConnectionLostException || cause instanceof io.coord.SessionExpiredException) {
            retryLater(cause);
        } else {
            work.completeExceptionally(cause);
        }
        return null;
    }

    /** Runs one step; anything it throws (a bad op, a size over the limit) ends the call. */
    private void step(Runnable step) {
        try {
            step.run();
        } catch (RuntimeException e) {
            work.completeExceptionally(e);
        }
    }
}
