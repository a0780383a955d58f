package io.coord.queue;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Predicate;

/**
 * Which task a consumer tries next. Pure: no I/O, no clock; unit-tested in {@code ClaimRuleTest}.
 *
 * <p>Order: higher lanes first; within a lane by sequence (enqueue order). A task is passed over
 * while it waits out its {@code notBefore} (a delay or a retry backoff) and while a live claim
 * holds it. A task keeps its sequence across retries, so once its backoff ends it is ahead of
 * everything enqueued after it.
 */
final class ClaimRule {
    private ClaimRule() {
    }

    /** What the index knows about one task. */
    record Entry(String name, long sequence, int lane, long notBeforeMillis, int version) {
    }

    /** Higher lanes first, then lower sequence, then name (a total order for a sorted set). */
    static final Comparator<Entry> ORDER = Comparator.comparingInt((Entry e) -> -e.lane())
            .thenComparingLong(Entry::sequence)
            .thenComparing(Entry::name);

    /**
     * The outcome of one look at the index.
     *
     * @param candidates ready tasks to try, best first (at most the {@code limit} asked for)
     * @param nextReadyMillis when the earliest waiting task becomes ready; {@code Long.MAX_VALUE}
     *                        if none waits (only computed when there is no candidate)
     */
    record Choice(List<Entry> candidates, long nextReadyMillis) {
        Choice {
            candidates = List.copyOf(candidates);
        }
    }

    /**
     * Walks {@code ordered} (sorted by {@link #ORDER}) and returns up to {@code limit} ready
     * candidates.
     *
     * @param unavailable tasks not to try now: a live claim holds them (a consumer is on them), this
     *                    process holds or is trying them, or it just lost a race for them
     */
    static Choice choose(Iterable<Entry> ordered, long nowMillis, int limit, Predicate<Entry> unavailable) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be >= 1, got " + limit);
        }
        List<Entry> out = new ArrayList<>(limit);
        long nextReady = Long.MAX_VALUE;
        for (Entry e : ordered) {
            if (unavailable.test(e)) {
                continue; // it comes back through a change (its claim ends, its version moves)
            }
            if (e.notBeforeMillis() > nowMillis) {
                nextReady = Math.min(nextReady, e.notBeforeMillis());
                continue;
            }
            out.add(e);
            if (out.size() == limit) {
                break;
            }
        }
        return new Choice(out, out.isEmpty() ? nextReady : Long.MAX_VALUE);
    }

    /**
     * How many of the first ready tasks a consumer spreads over: 1 (strict order) when no other
     * consumer holds a claim, else one more than the live claims other consumers hold, at most {@code max}. With
     * several consumers all taking the head, all but one would lose the race for it; spreading
     * over about as many tasks as there are consumers keeps order close to FIFO without that.
     */
    static int spread(int othersClaims, int max) {
        return Math.max(1, Math.min(max, Math.max(0, othersClaims) + 1));
    }

    /** {@code candidates} rotated to start at {@code start % size}, so consumers start at different places. */
    static List<Entry> rotate(List<Entry> candidates, int start) {
        int n = candidates.size();
        if (n <= 1) {
            return candidates;
        }
        int from = Math.floorMod(start, n);
        List<Entry> out = new ArrayList<>(n);
        out.addAll(candidates.subList(from, n));
        out.addAll(candidates.subList(0, from));
        return out;
    }
}
