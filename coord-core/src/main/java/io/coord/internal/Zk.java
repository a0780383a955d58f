package io.coord.internal;

import io.coord.CoordClient;
import io.coord.CoordException;
import io.coord.CoordPath;
import io.coord.CoordSettings;
import io.coord.Credentials;
import io.coord.NotAuthorizedException;
import io.coord.SessionExpiredException;
import io.coord.ValueTooLargeException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.stream.Collectors;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.Watcher;

/**
 * What recipe modules need from a {@link CoordClient} beyond its public API: the Curator client,
 * the session tracker, Coord's own event executor, error translation with this client's
 * identity, and size checks. One per client, owned by it: {@link #of} reads the client's own
 * field through {@link Access}, so nothing process-global holds a client or its {@code Zk}.
 */
public final class Zk {
    /**
     * How {@link #of} reads a {@link CoordClient}'s own {@code Zk}, which the client keeps in a private
     * field: a public accessor on {@code CoordClient} would put this internal type into its public API.
     * {@code CoordClient} installs the one implementation when its class initializes; it holds no
     * client, only the way to read one.
     */
    @FunctionalInterface
    public interface Access {
        /** {@code client}'s {@code Zk}, or null once the client is closed. */
        Zk read(CoordClient client);
    }

    private static volatile Access access;

    private final CoordClient client;
    private final CuratorFramework curator;
    private final SessionTracker sessions;
    private final ExecutorService events;
    private final ExecutorService callbacks;
    /** The client's timer for Coord's own timed work ({@link ClientTimer}); shut down with the client. */
    private final java.util.concurrent.ScheduledExecutorService timer;
    private final WatchArmer watchArmer;
    private final String principals;
    private final java.util.Set<NodeLease> leases = ConcurrentHashMap.newKeySet();

    public Zk(CoordClient client, CuratorFramework curator, SessionTracker sessions, ExecutorService events,
            ExecutorService callbacks, java.util.concurrent.ScheduledExecutorService timer) {
        this.client = client;
        this.curator = curator;
        this.sessions = sessions;
        this.events = events;
        this.callbacks = callbacks;
        this.timer = timer;
        CoordSettings settings = client.settings();
        this.watchArmer = new WatchArmer(timer, settings == null ? System::nanoTime : settings.ticker()::getAsLong);
        this.principals = settings == null || settings.credentials().isEmpty() ? "anonymous (no credentials)"
                : settings.credentials().stream().map(Credentials::principal).collect(Collectors.joining(", "));
    }

    /**
     * Installs the one {@link Access}; called once, by {@link CoordClient}'s class initializer.
     * A second call fails: nothing may replace how clients are read.
     */
    public static synchronized void installAccess(Access clients) {
        Objects.requireNonNull(clients, "clients");
        if (access != null) {
            throw new IllegalStateException("Zk.Access is installed already (by CoordClient)");
        }
        access = clients;
    }

    /**
     * The internals of {@code client}, read from the client itself.
     *
     * @throws IllegalStateException naming the client if it is closed
     */
    public static Zk of(CoordClient client) {
        Objects.requireNonNull(client, "client");
        Zk zk = access().read(client);
        if (zk == null) {
            throw new IllegalStateException("CoordClient " + client + " is closed");
        }
        return zk;
    }

    private static Access access() {
        Access installed = access;
        if (installed != null) {
            return installed;
        }
        // A CoordClient exists, so its class initializer has installed the access; a thread that got
        // the client through a racy publication may not see that yet. Initializing the class (done
        // already, so this only waits for it) makes the installation visible.
        try {
            Class.forName(CoordClient.class.getName(), true, CoordClient.class.getClassLoader());
        } catch (ClassNotFoundException impossible) {
            throw new AssertionError(impossible);
        }
        return Objects.requireNonNull(access, "Zk.Access not installed by CoordClient");
    }

    public CoordClient client() {
        return client;
    }

    public CuratorFramework curator() {
        return curator;
    }

    public SessionTracker sessions() {
        return sessions;
    }

    /** The live session, or {@link SessionExpiredException} if there is none right now. */
    public ZkSession liveSession() {
        ZkSession s = sessions.current();
        if (s == null || s.state().isTerminal()) {
            throw new SessionExpiredException("no live ZooKeeper session" + (s == null ? "" : " (last was " + s + ")"));
        }
        return s;
    }

    /**
     * Coord's own single event thread for this client: lease verification, watch follow-ups. It
     * drives every lease of the client, so nothing submitted here may block (see {@link EventThreads}):
     * send ZooKeeper requests in the background, or hand blocking work to {@link #callbacks()}.
     */
    public ExecutorService events() {
        return events;
    }

    /**
     * This client's callback thread (owned and shut down by the client): {@code Lease.ended()}
     * dependents and release steps of leases that ended on an event thread, and blocking tidy-ups.
     * Code here may block; it delays only other callbacks, never a lease event.
     */
    public ExecutorService callbacks() {
        return callbacks;
    }

    /**
     * Runs {@code task} on {@link #callbacks()} if the current thread is an event thread, else
     * here. A closed client (callbacks shut down) runs it here: nothing else waits on it then.
     */
    public void offEventThread(Runnable task) {
        if (!EventThreads.current()) {
            task.run();
            return;
        }
        try {
            callbacks.execute(task);
        } catch (java.util.concurrent.RejectedExecutionException closed) {
            task.run();
        }
    }

    /**
     * The client's timer, for short, non-blocking timed work (arming watches, stamping holds, async
     * timeouts and retries): its tasks run one at a time, in due order, on the client's own timer
     * thread, started on demand ({@link ClientTimer}; the waiting is done by one thread the JVM's
     * clients share). Shut down when the client closes; work scheduled after that is refused
     * ({@link java.util.concurrent.RejectedExecutionException}).
     */
    public java.util.concurrent.ScheduledExecutorService timer() {
        return timer;
    }

    WatchArmer watchArmer() {
        return watchArmer;
    }

    /** The identities this client presents, for error messages ("digest:alice"). */
    public String principals() {
        return principals;
    }

    public int maxValueBytes() {
        return client.settings().maxValueBytes();
    }

    /** Throws {@link ValueTooLargeException} if {@code size} is over this client's limit. */
    public void checkSize(CoordPath path, long size) {
        int limit = maxValueBytes();
        if (size > limit) {
            throw new ValueTooLargeException(path.value(), size, limit);
        }
    }

    /**
     * Runs one ZooKeeper call, translating failures; interrupts propagate. It may block (Curator's
     * retry loop), so it must not run on an event thread: {@link EventThreads#checkMayBlock} reports
     * one that does. For building an op or sending a background request use {@link #op}.
     */
    public <T> T call(CoordPath path, ZkCall<T> call) throws InterruptedException {
        EventThreads.checkMayBlock(path);
        return run(path, call);
    }

    /**
     * Runs {@code call} that never waits for the server (builds a transaction op, or sends a request
     * in the background), translating failures: allowed on any thread, event threads included.
     */
    public <T> T op(CoordPath path, ZkCall<T> call) {
        return uninterruptibly(path, call);
    }

    private <T> T run(CoordPath path, ZkCall<T> call) throws InterruptedException {
        try {
            return call.call();
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            throw translate(e, path);
        }
    }

    /**
     * Like {@link #call} for methods that cannot declare InterruptedException: an interrupt
     * keeps the thread's interrupt flag set and surfaces as a {@link CoordException}.
     */
    public <T> T callUninterruptibly(CoordPath path, ZkCall<T> call) {
        EventThreads.checkMayBlock(path);
        return uninterruptibly(path, call);
    }

    private <T> T uninterruptibly(CoordPath path, ZkCall<T> call) {
        try {
            return run(path, call);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CoordException("interrupted during the operation on " + path, e);
        }
    }

    /**
     * Sends {@code ops} as one {@code multi} exactly once, on the current ZooKeeper handle, outside
     * Curator's retry loop (after waiting for a connection, at most the connection timeout).
     * Curator retries a transaction whose reply was lost; for a fenced or create-once transaction
     * that retry is wrong: the first attempt may have committed, and the retry then either applies
     * it again (same session) or fails at a check whose node the committed first attempt outlived
     * (new session), which would report a committed write as refused. So a lost reply surfaces as
     * a {@link KeeperException} the caller reads with {@link #indeterminate}. Other
     * KeeperExceptions come back raw, so the caller can see which operation failed.
     */
    public List<OpResult> multiOnce(CoordPath where, List<CuratorOp> ops) throws KeeperException, InterruptedException {
        EventThreads.checkMayBlock(where);
        List<Op> raw = new ArrayList<>(ops.size());
        for (CuratorOp op : ops) {
            raw.add(op.get()); // namespace and ACLs were applied when the op was built
        }
        return connectedHandle(where).multi(raw);
    }

    /** The current ZooKeeper handle, after waiting for a connection (at most the connection timeout). */
    private org.apache.zookeeper.ZooKeeper connectedHandle(CoordPath where) throws InterruptedException {
        try {
            curator.getZookeeperClient().blockUntilConnectedOrTimedOut();
            return curator.getZookeeperClient().getZooKeeper();
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            throw translate(e, where);
        }
    }

    /** The answer to a {@link #multiOnceAsync}: its result code and, when it has them, the per-op results. */
    public record MultiAnswer(KeeperException.Code code, List<OpResult> results) {
    }

    /**
     * {@link #multiOnce} in the background: sent once, on the current ZooKeeper handle, outside
     * Curator's retry loop (which re-sends a background transaction after a lost reply and so could
     * apply it twice). The future completes on ZooKeeper's event thread with the answer, whatever its
     * code: {@link #indeterminate} codes leave the outcome unknown, for the caller to find out. Sent
     * right away, so it keeps its place among this session's requests.
     */
    public java.util.concurrent.CompletableFuture<MultiAnswer> multiOnceAsync(CoordPath where, List<CuratorOp> ops) {
        java.util.concurrent.CompletableFuture<MultiAnswer> answer = new java.util.concurrent.CompletableFuture<>();
        try {
            List<Op> raw = new ArrayList<>(ops.size());
            for (CuratorOp op : ops) {
                raw.add(op.get());
            }
            curator.getZookeeperClient().getZooKeeper().multi(raw,
                    (rc, path, ctx, results) -> answer.complete(new MultiAnswer(KeeperException.Code.get(rc), results)), null);
        } catch (Exception e) {
            answer.completeExceptionally(translate(e, where));
        }
        return answer;
    }

    /**
     * One create sent exactly once, as {@link #multiOnce} sends a transaction, but as a plain
     * {@code create}: for a create-once node that needs no other operation beside it (a one-op
     * {@code multi} costs the server a transaction wrapper and the client a second encoding for
     * nothing). {@code create} is a Curator create op (namespace and ACLs applied when it was
     * built). Returns the created path as the server names it (with the namespace).
     */
    public String createOnce(CoordPath where, CuratorOp create) throws KeeperException, InterruptedException {
        EventThreads.checkMayBlock(where);
        org.apache.zookeeper.proto.CreateRequest request = createRequest(where, create);
        return connectedHandle(where).create(request.getPath(), request.getData(), request.getAcl(),
                org.apache.zookeeper.CreateMode.fromFlag(request.getFlags()));
    }

    /** The answer to a {@link #createOnceAsync}, on ZooKeeper's event thread: nothing there may block. */
    @FunctionalInterface
    public interface CreateAnswer {
        /** {@code created} is the created path (with the namespace) when {@code code} is OK, else null. */
        void answered(KeeperException.Code code, String created);
    }

    /**
     * {@link #createOnce} in the background: sent once, right away (so it keeps its place among this
     * session's requests), outside Curator's retry loop. {@code answer} runs on ZooKeeper's event
     * thread with whatever code the server or the connection gave: {@link #indeterminate} codes
     * leave the outcome unknown, for the caller to find out. A create that cannot be sent at all
     * throws (translated), and {@code answer} is not called.
     */
    public void createOnceAsync(CoordPath where, CuratorOp create, CreateAnswer answer) {
        org.apache.zookeeper.proto.CreateRequest request = createRequest(where, create);
        try {
            curator.getZookeeperClient().getZooKeeper().create(request.getPath(), request.getData(), request.getAcl(),
                    org.apache.zookeeper.CreateMode.fromFlag(request.getFlags()),
                    (rc, path, ctx, name) -> answer.answered(KeeperException.Code.get(rc), name), null);
        } catch (Exception e) {
            throw translate(e, where);
        }
    }

    private org.apache.zookeeper.proto.CreateRequest createRequest(CoordPath where, CuratorOp create) {
        Op op = create.get();
        if (op.getType() != org.apache.zookeeper.ZooDefs.OpCode.create) {
            throw new IllegalArgumentException("createOnce takes a plain create op for " + where + ", got op type " + op.getType());
        }
        return (org.apache.zookeeper.proto.CreateRequest) op.toRequestRecord();
    }

    /** Whether {@code e} leaves a transaction's outcome unknown: it may or may not have committed. */
    public static boolean indeterminate(KeeperException e) {
        return e.code() == KeeperException.Code.CONNECTIONLOSS || e.code() == KeeperException.Code.SESSIONEXPIRED
                || e.code() == KeeperException.Code.OPERATIONTIMEOUT || e.code() == KeeperException.Code.REQUESTTIMEOUT;
    }

    /**
     * Adds a persistent watch on {@code path} and makes sure this client may READ it. ZooKeeper
     * (3.9.5, measured) accepts {@code addWatch} on a node the client cannot read and then filters
     * out its events (since 3.9.2, CVE-2024-23944): a watch that silently never fires. So a read
     * follows the add, and if the server refuses it the watch is removed again and the call fails
     * with {@link io.coord.NotAuthorizedException} naming the path (bad-input row 32). A node that
     * does not exist yet is fine: watching for its creation is what persistent watches are for.
     */
    public void addWatch(CoordPath path, AddWatchMode mode, Watcher watcher) throws InterruptedException {
        call(path, () -> curator.watchers().add().withMode(mode).usingWatcher(watcher).forPath(path.value()));
        try {
            call(path, () -> {
                try {
                    return curator.getData().forPath(path.value());
                } catch (KeeperException.NoNodeException absent) {
                    return null;
                }
            });
        } catch (NotAuthorizedException e) {
            try {
                curator.watchers().remove(watcher).ofType(Watcher.WatcherType.Any).quietly().forPath(path.value());
            } catch (Exception ignored) {
                // the watch never fires anyway: the server filters events this identity may not read
            }
            throw new NotAuthorizedException("cannot watch " + path + ": " + e.getMessage(), e);
        }
    }

    void track(NodeLease lease) {
        leases.add(lease);
    }

    void untrack(NodeLease lease) {
        leases.remove(lease);
    }

    /**
     * The client is closing but keeps its session (a wrapped Curator client): ends every live lease
     * LOST and deletes its node on that session, waiting at most {@code bound} for the deletes'
     * replies (a delete still unanswered then may leave its node until the session ends).
     */
    public void endLeasesKeepingSession(java.time.Duration bound) {
        java.util.concurrent.CompletableFuture<?>[] deletes = leases.stream().map(NodeLease::endWithClosingClient)
                .toArray(java.util.concurrent.CompletableFuture[]::new);
        try {
            java.util.concurrent.CompletableFuture.allOf(deletes).get(bound.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException e) {
            long open = java.util.Arrays.stream(deletes).filter(d -> !d.isDone()).count();
            org.slf4j.LoggerFactory.getLogger(Zk.class).warn("closing client: {} of {} lease node deletes got no answer within {};"
                    + " those nodes stay until session 0x{} ends", open, deletes.length, bound, Long.toHexString(sessions.current() == null
                    ? 0 : sessions.current().id()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The process stalled: every live lease of this client becomes UNCERTAIN until a round trip confirms it. */
    public void suspectAllLeases() {
        leases.forEach(NodeLease::suspect);
    }

    public CoordException translate(Throwable e, CoordPath path) {
        return KeeperErrors.translate(e, path == null ? "?" : path.value(), principals);
    }
}
