package io.coord.election;

import io.coord.LeaseState;
import io.coord.internal.SequentialNodes;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The election's decisions, pure (no I/O, no clock of its own): who leads, whom a candidate
 * watches, when a new leader may start acting, and which observed views are news.
 */
final class CandidateRule {
    /** Name prefix of candidate nodes (after Curator's protection prefix). */
    static final String PREFIX = "candidate-";

    private CandidateRule() {
    }

    /** What a candidate does after reading the children. */
    sealed interface Step permits Lead, Watch, Gone {
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

    /** Candidate nodes in election order (the leader first); other children are ignored. */
    static List<String> order(List<String> children) {
        return SequentialNodes.sorted(children, PREFIX);
    }

    /** The leader's node name: the lowest candidate. */
    static Optional<String> leader(List<String> children) {
        List<String> sorted = order(children);
        return sorted.isEmpty() ? Optional.empty() : Optional.of(sorted.get(0));
    }

    /**
     * The next step for the candidate whose node is {@code ours}: lead if lowest, otherwise watch
     * only the node just ahead (one watcher per node, so a leader leaving wakes exactly one
     * candidate), or gone if our node is not there.
     */
    static Step next(List<String> children, String ours) {
        List<String> sorted = order(children);
        if (SequentialNodes.position(sorted, ours) < 0) {
            return new Gone();
        }
        return SequentialNodes.toWatch(sorted, ours, 1)
                .<Step>map(p -> new Watch(p, sorted.get(0).equals(p)))
                .orElseGet(Lead::new);
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
