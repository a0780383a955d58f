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
        CoordPath.validateName(prefix);
        CoordPath base = parent.child(prefix);
        zk.checkSize(base, data.length);
        ZkSession before = zk.liveSession();
        CompletableFuture<CuratorEvent> createReply = new CompletableFuture<>();
        CompletableFuture<CuratorEvent> listReply = new CompletableFuture<>();
        zk.op(base, () -> zk.curator().create()
                .creatingParentContainersIfNeeded()
                .withProtection()
                .withMode(sequential ? CreateMode.EPHEMERAL_SEQUENTIAL : CreateMode.EPHEMERAL)
                .inBackground((c, e) -> createReply.complete(e))
                .forPath(base.value(), data));
        try {
            zk.op(parent, () -> zk.curator().getChildren().inBackground((c, e) -> listReply.complete(e)).forPath(parent.value()));
        } catch (RuntimeException e) {
            listReply.complete(null); // not sent: the caller reads again
        }
        CompletableFuture<Listed> out = new CompletableFuture<>();
        createReply.thenAcceptBoth(listReply, (created, listed) -> {
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
            keep(zk, path, stat, before, trusted(listed, path), out);
        });
        return out;
    }

    /** The children of a listing sent behind our create, if it holds our node; else null. */
    private static List<String> trusted(CuratorEvent listed, String ourPath) {
        if (listed == null || listed.getResultCode() != KeeperException.Code.OK.intValue() || listed.getChildren() == null) {
            return null;
        }
        String name = ourPath.substring(ourPath.lastIndexOf('/') + 1);
        return listed.getChildren().contains(name) ? listed.getChildren() : null;
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
