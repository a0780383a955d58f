package io.coord;

import java.util.List;
import java.util.Objects;

/**
 * A recipe's directory holds children the recipe does not understand (a typo'd child, another
 * tool's node, another recipe's or an older layout's), so it refuses to decide who holds or
 * leads: whoever made those nodes follows a rule it cannot see, and ignoring them could let two
 * holders in. Final: nothing changes until the nodes are gone. The message names the directory,
 * the nodes and what to do; the recipe's own node was removed before this was thrown.
 */
public class ForeignNodesException extends CoordException {
    private static final long serialVersionUID = 1L;

    private final CoordPath path;
    private final List<String> nodes;

    public ForeignNodesException(String message, CoordPath path, List<String> nodes) {
        super(message);
        this.path = Objects.requireNonNull(path, "path");
        this.nodes = List.copyOf(nodes);
    }

    /** The first ten of {@code nodes}, comma-separated, with how many there are in all if more: for a message. */
    public static String listed(List<String> nodes) {
        int shown = Math.min(nodes.size(), 10);
        return String.join(", ", nodes.subList(0, shown)) + (shown < nodes.size() ? ", ... (" + nodes.size() + " in all)" : "");
    }

    /** The recipe's directory. */
    public CoordPath path() {
        return path;
    }

    /** The children it did not understand, by name. */
    public List<String> nodes() {
        return nodes;
    }
}
