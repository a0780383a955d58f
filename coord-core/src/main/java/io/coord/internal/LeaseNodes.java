package io.coord.internal;

import io.coord.CoordPath;
import io.coord.FencingToken;
import io.coord.SessionExpiredException;
import org.apache.zookeeper.CreateMode;
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
