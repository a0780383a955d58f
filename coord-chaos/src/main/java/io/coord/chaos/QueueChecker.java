package io.coord.chaos;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * The queue scenario's invariants, checked on what the controller recorded and what ZooKeeper
 * holds at the end. Pure: no ZooKeeper, so every rule has a unit test.
 *
 * <ul>
 *   <li><b>Completion exactly once</b>: at most one completion record per task id (a record is
 *       written in the completion's own transaction).
 *   <li><b>None lost</b>: every acknowledged, non-poison key has a completion record; every
 *       acknowledged poison key is in the dead letters.
 *   <li><b>No wrong dead letter</b>: only poison tasks are dead-lettered, each after exactly
 *       {@code maxRetries + 1} attempts.
 *   <li><b>Nothing invented</b>: every record and dead letter names a key some producer enqueued.
 *   <li><b>One task per key</b>: a key has at most one completed task, also when an enqueue of it
 *       was indeterminate and retried: the queue remembers a completed task's key for its
 *       idempotency window (1 h by default, far longer than a run), so a retry after the task
 *       already completed returns the original id as ALREADY_COMPLETED instead of adding a second
 *       task. (Before the window, a key guarded only pending and processing tasks, and such a
 *       retry added a second execution.)
 *   <li><b>Extra executions explained</b>: a task started more often than its allowance (1, or
 *       {@code maxRetries + 1} for poison) must have been interrupted by an injected fault: the
 *       controller killed or paused its worker mid-task, or a worker reported its claim lost.
 *   <li><b>Stale claimant rejected</b>: every worker paused mid-task past its session reported
 *       its completion refused ({@code LOST}), none reported it accepted.
 *   <li><b>FIFO of first attempts</b> ({@link #fifo}): no first claim passes over {@link #SPREAD}
 *       or more earlier tasks still waiting for theirs. The book takes a task's earliest reported
 *       claim as its first attempt only if the task's delivery count says it was the first claim;
 *       otherwise the first claim committed unreported (its worker died or lost the claim's session
 *       before printing it) and the task is left out of the count.
 * </ul>
 */
final class QueueChecker {
    private QueueChecker() {
    }

    /** One completion record: {@code {records}/{task}-{seq}} holding "key token worker". */
    record Completion(String task, String key, long token) {
    }

    /** One dead letter at the end of the run. */
    record Dead(String task, String key, int attempts) {
    }

    /**
     * What the run left behind.
     *
     * @param acked          key to task id, for every acknowledged enqueue
     * @param infoKeys       keys with at least one indeterminate enqueue attempt
     * @param poisonKeys     keys of the poison tasks enqueued (acknowledged or not)
     * @param completions    every completion record
     * @param dead           every dead letter
     * @param remaining      task ids still in the queue at the end
     * @param starts         task id to the number of START lines seen
     * @param interrupted    task ids an injected fault interrupted, or whose claim a worker reported lost
     * @param staleExpected  workers paused mid-task past their session
     * @param staleRejected  of those, completions reported refused ({@code LOST})
     * @param staleAccepted  of those, completions reported accepted ({@code DONE}): each a violation
     * @param maxRetries     the queue's maxRetries
     */
    record Evidence(Map<String, String> acked, Set<String> infoKeys, Set<String> poisonKeys, List<Completion> completions,
                    List<Dead> dead, List<String> remaining, Map<String, Integer> starts, Set<String> interrupted,
                    int staleExpected, int staleRejected, int staleAccepted, int maxRetries) {
        Evidence {
            acked = Map.copyOf(acked);
            infoKeys = Set.copyOf(infoKeys);
            poisonKeys = Set.copyOf(poisonKeys);
            completions = List.copyOf(completions);
            dead = List.copyOf(dead);
            remaining = List.copyOf(remaining);
            starts = Map.copyOf(starts);
            interrupted = Set.copyOf(interrupted);
        }
    }

    /**
     * The verdict. {@code violations} counts every broken rule but loss, which is {@code lost}.
     */
    record Verdict(long completed, long duplicateCompletions, long lost, long wronglyDead, long invented, long duplicateKeys,
                   long unexplainedExecutions, long extraExecutions, long staleMissing, long staleAccepted, List<String> problems) {
        Verdict {
            problems = List.copyOf(problems);
        }

        long violations() {
            return duplicateCompletions + wronglyDead + invented + duplicateKeys + unexplainedExecutions + staleMissing + staleAccepted;
        }
    }

    static Verdict check(Evidence e) {
        Objects.requireNonNull(e, "evidence");
        List<String> problems = new ArrayList<>();
        Set<String> enqueuedKeys = new HashSet<>(e.acked().keySet());
        enqueuedKeys.addAll(e.infoKeys());

        Map<String, Integer> perTask = new TreeMap<>();
        Map<String, Set<String>> tasksPerKey = new HashMap<>();
        long invented = 0;
        for (Completion c : e.completions()) {
            perTask.merge(c.task(), 1, Integer::sum);
            tasksPerKey.computeIfAbsent(c.key(), k -> new HashSet<>()).add(c.task());
            if (!enqueuedKeys.contains(c.key())) {
                invented++;
                problems.add("completion of task " + c.task() + " names key " + c.key() + " that no producer enqueued");
            }
            if (e.poisonKeys().contains(c.key())) {
                invented++;
                problems.add("poison task " + c.task() + " (key " + c.key() + ") was completed, yet its handler always fails");
            }
        }
        long duplicates = 0;
        for (Map.Entry<String, Integer> t : perTask.entrySet()) {
            if (t.getValue() > 1) {
                duplicates += t.getValue() - 1;
                problems.add("task " + t.getKey() + " completed " + t.getValue() + " times");
            }
        }
        long duplicateKeys = 0;
        for (Map.Entry<String, Set<String>> k : tasksPerKey.entrySet()) {
            if (k.getValue().size() > 1) {
                duplicateKeys += k.getValue().size() - 1;
                problems.add("key " + k.getKey() + " completed as " + k.getValue().size() + " tasks " + k.getValue()
                        + (e.infoKeys().contains(k.getKey()) ? " after an indeterminate enqueue was retried inside the idempotency window"
                                : " though every enqueue of it was acknowledged"));
            }
        }

        Map<String, Dead> deadByKey = new HashMap<>();
        long wronglyDead = 0;
        for (Dead d : e.dead()) {
            deadByKey.put(d.key(), d);
            if (!enqueuedKeys.contains(d.key())) {
                invented++;
                problems.add("dead letter " + d.task() + " names key " + d.key() + " that no producer enqueued");
            } else if (!e.poisonKeys().contains(d.key())) {
                wronglyDead++;
                problems.add("task " + d.task() + " (key " + d.key() + ") was dead-lettered though its handler never fails");
            } else if (d.attempts() != e.maxRetries() + 1) {
                wronglyDead++;
                problems.add("poison task " + d.task() + " was dead-lettered after " + d.attempts() + " attempts, not maxRetries + 1 = "
                        + (e.maxRetries() + 1));
            }
        }

        long lost = 0;
        for (Map.Entry<String, String> a : e.acked().entrySet()) {
            String key = a.getKey();
            boolean done = e.poisonKeys().contains(key) ? deadByKey.containsKey(key) : tasksPerKey.containsKey(key);
            if (!done) {
                lost++;
                problems.add("acknowledged " + (e.poisonKeys().contains(key) ? "poison " : "") + "task " + a.getValue() + " (key "
                        + key + ") " + (e.remaining().contains(a.getValue()) ? "is still in the queue" : "is gone without a "
                        + (e.poisonKeys().contains(key) ? "dead letter" : "completion record")));
            }
        }

        Set<String> poisonTasks = new HashSet<>();
        for (Map.Entry<String, String> a : e.acked().entrySet()) {
            if (e.poisonKeys().contains(a.getKey())) {
                poisonTasks.add(a.getValue());
            }
        }
        e.dead().forEach(d -> poisonTasks.add(d.task()));
        long unexplained = 0;
        long extra = 0;
        for (Map.Entry<String, Integer> s : e.starts().entrySet()) {
            int allowance = poisonTasks.contains(s.getKey()) ? e.maxRetries() + 1 : 1;
            int over = s.getValue() - allowance;
            if (over > 0) {
                extra += over;
                if (!e.interrupted().contains(s.getKey())) {
                    unexplained += over;
                    problems.add("task " + s.getKey() + " was started " + s.getValue() + " times (allowance " + allowance
                            + ") but no fault interrupted it");
                }
            }
        }

        long staleMissing = Math.max(0, e.staleExpected() - e.staleRejected() - e.staleAccepted());
        if (staleMissing > 0) {
            problems.add(staleMissing + " of " + e.staleExpected() + " paused workers never reported their stale completion refused");
        }
        if (e.staleAccepted() > 0) {
            problems.add(e.staleAccepted() + " stale claimants had their completion accepted");
        }
        return new Verdict(perTask.size(), duplicates, lost, wronglyDead, invented, duplicateKeys, unexplained, extra, staleMissing,
                e.staleAccepted(), problems);
    }

    /**
     * How many earlier ready tasks a consumer may pass over: coord-queue's documented order
     * ("several consumers each pick among about as many ready tasks as there are consumers", at
     * most its spread of 8), so first attempts keep FIFO within that window.
     */
    static final int SPREAD = 8;

    /**
     * The earliest claim of a task the book saw: its key ({@code k<p>-<i>}), its queue sequence, the
     * claim token (czxid) and the task's delivery count at that claim (coord-queue counts every
     * committed claim in the task's record). {@code deliveries > 1} means an earlier claim committed
     * that no worker reported (its worker died or lost the claim's session before printing it): the
     * task's first attempt is then not this one, and when it was is unknown.
     */
    record FirstClaim(String key, long sequence, long token, int deliveries) {
        boolean seenFirst() {
            return deliveries <= 1;
        }
    }

    /**
     * Strict per-producer inversions, the first attempts that passed over more earlier tasks than
     * the spread allows, the most any passed over, how many tasks' first claim went unreported, and
     * up to {@link #EXAMPLES} of the worst passes (for the note).
     */
    record Fifo(long strictInversions, long beyondSpread, long mostPassedOver, long unseenFirstClaims, List<String> examples) {
        Fifo {
            examples = List.copyOf(examples);
        }
    }

    static final int EXAMPLES = 3;

    /**
     * FIFO of first attempts. Strict, per producer: walking one producer's keys in the order it
     * enqueued them, the claim tokens (the order of claims) must rise; each drop is an inversion.
     * Several consumers may take tasks a little out of order by design, so the violation is a
     * first attempt claimed while {@link #SPREAD} or more tasks enqueued before it (any producer)
     * still waited for their first claim. A task whose first claim nobody reported
     * ({@link FirstClaim#seenFirst()} false) is left out on both sides: booking its redelivery as
     * its first attempt would count it as waiting while a claim of it was already live.
     */
    static Fifo fifo(List<FirstClaim> all) {
        List<FirstClaim> claims = all.stream().filter(FirstClaim::seenFirst).toList();
        long unseen = all.size() - claims.size();
        Map<String, TreeMap<Long, Long>> byProducer = new HashMap<>();
        for (FirstClaim c : claims) {
            int dash = c.key().lastIndexOf('-');
            byProducer.computeIfAbsent(c.key().substring(0, dash), k -> new TreeMap<>())
                    .put(Long.parseLong(c.key().substring(dash + 1)), c.token());
        }
        long strict = 0;
        for (TreeMap<Long, Long> tokens : byProducer.values()) {
            long highest = Long.MIN_VALUE;
            for (long t : tokens.values()) {
                if (t < highest) {
                    strict++;
                }
                highest = Math.max(highest, t);
            }
        }
        // passed over = earlier tasks (by sequence) not yet claimed when this one was: a Fenwick tree over sequence ranks
        List<FirstClaim> bySequence = new ArrayList<>(claims);
        bySequence.sort(Comparator.comparingLong(FirstClaim::sequence));
        Map<FirstClaim, Integer> rank = new IdentityHashMap<>();
        for (int r = 0; r < bySequence.size(); r++) {
            rank.put(bySequence.get(r), r);
        }
        List<FirstClaim> byToken = new ArrayList<>(claims);
        byToken.sort(Comparator.comparingLong(FirstClaim::token));
        long[] tree = new long[claims.size() + 1];
        long beyond = 0;
        long most = 0;
        TreeMap<Long, FirstClaim> worst = new TreeMap<>();
        for (FirstClaim c : byToken) {
            int r = rank.get(c);
            long claimedBefore = 0;
            for (int i = r; i > 0; i -= i & -i) {
                claimedBefore += tree[i];
            }
            long passedOver = r - claimedBefore;
            most = Math.max(most, passedOver);
            if (passedOver >= SPREAD) {
                beyond++;
                worst.merge(passedOver, c, (a, b) -> a);
                if (worst.size() > EXAMPLES) {
                    worst.pollFirstEntry();
                }
            }
            for (int i = r + 1; i < tree.length; i += i & -i) {
                tree[i]++;
            }
        }
        List<String> examples = new ArrayList<>();
        for (Map.Entry<Long, FirstClaim> w : worst.descendingMap().entrySet()) {
            FirstClaim c = w.getValue();
            List<String> waiting = bySequence.stream()
                    .filter(o -> o.sequence() < c.sequence() && o.token() > c.token())
                    .map(o -> o.key() + "@" + o.sequence() + "/" + o.token()).limit(10).toList();
            examples.add(c.key() + "@" + c.sequence() + "/" + c.token() + " passed over " + w.getKey() + " (first " + waiting + ")");
        }
        return new Fifo(strict, beyond, most, unseen, examples);
    }
}
