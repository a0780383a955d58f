package io.coord.config;

import io.coord.CoordPath;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What a reader knows about one watched node (a key's released value or its canary). Its state
 * fields are confined to the reader's config thread; {@link #queued} and {@link #needsSync} are
 * how ZooKeeper's and Curator's threads ask that thread to read the node again.
 */
final class NodeTrack {
    enum Kind { STABLE, CANARY }

    /**
     * A node's content that passed the checks (or, for a canary this instance is not in, that it
     * will never apply).
     *
     * @param percent the canary percentage; 100 for a released value
     */
    record Content(CoordPath path, byte[] bytes, long version, long revision, Instant modified, double percent, Kind kind) {
        Versioned.Origin origin() {
            return kind == Kind.CANARY ? Versioned.Origin.CANARY : Versioned.Origin.LIVE;
        }
    }

    final String key;
    final Kind kind;
    final CoordPath path;

    VersionRule.Seen seen = VersionRule.Seen.NEVER;
    /** Whether a live read of this node has succeeded since the reader (re)started watching. */
    boolean readOnce;
    /** The last good content; null while the node is absent (or nothing good was ever read). */
    Content good;

    final AtomicBoolean queued = new AtomicBoolean();
    volatile boolean needsSync;

    NodeTrack(String key, Kind kind, CoordPath path) {
        this.key = key;
        this.kind = kind;
        this.path = path;
    }

    @Override
    public String toString() {
        return kind + " " + path + " " + seen;
    }
}
