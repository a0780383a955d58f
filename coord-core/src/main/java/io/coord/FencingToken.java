package io.coord;

import java.util.Objects;

/**
 * A fencing token: the czxid (creation transaction id) of the node that won a lease, plus that
 * node's path. zxids are global, never reused and never go back (across leader changes, and
 * across deletion and re-creation of a parent), so tokens strictly increase in the order leases
 * were granted. Sequence suffixes do not (they restart with the parent), so they are never tokens.
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
