package io.coord.naming;

import io.coord.Codec;
import io.coord.CoordException;
import io.coord.CoordPath;
import io.coord.FencingToken;
import io.coord.InvalidNameException;
import io.coord.SessionExpiredException;
import io.coord.internal.ForeignNodeWarnings;
import io.coord.internal.LeaseNodes;
import io.coord.internal.NodeLease;
import io.coord.internal.Zk;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.UUID;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link UniqueNames} on {@code /names/{name}/owner}. An ephemeral claim first makes its lease node
 * beside the owner node ({@link LeaseNodes}: protected, czxid token, the shared lease machine), then
 * the owner node; the lease node's unique path is what makes releasing safe. Any other child of a
 * name's node is logged at WARN once by a claim; an owner node Coord cannot decode fails every
 * claim and {@code owner} with a {@link io.coord.CodecException} naming it, and is left as it is.
 */
final class ZkUniqueNames implements UniqueNames {
    private static final Logger LOG = LoggerFactory.getLogger(ZkUniqueNames.class);
    static final Codec<OwnerRecord> CODEC = Codec.json(OwnerRecord.class).withLimit(4096);
    /** One WARN per foreign child of a name's node in this JVM, whichever claimant finds it. */
    private static final ForeignNodeWarnings FOREIGN = new ForeignNodeWarnings(LOG, "coord-naming unique names");
    /** A claim's lease node: Curator's protected name ({@code _c_} and a UUID) for {@link Layout#LEASE}. */
    private static final Pattern LEASE_NODE = Pattern.compile("_c_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}-"
            + Layout.LEASE);

    /**
     * What an owner node holds. {@code claim} is unique per claim, so a claimant recognises its
     * own node after a lost reply and never mistakes a later claim (even its own) for it.
     */
    record OwnerRecord(String owner, String claim, boolean persistent, String lease) {
    }

    /** An owner node as read: its record and stat. */
    record Owner(OwnerRecord record, Stat stat) {
        String describe() {
            return record.persistent() ? "persistent claim, token " + stat.getCzxid()
                    : "ephemeral claim of session 0x" + Long.toHexString(stat.getEphemeralOwner()) + ", token " + stat.getCzxid();
        }
    }

    private final Zk zk;
    private final String ownerId;

    ZkUniqueNames(Zk zk, String ownerId) {
        if (ownerId == null || ownerId.isBlank() || ownerId.length() > 255) {
            throw new InvalidNameException("owner " + (ownerId == null ? "null" : "\"" + ownerId + "\"")
                    + " must be 1..255 characters and not blank: it is how other claimants see you");
        }
        this.zk = zk;
        this.ownerId = ownerId;
    }

    @Override
    public String ownerId() {
        return ownerId;
    }

    @Override
    public NameClaim claim(String name) throws InterruptedException {
        CoordPath parent = Layout.nameNode(name);
        CoordPath ownerPath = parent.child(Layout.OWNER);
        warnForeign(parent);
        throwIfTaken(name, ownerPath);
        String claimId = UUID.randomUUID().toString();
        byte[] leaseData = CODEC.encode(parent, new OwnerRecord(ownerId, claimId, false, null));
        LeaseNodes.Created created = LeaseNodes.create(zk, parent, Layout.LEASE, leaseData, false);
        long sessionId = created.session().id();
        boolean ok = false;
        try {
            OwnerRecord record = new OwnerRecord(ownerId, claimId, false, created.token().node().value());
            Stat stat = createOwner(name, ownerPath, record, CreateMode.EPHEMERAL, sessionId);
            if (stat.getEphemeralOwner() != sessionId) {
                // The session changed between the two creates: the owner node belongs to a session
                // the lease is not bound to. It is undone below (same claim id); report the loss.
                throw new SessionExpiredException("session " + created.session().idHex() + " ended while claiming " + name);
            }
            NodeLease lease = LeaseNodes.lease(zk, created);
            lease.onRelease(() -> releaseQuietly(ownerPath, claimId, sessionId));
            ok = true;
            return new ZkNameClaim(name, ownerId, false, new FencingToken(stat.getCzxid(), ownerPath), lease,
                    () -> releaseQuietly(ownerPath, claimId, sessionId));
        } finally {
            if (!ok) {
                // Failed, interrupted, or indeterminate (the owner create may have been applied
                // although its reply was lost): undo whatever of this claim exists.
                undo(ownerPath, claimId, created.token().node());
            }
        }
    }

    @Override
    public NameClaim claimPersistent(String name) throws InterruptedException {
        CoordPath ownerPath = Layout.nameNode(name).child(Layout.OWNER);
        warnForeign(ownerPath.parent());
        throwIfTaken(name, ownerPath);
        String claimId = UUID.randomUUID().toString();
        boolean ok = false;
        try {
            Stat stat = createOwner(name, ownerPath, new OwnerRecord(ownerId, claimId, true, null), CreateMode.PERSISTENT, 0);
            ok = true;
            return new ZkNameClaim(name, ownerId, true, new FencingToken(stat.getCzxid(), ownerPath), null,
                    () -> releaseQuietly(ownerPath, claimId, 0));
        } finally {
            if (!ok) {
                undo(ownerPath, claimId, null);
            }
        }
    }

    @Override
    public Optional<String> owner(String name) throws InterruptedException {
        return read(Layout.nameNode(name).child(Layout.OWNER)).map(o -> o.record().owner());
    }

    @Override
    public boolean release(String name) throws InterruptedException {
        CoordPath ownerPath = Layout.nameNode(name).child(Layout.OWNER);
        Optional<Owner> owner = read(ownerPath);
        if (owner.isEmpty() || !owner.get().record().persistent() || !owner.get().record().owner().equals(ownerId)) {
            return false;
        }
        return deleteAtVersion(ownerPath, owner.get().stat().getVersion());
    }

    /**
     * Logs at WARN, once per node, every child of a name's node other than its owner and claims'
     * lease nodes. They take no part in who holds the name (only the owner node decides), so a
     * claim goes on beside them; one read per claim, which is rare.
     */
    private void warnForeign(CoordPath parent) throws InterruptedException {
        List<String> children = zk.call(parent, () -> {
            try {
                return zk.curator().getChildren().forPath(parent.value());
            } catch (KeeperException.NoNodeException none) {
                return List.<String>of();
            }
        });
        FOREIGN.check(parent, children, c -> c.equals(Layout.OWNER) || LEASE_NODE.matcher(c).matches(),
                "only " + Layout.OWNER + " and claims' _c_{uuid}-" + Layout.LEASE + " nodes");
    }

    private void throwIfTaken(String name, CoordPath ownerPath) throws InterruptedException {
        Optional<Owner> owner = read(ownerPath);
        if (owner.isPresent()) {
            throw new NameTakenException(name, owner.get().record().owner(), owner.get().describe());
        }
    }

    /**
     * Creates the owner node; on NodeExists reads it: our own claim id (a create whose reply was
     * lost, retried by Curator) is ours, anything else means the name is taken.
     */
    private Stat createOwner(String name, CoordPath ownerPath, OwnerRecord record, CreateMode mode, long sessionId)
            throws InterruptedException {
        byte[] data = CODEC.encode(ownerPath, record);
        CuratorFramework curator = zk.curator();
        Stat stat = new Stat();
        boolean created = zk.call(ownerPath, () -> {
            try {
                curator.create().storingStatIn(stat).creatingParentContainersIfNeeded().withMode(mode)
                        .forPath(ownerPath.value(), data);
                return true;
            } catch (KeeperException.NodeExistsException e) {
                return false;
            }
        });
        if (created) {
            return stat;
        }
        Optional<Owner> existing = read(ownerPath);
        if (existing.isPresent() && existing.get().record().claim().equals(record.claim())
                && (record.persistent() || existing.get().stat().getEphemeralOwner() == sessionId)) {
            return existing.get().stat();
        }
        if (existing.isEmpty()) {
            throw new NameTakenException(name, "(released meanwhile)", "another claim won and was released; try again");
        }
        throw new NameTakenException(name, existing.get().record().owner(), existing.get().describe());
    }

    Optional<Owner> read(CoordPath ownerPath) throws InterruptedException {
        CuratorFramework curator = zk.curator();
        return zk.call(ownerPath, () -> {
            Stat stat = new Stat();
            try {
                byte[] data = curator.getData().storingStatIn(stat).forPath(ownerPath.value());
                return Optional.of(new Owner(CODEC.decode(ownerPath, data), stat));
            } catch (KeeperException.NoNodeException e) {
                return Optional.empty();
            }
        });
    }

    /**
     * Deletes the owner node only if it is still this claim's: same claim id and, for an ephemeral
     * claim, same session. The version check covers the read-to-delete window. Not a guaranteed
     * (background-retried) delete: a retry after the name changed hands could delete the new owner.
     */
    private void releaseQuietly(CoordPath ownerPath, String claimId, long sessionId) {
        try {
            deleteIfOurs(ownerPath, claimId, sessionId);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            LOG.warn("interrupted while releasing {}; an ephemeral claim still ends with its session", ownerPath);
        } catch (CoordException e) {
            LOG.warn("could not release {}: {}; an ephemeral claim still ends with its session, a persistent one"
                    + " can be released with UniqueNames.release", ownerPath, e.getMessage());
        }
    }

    /**
     * Best-effort cleanup of a claim that did not complete, also on an interrupted thread (the
     * interrupt is kept). If it cannot reach ZooKeeper, an ephemeral owner node still dies with its
     * session and a persistent one can be released with {@link #release}.
     */
    private void undo(CoordPath ownerPath, String claimId, CoordPath leaseNode) {
        boolean interrupted = Thread.interrupted();
        try {
            deleteIfOurs(ownerPath, claimId, 0);
        } catch (InterruptedException e) {
            interrupted = true;
        } catch (RuntimeException e) {
            LOG.warn("could not undo the unfinished claim {}: {}", ownerPath, e.getMessage());
        } finally {
            if (leaseNode != null) {
                interrupted |= deleteLeaseNode(leaseNode);
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void deleteIfOurs(CoordPath ownerPath, String claimId, long sessionId) throws InterruptedException {
        Optional<Owner> owner = read(ownerPath);
        if (owner.isEmpty() || !owner.get().record().claim().equals(claimId)) {
            return;
        }
        if (sessionId != 0 && owner.get().stat().getEphemeralOwner() != sessionId) {
            return;
        }
        deleteAtVersion(ownerPath, owner.get().stat().getVersion());
    }

    private boolean deleteAtVersion(CoordPath path, int version) throws InterruptedException {
        CuratorFramework curator = zk.curator();
        return zk.call(path, () -> {
            try {
                curator.delete().withVersion(version).forPath(path.value());
                return true;
            } catch (KeeperException.NoNodeException | KeeperException.BadVersionException e) {
                return false;
            }
        });
    }

    /**
     * The lease node's path is unique (protected), so a guaranteed delete can only ever hit our own
     * node. Returns whether it was interrupted (the caller restores the flag).
     */
    private boolean deleteLeaseNode(CoordPath leaseNode) {
        try {
            zk.curator().delete().guaranteed().forPath(leaseNode.value());
        } catch (KeeperException.NoNodeException ignored) {
            // already gone
        } catch (InterruptedException e) {
            return true;
        } catch (Exception e) {
            LOG.debug("could not delete {} now; the guaranteed delete retries in the background", leaseNode, e);
        }
        return false;
    }
}
