package io.coord.barrier;

import io.coord.CoordPath;
import io.coord.ForeignNodesException;
import java.util.List;
import java.util.regex.Pattern;

/**
 * What may sit directly under a barrier's root: its generations ({@code 0000000001}, ...), and
 * nothing else. Curator's {@code DistributedDoubleBarrier} on the same path puts its participants
 * there (random UUIDs, ephemeral) and a {@code ready} node, and counts every child as a member that
 * entered: beside Coord's generations it would let its members through early, and beside its
 * members Coord's count would not be theirs. So Coord refuses to enter beside those nodes, and
 * reports any other foreign child (logged once, listed by the status).
 */
final class RootChildren {
    /** Curator's DistributedDoubleBarrier: the node its count creates when complete. */
    static final String CURATOR_READY = "ready";
    private static final Pattern UUID = Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");

    private RootChildren() {
    }

    static boolean isGeneration(String child) {
        return Generation.parseNumber(child) >= 1;
    }

    /** Whether a root child is a node of Curator's DistributedDoubleBarrier: a participant's UUID, or its ready node. */
    static boolean isCuratorNode(String child) {
        return child.equals(CURATOR_READY) || UUID.matcher(child).matches();
    }

    /** The foreign children of a root, in the order given. */
    static List<String> foreign(List<String> children) {
        return children.stream().filter(c -> !isGeneration(c)).toList();
    }

    /** The refusal to enter beside Curator's barrier nodes; names the path, the nodes and what to do. */
    static ForeignNodesException curatorBarrierAt(String barrier, CoordPath root, List<String> nodes) {
        String names = ForeignNodesException.listed(nodes);
        return new ForeignNodesException(root + " holds " + nodes.size() + " node(s) of Curator's DistributedDoubleBarrier"
                + " (participant UUIDs, " + CURATOR_READY + "): " + names + ". Curator counts every child of the path as a member"
                + " that entered and Coord counts only its own generation's seats, so one barrier cannot have members of both;"
                + " Coord will not enter barrier '" + barrier + "' beside them. Let the Curator members finish (their nodes go"
                + " with them; remove a stale " + CURATOR_READY + "), or give the Coord members another barrier name"
                + " (docs/MIGRATING.md, DistributedDoubleBarrier)", root, nodes);
    }
}
