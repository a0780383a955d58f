package io.coord.config;

/**
 * Whether a read of one node may change what a reader holds: pure, no I/O. The rule that keeps
 * applied versions from ever going back.
 *
 * <p>Reads are ordered by the node's {@code mzxid} (its <em>revision</em>), not by its znode
 * version: ZooKeeper's zxids only grow, across leader changes and across a delete and re-create
 * of the node, while the znode version restarts at 0. A reader remembers the highest revision it
 * has seen of each node, applied or rejected, and:
 * <ul>
 *   <li>a read of the node with a <b>higher</b> revision is new ({@link Decision#APPLY}), subject
 *       to validation;</li>
 *   <li>the <b>same</b> revision again is {@link Decision#SAME} (a re-read after a reconnect: no
 *       event, and a refused value is not refused twice);</li>
 *   <li>a <b>lower</b> revision is {@link Decision#STALE}: an answer from a server that is behind
 *       what this reader already saw (possible on a new session, which may land on a lagging
 *       follower), never applied.</li>
 * </ul>
 * An <em>absent</em> node is judged by its parent's {@code pzxid} (the zxid of the parent's last
 * child create or delete): the delete of a node we saw at revision {@code r} happened after
 * {@code r}, so a server whose parent pzxid is not above {@code r} has not seen that delete yet
 * and its "absent" is stale. A missing parent counts as a trusted deletion.
 */
final class VersionRule {
    /** Parent pzxid to pass when the parent itself does not exist. */
    static final long PARENT_MISSING = Long.MAX_VALUE;

    private VersionRule() {
    }

    enum Decision {
        /** Newer than anything seen: validate and apply. */
        APPLY,
        /** What was already seen: nothing changes. */
        SAME,
        /** Older than what was already seen: ignore. */
        STALE
    }

    /**
     * What a reader has seen of one node.
     *
     * @param maxRevision the highest revision seen (applied or rejected), or the pzxid at which
     *                    the node was last seen absent; 0 before any read
     * @param present     whether the last accepted read found the node
     */
    record Seen(long maxRevision, boolean present) {
        static final Seen NEVER = new Seen(0, false);

        Seen {
            if (maxRevision < 0) {
                throw new IllegalArgumentException("maxRevision must be >= 0, got " + maxRevision);
            }
        }

        /** What is known after a read found the node at {@code revision} and it was accepted as new. */
        Seen afterPresent(long revision) {
            return new Seen(Math.max(maxRevision, revision), true);
        }

        /** What is known after a read found the node absent (parent pzxid {@code pzxid}) and it was accepted. */
        Seen afterAbsent(long pzxid) {
            return new Seen(pzxid == PARENT_MISSING ? maxRevision : Math.max(maxRevision, pzxid), false);
        }
    }

    /** A read found the node at {@code revision}. */
    static Decision present(Seen seen, long revision) {
        if (revision > seen.maxRevision()) {
            return Decision.APPLY;
        }
        return revision == seen.maxRevision() && seen.present() ? Decision.SAME : Decision.STALE;
    }

    /** A read found the node absent; {@code parentPzxid} is its parent's pzxid or {@link #PARENT_MISSING}. */
    static Decision absent(Seen seen, long parentPzxid) {
        if (!seen.present()) {
            return Decision.SAME;
        }
        return parentPzxid > seen.maxRevision() ? Decision.APPLY : Decision.STALE;
    }
}
