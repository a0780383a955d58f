package io.coord;

import java.util.Objects;

/**
 * A fencing token: the czxid (creation transaction id) of the node that won a lease, plus that
 * node's path. zxids are global, never reused and never go back (across leader changes, and
 * across deletion and re-creation of a parent), so the tokens of one exclusive lease (a lock, a
 * leadership, a unique name, a queue task's claims, a read-write lock's <em>write</em> leases)
 * strictly increase in the order they were granted. Sequence suffixes do not (they restart with the
 * parent), so they are never tokens.
 *
 * <p>Shared leases are not in that order: a read of a read-write lock anchored at its write (a
 * downgrade) is created after a queued writer and granted before it, and a semaphore's holders
 * hold together. Feed a {@link io.coord.fence.FenceGuard} with the tokens of exclusive leases only;
 * for a read-write lock, with write tokens only.
 *
 * <p>Ordering and equality of tokens for fencing use {@link #value()} only.
 */
public record FencingToken(long value, CoordPath node) implements Comparable<FencingToken> {
    public FencingToken {
        if (value <= 0) {
            throw new IllegalArgumentException("fencing token must be a czxid > 0, got " + value);
        }
        Objects.requireNonNull(node, "node");
    }

    /** True if this token was granted after {@code other}. */
    public boolean isNewerThan(FencingToken other) {
        return value > other.value;
    }

    @Override
    public int compareTo(FencingToken other) {
        return Long.compare(value, other.value);
    }

    @Override
    public String toString() {
        return "FencingToken[0x" + Long.toHexString(value) + " " + node + "]";
    }
}
