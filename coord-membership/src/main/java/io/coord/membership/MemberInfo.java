package io.coord.membership;

import io.coord.CoordPath;
import java.time.Instant;
import java.util.Objects;

/**
 * One member of a group as an observer last read it: one incarnation of the ephemeral node
 * {@code /groups/{group}/{id}}.
 *
 * <p>An incarnation is identified by {@link #czxid()}: a member that leaves and joins again under
 * the same id is a new incarnation (a new czxid), never an update of the old one.
 *
 * @param id              the member id (the node's name)
 * @param metadata        the member's metadata, decoded; null exactly when {@code metadataError} is set
 * @param metadataError   why the stored bytes could not be decoded (written by another program or
 *                        another metadata type); null when {@code metadata} is set. Such a member
 *                        is still a member: its node exists.
 * @param joinedAt        when the node was created, by the server's clock (its ctime)
 * @param session         the ZooKeeper session that owns the node (its ephemeral owner)
 * @param czxid           the zxid that created the node: the incarnation
 * @param mzxid           the zxid of the last metadata write (equal to {@code czxid} before any update)
 * @param metadataVersion how many times the metadata was updated (the node's data version)
 */
public record MemberInfo<M>(String id, M metadata, String metadataError, Instant joinedAt, long session,
                            long czxid, long mzxid, int metadataVersion) {
    public MemberInfo {
        CoordPath.validateName(id);
        if ((metadata == null) == (metadataError == null)) {
            throw new IllegalArgumentException("member " + id + ": exactly one of metadata and metadataError must be set,"
                    + " got metadata=" + metadata + ", metadataError=" + metadataError);
        }
        Objects.requireNonNull(joinedAt, "joinedAt");
        if (czxid <= 0 || mzxid < czxid) {
            throw new IllegalArgumentException("member " + id + ": need 0 < czxid <= mzxid, got czxid=" + czxid + ", mzxid=" + mzxid);
        }
        if (metadataVersion < 0) {
            throw new IllegalArgumentException("member " + id + ": metadataVersion must be >= 0, got " + metadataVersion);
        }
    }

    /** True if {@code other} is the same incarnation (same id, same node creation). */
    public boolean sameIncarnation(MemberInfo<?> other) {
        return other != null && id.equals(other.id) && czxid == other.czxid;
    }

    /** The session id as ZooKeeper tools print it ({@code 0x...}). */
    public String sessionHex() {
        return "0x" + Long.toHexString(session);
    }

    @Override
    public String toString() {
        return "Member[" + id + " czxid=0x" + Long.toHexString(czxid) + " v" + metadataVersion + " session=" + sessionHex()
                + (metadataError == null ? " " + metadata : " undecodable: " + metadataError) + "]";
    }
}
