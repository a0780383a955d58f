package io.coord.internal;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Pure rules for ephemeral-sequential children, shared by every queue-shaped recipe (lock,
 * election, semaphore, read-write lock). Names may carry Curator's protection prefix
 * ({@code _c_<uuid>-lock-0000000007}); order is by the 10-digit sequence suffix only.
 *
 * <p>The suffix orders waiters within one incarnation of the parent; it is never a fencing token
 * (it restarts when the parent is re-created).
 */
public final class SequentialNodes {
    private static final int SUFFIX_LENGTH = 10;

    private SequentialNodes() {
    }

    /** The sequence number of {@code name}, or -1 if it has no sequence suffix. */
    public static long sequence(String name) {
        if (name.length() < SUFFIX_LENGTH) {
            return -1;
        }
        String suffix = name.substring(name.length() - SUFFIX_LENGTH);
        for (int i = 0; i < suffix.length(); i++) {
            char c = suffix.charAt(i);
            if (c < '0' || c > '9') {
                // ZooKeeper formats with %010d; past Integer.MAX_VALUE it wraps to a '-' sign.
                return -1;
            }
        }
        long value = Long.parseLong(suffix);
        // "-2147483648" is 11 characters: its last 10 are digits but exceed any int sequence.
        return value > Integer.MAX_VALUE ? -1 : value;
    }

    /** Whether {@code name} is a node of this recipe: contains {@code prefix} and ends with a sequence. */
    public static boolean matches(String name, String prefix) {
        return name.contains(prefix) && sequence(name) >= 0;
    }

    /** The children that match {@code prefix}, ordered by sequence (lowest, i.e. first in line, first). */
    public static List<String> sorted(List<String> children, String prefix) {
        List<String> out = new ArrayList<>();
        for (String child : children) {
            if (matches(child, prefix)) {
                out.add(child);
            }
        }
        out.sort(Comparator.comparingLong(SequentialNodes::sequence));
        return out;
    }

    /** Position of {@code ours} in {@code sorted}, or -1 if it is not there (our node is gone). */
    public static int position(List<String> sorted, String ours) {
        return sorted.indexOf(ours);
    }

    /**
     * The node {@code ours} must wait for when up to {@code slots} nodes may hold at once (1 for a
     * mutex): the node {@code slots} places ahead, or empty if {@code ours} is among the first
     * {@code slots}. Throws if {@code ours} is not in the list.
     */
    public static Optional<String> toWatch(List<String> sorted, String ours, int slots) {
        int at = position(sorted, ours);
        if (at < 0) {
            throw new IllegalStateException("node " + ours + " is not among the children " + sorted);
        }
        return at < slots ? Optional.empty() : Optional.of(sorted.get(at - slots));
    }
}
