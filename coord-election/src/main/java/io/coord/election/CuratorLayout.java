package io.coord.election;

/**
 * Which Curator 5.9 recipe's node layout an election shares, so that a fleet half on Curator and
 * half on Coord elects one leader at a time on one path (a rolling deploy). Coord's candidates
 * are named as that recipe names its nodes and are ordered with them by Curator's rule: the
 * sequence after the last occurrence of the name; the lowest leads.
 *
 * <p>One election cannot share both layouts: a {@code latch-} node sorts after every
 * {@code lock-} node for a {@code LeaderSelector} and the other way round, so each library would
 * think its own lowest node leads. Children of the other layout (or of none) make Coord refuse
 * with {@link io.coord.ForeignNodesException}.
 */
public enum CuratorLayout {
    /** {@code LeaderLatch}: {@code _c_{uuid}-latch-{seq}}, data = the participant id. The default. */
    LATCH("latch-", "LeaderLatch"),
    /** {@code LeaderSelector} (an {@code InterProcessMutex}): {@code _c_{uuid}-lock-{seq}}, data = the participant id. */
    SELECTOR("lock-", "LeaderSelector");

    private final String nodeName;
    private final String recipe;

    CuratorLayout(String nodeName, String recipe) {
        this.nodeName = nodeName;
        this.recipe = recipe;
    }

    /** The name in every candidate node, before its 10-digit sequence (after the protection prefix). */
    public String nodeName() {
        return nodeName;
    }

    /** The Curator recipe whose nodes these are. */
    public String recipe() {
        return recipe;
    }

    /** The other layout. */
    CuratorLayout other() {
        return this == LATCH ? SELECTOR : LATCH;
    }
}
