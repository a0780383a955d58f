package io.coord.lock;

import io.coord.CoordPath;
import io.coord.ForeignNodesException;
import java.util.Collection;
import java.util.List;
import java.util.Set;

/**
 * Curator 5.9's InterProcessSemaphoreV2 layout, which Coord's semaphore shares: under the
 * semaphore's path a {@code locks/} mutex (the gate: one client at a time creates its lease and
 * waits for room) and {@code leases/} with one {@code _c_<uuid>-lease-<sequence>} node per lease.
 * A client holds once the leases number at most the permits. Anything else there is refused by
 * name: Coord's earlier layout ({@code lease-} nodes directly under the path), a typo'd child,
 * another tool's node. Curator counts every child of {@code leases/}, so a node there that is no
 * lease would silently take a permit from its count.
 */
final class SemaphoreLayout {
    static final String LOCKS = "locks";
    static final String LEASES = "leases";
    private static final Set<String> CHILDREN = Set.of(LOCKS, LEASES);
    private static final Set<WaitRule.Type> LEASE = Set.of(WaitRule.Type.LEASE);

    private SemaphoreLayout() {
    }

    /** Whether {@code children} of a node include a semaphore's ({@code locks} or {@code leases}). */
    static boolean hasSemaphoreChild(Collection<String> children) {
        return children.contains(LOCKS) || children.contains(LEASES);
    }

    /** The children of the semaphore's own node that are not {@code locks} or {@code leases}, by name. */
    static List<String> foreignAtRoot(Collection<String> children) {
        return children.stream().filter(c -> !CHILDREN.contains(c)).sorted().toList();
    }

    /** The children of {@code leases/} that are no lease node. */
    static List<String> foreignLeases(Collection<String> children) {
        return WaitRule.foreign(children, LEASE);
    }

    /** The lease nodes of {@code leases/}, in sequence order (the first {@code permits} hold). */
    static List<WaitRule.Node> leases(Collection<String> children) {
        return WaitRule.queue(children, LEASE);
    }

    /**
     * The refusal for {@code foreign} nodes under {@code at} (the semaphore's path or its
     * {@code leases/}); {@code removed} says which of our nodes went.
     */
    static ForeignNodesException refusal(CoordPath semaphore, CoordPath at, List<String> foreign, String removed) {
        boolean oldLayout = at.equals(semaphore) && !leases(foreign).isEmpty();
        String names = ForeignNodesException.listed(foreign);
        return new ForeignNodesException(at + " holds " + foreign.size() + " node(s) that are not part of a semaphore"
                + " (Coord's and Curator InterProcessSemaphoreV2's layout: " + semaphore + "/" + LOCKS + " and " + semaphore + "/"
                + LEASES + "/_c_<uuid>-lease-<sequence>): " + names + ". Whoever made them counts permits by a rule Coord cannot"
                + " see, so Coord takes none; " + removed + ". "
                + (oldLayout ? "lease- nodes directly under the path are Coord's semaphore layout before it took Curator's:"
                        + " finish the upgrade (stop the older Coord clients on this path first; they refuse the new layout"
                        + " too) or give the new clients another path. "
                        : "")
                + "Remove the nodes if they are stale, or give this semaphore a path of its own (see coord lock show " + semaphore + ")",
                at, foreign);
    }
}
