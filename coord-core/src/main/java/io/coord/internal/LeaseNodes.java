package io.coord.internal;

import io.coord.CoordPath;
import io.coord.FencingToken;
import io.coord.SessionExpiredException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * Creates the ephemeral node a lease stands on, the way every recipe must: protected (Curator
 * prefixes a unique id, so a create whose reply was lost is found again, and no later node can
 * ever have the same path), parents as containers with the client's ACL policy, and the czxid
 * taken from the create's own reply (no extra round trip) as the fencing token.
 */
public final class LeaseNodes {
    private LeaseNodes() {
    }

    /** A node just created for a lease: its token (czxid + path), its stat, and the session that owns it. */
    public record Created(FencingToken token, Stat stat, ZkSession session) {
    }

    /**
     * Creates {@code parent/prefix…} as an ephemeral (sequential if asked) protected node holding
     * {@code data}.
     */
    public static Created create(Zk zk, CoordPath parent, String prefix, byte[] data, boolean sequential)
            throws InterruptedException {
        CoordPath.validateName(prefix);
        CoordPath base = parent.child(prefix);
        zk.checkSize(base, data.length);
        ZkSession before = zk.liveSession();
        Stat filled = new Stat();
        String path = zk.call(base, () -> zk.curator().create()
                .storingStatIn(filled)
                .creatingParentContainersIfNeeded()
                .withProtection()
                .withMode(sequential ? CreateMode.EPHEMERAL_SEQUENTIAL : CreateMode.EPHEMERAL)
                .forPath(base.value(), data));
        CoordPath created = CoordPath.of(path);
        Stat stat = filled;
        if (filled.getCzxid() == 0) {
            // The create was applied but its reply was lost: Curator's protected mode found the node
            // again by name, and that path never fills the stat. Read it (czxid is still the token);
            // gone again means our session ended meanwhile, which the check below reports.
            Stat found;
            try {
                found = zk.call(created, () -> zk.curator().checkExists().forPath(path));
            } catch (RuntimeException | InterruptedException e) {
                // Curator cleans up only when the create itself throws: a recovered node we cannot
                // read would stay on a live session and block everyone behind it. Delete it.
                deleteQuietly(zk, path);
                throw e;
            }
            stat = found != null ? found : filled;
        }
        ZkSession owner = zk.sessions().current();
        if (owner == null || owner.id() != stat.getEphemeralOwner() || owner.state().isTerminal()) {
            // The session changed while the create was in flight: the node belongs to a session we
            // no longer hold. Remove it (best effort) and report the loss.
            deleteQuietly(zk, path);
            throw new SessionExpiredException("session 0x" + Long.toHexString(before.id()) + " ended while creating " + created);
        }
        return new Created(new FencingToken(stat.getCzxid(), created), stat, owner);
    }

    /**
     * A node created by {@link #createListing} and the parent's children read right behind the
     * create. {@code children} is null when that listing cannot be trusted to follow our create
     * (the parent did not exist yet and Curator created it before retrying the create, or the
     * create was retried after a lost reply): the caller then reads again.
     */
    public record Listed(Created created, List<String> children) {
    }

    /**
     * Like {@link #create}, and the parent's children read in the same breath: the create and the
     * {@code getChildren} are sent back to back in the background on one session, which ZooKeeper
     * answers in order, so the listing already holds our node and the caller waits one round trip
     * for both. The listing is handed out only if it names our node (see {@link Listed}).
     * Never blocks: the future completes on ZooKeeper's event thread (its dependents must not block
     * there) with the node, or with the failure translated as {@link #create} throws it (a node that
     * was made but cannot be kept is deleted first).
     */
    public static CompletableFuture<Listed> createListing(Zk zk, CoordPath parent, String prefix, byte[] data, boolean sequential) {
        CoordPath base = checked(zk, parent, prefix, data);
        ZkSession before = zk.liveSession();
        CompletableFuture<CuratorEvent> createReply = sendCreate(zk, base, data, sequential);
        CompletableFuture<CuratorEvent> listReply = new CompletableFuture<>();
        try {
            zk.op(parent, () -> zk.curator().getChildren().inBackground((c, e) -> listReply.complete(e)).forPath(parent.value()));
        } catch (RuntimeException e) {
            listReply.complete(null); // not sent: the caller reads again
        }
        CompletableFuture<Listed> out = new CompletableFuture<>();
        createReply.thenAcceptBoth(listReply, (created, listed) -> settle(zk, base, before, created, children(listed), out));
        return out;
    }

    /**
     * {@link #createListing} for a caller that waits on its own thread: the create is sent in the
     * background and the listing right behind it as a plain blocking call, so the caller is woken by
     * the listing's reply itself (ZooKeeper's I/O thread wakes a blocking call directly), not at the
     * end of a chain of callbacks on ZooKeeper's event thread; the create's reply, which ZooKeeper
     * answers before the listing's, has normally been handled by then. On a loaded machine that chain
     * was a third of an uncontended lock cycle (see {@code limits.lockCycle} in BENCHMARKS.md). An
     * interrupt does not lose the node: it is deleted when its create's reply comes.
     */
    public static Listed createThenList(Zk zk, CoordPath parent, String prefix, byte[] data, boolean sequential)
            throws InterruptedException {
        EventThreads.checkMayBlock("the create of a lease node");
        CoordPath base = checked(zk, parent, prefix, data);
        ZkSession before = zk.liveSession();
        CompletableFuture<CuratorEvent> createReply = sendCreate(zk, base, data, sequential);
        List<String> children;
        CompletableFuture<Listed> out = new CompletableFuture<>();
        try {
            children = zk.curator().getChildren().forPath(parent.value());
        } catch (InterruptedException e) {
            createReply.thenAccept(created -> settle(zk, base, before, created, null, out));
            out.thenAccept(made -> deleteInBackground(zk, made.created().token().node().value()));
            throw e;
        } catch (Exception e) {
            children = null; // no listing (the parent was not there yet, or the connection failed): the create's reply decides
        }
        List<String> listed = children;
        createReply.thenAccept(created -> settle(zk, base, before, created, listed, out));
        return awaitListing(zk, out);
    }

    private static CoordPath checked(Zk zk, CoordPath parent, String prefix, byte[] data) {
        CoordPath.validateName(prefix);
        CoordPath base = parent.child(prefix);
        zk.checkSize(base, data.length);
        return base;
    }

    /** Sends the protected create of {@code base…} in the background; its reply completes the future on ZooKeeper's event thread. */
    private static CompletableFuture<CuratorEvent> sendCreate(Zk zk, CoordPath base, byte[] data, boolean sequential) {
        CompletableFuture<CuratorEvent> createReply = new CompletableFuture<>();
        zk.op(base, () -> zk.curator().create()
                .creatingParentContainersIfNeeded()
                .withProtection()
                .withMode(sequential ? CreateMode.EPHEMERAL_SEQUENTIAL : CreateMode.EPHEMERAL)
                .inBackground((c, e) -> createReply.complete(e))
                .forPath(base.value(), data));
        return createReply;
    }

    /** Turns the create's reply, and a listing sent behind it (null: none), into {@code out}. */
    private static void settle(Zk zk, CoordPath base, ZkSession before, CuratorEvent created, List<String> children,
            CompletableFuture<Listed> out) {
        KeeperException.Code code = KeeperException.Code.get(created.getResultCode());
        if (code != KeeperException.Code.OK) {
            out.completeExceptionally(zk.translate(KeeperException.create(code, base.value()), base));
            return;
        }
        String path = created.getName();
        Stat stat = created.getStat();
        if (stat == null || stat.getCzxid() == 0) {
            // Found again by name after a lost reply (no stat then): read it; czxid is still the token.
            recoverStat(zk, path, before, out);
            return;
        }
        keep(zk, path, stat, before, trusted(children, path), out);
    }

    private static List<String> children(CuratorEvent listed) {
        if (listed == null || listed.getResultCode() != KeeperException.Code.OK.intValue()) {
            return null;
        }
        return listed.getChildren();
    }

    /** The children of a listing sent behind our create, if it holds our node; else null. */
    private static List<String> trusted(List<String> children, String ourPath) {
        if (children == null) {
            return null;
        }
        String name = ourPath.substring(ourPath.lastIndexOf('/') + 1);
        return children.contains(name) ? children : null;
    }

    private static void recoverStat(Zk zk, String path, ZkSession before, CompletableFuture<Listed> out) {
        try {
            zk.curator().checkExists().inBackground((c, e) -> {
                if (e.getResultCode() != KeeperException.Code.OK.intValue() || e.getStat() == null) {
                    if (e.getResultCode() != KeeperException.Code.NONODE.intValue()) {
                        deleteInBackground(zk, path);
                    }
                    out.completeExceptionally(new SessionExpiredException("session 0x" + Long.toHexString(before.id())
                            + " lost the node " + path + " while creating it (" + KeeperException.Code.get(e.getResultCode()) + ")"));
                    return;
                }
                keep(zk, path, e.getStat(), before, null, out);
            }).forPath(path);
        } catch (Exception e) {
            deleteInBackground(zk, path);
            out.completeExceptionally(zk.translate(e, CoordPath.of(path)));
        }
    }

    /** Hands out the node if our current session owns it; else deletes it and reports the session's end. */
    private static void keep(Zk zk, String path, Stat stat, ZkSession before, List<String> children, CompletableFuture<Listed> out) {
        ZkSession owner = zk.sessions().current();
        if (owner == null || owner.id() != stat.getEphemeralOwner() || owner.state().isTerminal()) {
            deleteInBackground(zk, path);
            out.completeExceptionally(new SessionExpiredException("session 0x" + Long.toHexString(before.id())
                    + " ended while creating " + path));
            return;
        }
        CoordPath created = CoordPath.of(path);
        out.complete(new Listed(new Created(new FencingToken(stat.getCzxid(), created), stat, owner), children));
    }

    /**
     * Waits for {@link #createListing}'s node. An interrupt does not lose the node: it is deleted
     * when its create's reply comes, and the interrupt is thrown.
     */
    public static Listed awaitListing(Zk zk, CompletableFuture<Listed> pending) throws InterruptedException {
        EventThreads.checkMayBlock("the create of a lease node");
        try {
            return pending.get();
        } catch (InterruptedException e) {
            pending.thenAccept(listed -> deleteInBackground(zk, listed.created().token().node().value()));
            throw e;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw zk.translate(e.getCause(), null);
        }
    }

    /** A guaranteed delete sent in the background: Curator retries it until it lands or the session ends. Never blocks. */
    public static void deleteInBackground(Zk zk, String path) {
        try {
            zk.curator().delete().guaranteed().inBackground((c, e) -> { }).forPath(path);
        } catch (Exception ignored) {
            // the client is closing: the node goes with its session
        }
    }

    private static void deleteQuietly(Zk zk, String path) {
        try {
            zk.curator().delete().guaranteed().forPath(path);
        } catch (Exception ignored) {
            // the guaranteed delete keeps trying in the background
        }
    }

    /** Starts the lease for a node made by {@link #create}. */
    public static NodeLease lease(Zk zk, Created created) {
        return new NodeLease(zk, created.session(), created.token());
    }
}
