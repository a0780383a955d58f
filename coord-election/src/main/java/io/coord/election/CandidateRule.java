package io.coord.election;

import io.coord.CoordPath;
import io.coord.ForeignNodesException;
import io.coord.LeaseState;
import io.coord.internal.SequentialNodes;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * The election's decisions, pure (no I/O, no clock of its own): who leads, whom a candidate
 * watches, when a new leader may start acting, and which observed views are news.
 */
final class CandidateRule {
    /** The name Coord's candidates had before they took Curator's layouts: refused, named in the error. */
    static final String OLD_NAME = "candidate-";
    /** Digits of a sequence suffix. */
    private static final int SEQUENCE_DIGITS = 10;

    private CandidateRule() {
    }

    /** What a candidate does after reading the children. */
    sealed interface Step permits Lead, Watch, Gone, Foreign {
    }

    /** Ours is the lowest node: we are elected (we may still have to wait for the handover). */
    record Lead() implements Step {
    }

    /**
     * Wait for this node (the one just ahead of ours) to go. {@code electsOnDeletion}: it is the
     * only node ahead (the leader), so its deletion alone elects us, without reading the children
     * again: a node created later gets a higher sequence, the election node cannot be deleted and
     * re-created while ours is in it, and a deleted node (protected, unique name) never comes back.
     */
    record Watch(String predecessor, boolean electsOnDeletion) implements Step {
        Watch {
            if (predecessor == null || predecessor.isEmpty()) {
                throw new IllegalArgumentException("predecessor must be a node name, got \"" + predecessor + "\"");
            }
        }
    }

    /** Our node is not among the children: this candidacy is over. */
    record Gone() implements Step {
    }

    /**
     * Children that are not candidates of our layout: whoever made them follows a rule we cannot
     * see (the other Curator layout would believe its own lowest node leads), so we do not decide.
     */
    record Foreign(List<String> nodes) implements Step {
        Foreign {
            nodes = List.copyOf(nodes);
            if (nodes.isEmpty()) {
                throw new IllegalArgumentException("a refusal names at least one foreign node");
            }
        }
    }

    /**
     * The sequence of {@code child} by Curator's rule for {@code layout} (its
     * {@code StandardLockInternalsDriver}): what follows the last occurrence of the layout's
     * name, which must be exactly a 10-digit sequence; -1 if the child is not such a node.
     */
    static long sequence(String child, CuratorLayout layout) {
        return sequence(child, layout.nodeName());
    }

    private static long sequence(String child, String name) {
        int at = child.lastIndexOf(name);
        if (at < 0) {
            return -1;
        }
        String suffix = child.substring(at + name.length());
        return suffix.length() == SEQUENCE_DIGITS ? SequentialNodes.sequence(suffix) : -1;
    }

    /** Children that are no candidate of {@code layout} (Coord's or Curator's), in the order listed. */
    static List<String> foreign(List<String> children, CuratorLayout layout) {
        return children.stream().filter(c -> sequence(c, layout) < 0).toList();
    }

    /**
     * Candidate nodes of {@code layout}, Coord's and Curator's alike, in election order (the leader
     * first). Others are left out here: a candidate refuses beside them ({@link #next}), an
     * observer reports them.
     */
    static List<String> order(List<String> children, CuratorLayout layout) {
        return children.stream().filter(c -> sequence(c, layout) >= 0)
                .sorted(Comparator.comparingLong(c -> sequence(c, layout))).toList();
    }

    /** The leader's node name: the lowest candidate. */
    static Optional<String> leader(List<String> children, CuratorLayout layout) {
        List<String> sorted = order(children, layout);
        return sorted.isEmpty() ? Optional.empty() : Optional.of(sorted.get(0));
    }

    /**
     * The next step for the candidate whose node is {@code ours}: lead if lowest, otherwise watch
     * only the node just ahead (one watcher per node, so a leader leaving wakes exactly one
     * candidate), or gone if our node is not there. Foreign children come first: beside them
     * nothing is decided.
     */
    static Step next(List<String> children, String ours, CuratorLayout layout) {
        List<String> foreign = foreign(children, layout);
        if (!foreign.isEmpty()) {
            return new Foreign(foreign);
        }
        List<String> sorted = order(children, layout);
        if (SequentialNodes.position(sorted, ours) < 0) {
            return new Gone();
        }
        return SequentialNodes.toWatch(sorted, ours, 1)
                .<Step>map(p -> new Watch(p, sorted.get(0).equals(p)))
                .orElseGet(Lead::new);
    }

    /**
     * The refusal to decide beside {@code foreign}: names the election, the nodes, what they
     * probably are and what to do. {@code what} says what we did (not joined, left, stepped down).
     */
    static ForeignNodesException refusal(CoordPath path, CuratorLayout layout, List<String> foreign, String what) {
        String names = ForeignNodesException.listed(foreign);
        boolean other = foreign.stream().anyMatch(n -> sequence(n, layout.other()) >= 0);
        boolean old = foreign.stream().anyMatch(n -> sequence(n, OLD_NAME) >= 0);
        StringBuilder m = new StringBuilder().append("election ").append(path).append(" holds ").append(foreign.size())
                .append(" node(s) that are not ").append(layout).append(" candidates (").append(layout.nodeName())
                .append("{seq}, Coord's and Curator ").append(layout.recipe()).append("'s): ").append(names)
                .append(". Whoever made them elects by a rule Coord cannot see, so Coord ").append(what).append(". ");
        if (other) {
            m.append(layout.other().nodeName()).append(" nodes are Curator ").append(layout.other().recipe())
                    .append("'s: give this election curatorLayout(").append(layout.other()).append(") to share it with them. ");
        }
        if (old) {
            m.append("candidate- nodes are Coord's own election before it took Curator's layouts: finish the upgrade"
                    + " (stop the older clients on this election first) before starting new ones. ");
        }
        m.append("Remove the nodes if they are stale, or give this election a name of its own (see coord leader show).");
        return new ForeignNodesException(m.toString(), path, foreign);
    }

    /** What an elected candidate does about the handover. */
    enum Handover {
        /** The grace has not passed yet: wait until {@link #actAt}. */
        WAIT_GRACE,
        /** Our lease is UNCERTAIN (or the session is not connected): wait until it is restored or lost. */
        WAIT_RESTORED,
        /** Our candidacy ended (lost or released): join again or give up. */
        ENDED,
        /** Start acting now. */
        ACT
    }

    /**
     * Whether a candidate elected at {@code electedAtNanos} (the moment it saw itself lowest, i.e.
     * the previous leader's node gone) may act at {@code nowNanos}: only with a certain lease and
     * after {@code grace}.
     */
    static Handover handover(LeaseState lease, boolean sessionConnected, long electedAtNanos, long nowNanos, Duration grace) {
        if (lease.isTerminal()) {
            return Handover.ENDED;
        }
        if (lease != LeaseState.ACQUIRED || !sessionConnected) {
            return Handover.WAIT_RESTORED;
        }
        return nowNanos - actAt(electedAtNanos, grace) >= 0 ? Handover.ACT : Handover.WAIT_GRACE;
    }

    /** The moment (on the nanoTime scale) the grace after {@code electedAtNanos} ends. */
    static long actAt(long electedAtNanos, Duration grace) {
        return electedAtNanos + grace.toNanos();
    }

    /** The leader acts once the election node announces its epoch (and only its own, never an older one). */
    static boolean isActing(long announcedEpoch, long leaderEpoch) {
        return announcedEpoch == leaderEpoch;
    }

    /** A leader as an observer saw it: the epoch, and whether it announced that it acts. */
    record View(long epoch, boolean acting) {
        static final View NONE = new View(0, false);

        View {
            if (epoch < 0 || (epoch == 0 && acting)) {
                throw new IllegalArgumentException("bad view: epoch " + epoch + ", acting " + acting);
            }
        }

        boolean isNone() {
            return epoch == 0;
        }
    }

    /**
     * Whether an observer that last reported {@code last}, and at most epoch {@code highest} so
     * far, should report {@code next}:
     * <ul>
     *   <li>no leader after a leader: yes;
     *   <li>a higher epoch than any reported: yes (a new leader);
     *   <li>a lower epoch: no, a stale read (a client that reconnected on a new session to a server
     *       behind the one it read before);
     *   <li>the highest epoch again: only if it now acts and did not before, or if a "no leader"
     *       was reported in between (that one was the stale read, and this corrects it).
     * </ul>
     */
    static boolean isNews(View last, long highest, View next) {
        if (next.isNone()) {
            return !last.isNone();
        }
        if (next.epoch() != highest) {
            return next.epoch() > highest;
        }
        return last.isNone() || (last.epoch() == next.epoch() && next.acting() && !last.acting());
    }
}
