package io.coord.queue;

import io.coord.internal.SequentialNodes;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/**
 * A consumer's view of one queue, fed by {@link QueueWatch}: per task what ordering needs (lane,
 * sequence, notBefore, version, and its bytes when small) in the order {@link ClaimRule#ORDER},
 * and the live claim nodes per task. Also what this process did: tasks it holds or is trying,
 * tasks it just finished (until the watch sees them deleted), tasks to pass over until they change,
 * and its own claim nodes (which do not count as other consumers).
 *
 * <p>Thread-safe (every method holds this object's monitor, briefly); waiters for a change use
 * {@link #awaitChange}.
 */
final class TaskIndex {
    /**
     * How long after a reconnect claims wait for the watch's full read before they choose without
     * it: a read that never finishes must not stop the queue; order is then best effort.
     */
    static final long MAX_PARTIAL_WAIT_NANOS = TimeUnit.SECONDS.toNanos(10);
    /** Spread at most over this many ready tasks (see {@link ClaimRule#spread}). */
    static final int MAX_SPREAD = 8;
    /** Task data up to this size is kept, so a claim can skip reading it (a stale copy costs only a failed version check). */
    static final int MAX_CACHED_BYTES = 8 * 1024;
    private static final int MAX_TOMBSTONES = 4096;

    /** A task's bytes as last read. */
    record Cached(byte[] data, int version) {
    }

    /** A task whose bytes are not a task record, as read: to be dead-lettered ({@link PoisonTasks}). */
    record Poison(String name, byte[] data, int version, String error) {
    }

    private final Map<String, ClaimRule.Entry> byName = new HashMap<>();
    private final TreeSet<ClaimRule.Entry> ordered = new TreeSet<>(ClaimRule.ORDER);
    private final Map<String, Cached> data = new HashMap<>();
    /** Each known task's czxid (0 if not read with its stat). */
    private final Map<String, Long> created = new HashMap<>();
    /** Called (under this monitor, so it must not block) on every change: a partitioned queue's shared wake-up. */
    private volatile Runnable onChange;
    /** Async claims waiting for a change ({@link AsyncClaim}): no thread each, only this entry. */
    private final Set<Runnable> waiters = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /** Tasks that cannot be decoded, not claimable, waiting to be dead-lettered. */
    private final Map<String, Poison> poison = new HashMap<>();
    /** Poison tasks a try did not move (another consumer's claim came first, a change, no connection): left until read again. */
    private final Set<String> poisonTried = new HashSet<>();
    /** Live claim nodes by task name. */
    private final Map<String, Set<String>> claimsByTask = new HashMap<>();
    private int liveClaims;
    /**
     * Live claim nodes by when this process last saw them written (created, extended) or looked at
     * them ({@link System#nanoTime()}): only says when a claim is worth a look for a timeout; the
     * server's timestamps decide ({@link ClaimTimeouts}).
     */
    private final Map<String, Long> claimSeenNanos = new HashMap<>();
    private final Set<String> mine = new HashSet<>();
    private final Map<String, Integer> passOverAt = new HashMap<>();
    private final Set<String> held = new HashSet<>();
    private final Set<String> finishedHere = new LinkedHashSet<>();
    private long changes;
    /**
     * The view may lack tasks: from a disconnection until the watch's full read after it. Watch
     * events flow again the moment the connection is back, several round trips before that read
     * has listed and read what was enqueued meanwhile; a claim then would take a task enqueued
     * after the reconnect ahead of every older one it has not read yet (the chaos queue scenario
     * saw a first claim pass over 61 waiting tasks in the first zxids after a ZooKeeper leader kill).
     */
    private boolean partial;
    /** When the wait for the full read started (the reconnect, or the disconnection before it). */
    private long partialSinceNanos;

    // --- fed by the watch ---

    /** {@link #taskRead(String, TaskRecord, int, byte[], long)} without the node's czxid (taken as 0: oldest). */
    synchronized void taskRead(String name, TaskRecord record, int version, byte[] bytes) {
        taskRead(name, record, version, bytes, 0);
    }

    /**
     * A read of task {@code name} (by the watch or by a claim attempt) found this; {@code czxid} is
     * the task node's, its enqueue time in ZooKeeper's global order (across partitions).
     */
    synchronized void taskRead(String name, TaskRecord record, int version, byte[] bytes, long czxid) {
        if (finishedHere.contains(name)) {
            return; // a read that started before we completed it
        }
        ClaimRule.Entry old = byName.get(name);
        if (old != null && old.version() > version) {
            return; // older than what we know
        }
        removeEntry(name);
        dropPoison(name); // repaired
        ClaimRule.Entry entry = new ClaimRule.Entry(name, SequentialNodes.sequence(name), record.lane(),
                record.notBeforeMillis(), version);
        byName.put(name, entry);
        ordered.add(entry);
        if (czxid != 0 || !created.containsKey(name)) {
            created.put(name, czxid);
        }
        if (bytes != null && bytes.length <= MAX_CACHED_BYTES) {
            data.put(name, new Cached(bytes, version));
        }
        Integer at = passOverAt.get(name);
        if (at != null && at != version) {
            passOverAt.remove(name);
        }
        signal();
    }

    /** A read of task {@code name} found bytes that are not a task record: no longer claimable, to be dead-lettered. */
    synchronized void taskPoisoned(Poison bad) {
        if (finishedHere.contains(bad.name())) {
            return;
        }
        Poison old = poison.get(bad.name());
        if (old != null && old.version() > bad.version()) {
            return;
        }
        removeEntry(bad.name());
        poison.put(bad.name(), bad);
        poisonTried.remove(bad.name()); // read again: worth another try
        signal();
    }

    /**
     * The poison tasks to dead-letter now: not held here, held by no claim (whose holder ends it
     * first), and not tried since they were last read.
     */
    synchronized java.util.List<Poison> poisoned() {
        if (poison.isEmpty()) {
            return java.util.List.of();
        }
        return poison.values().stream().filter(p -> !held.contains(p.name()) && !claimsByTask.containsKey(p.name())
                && !poisonTried.contains(p.name())).toList();
    }

    /**
     * A try did not move {@code bad}: no more tries until it is read again, which the watch does
     * when it changes, when a claim on it ends (another consumer's that did not move it either),
     * and after a reconnect. It still counts as a task: it is still there.
     */
    synchronized void poisonNotMoved(Poison bad) {
        if (poison.get(bad.name()) == bad) {
            poisonTried.add(bad.name());
        }
    }

    /** Task {@code name} is gone (deleted, or a read found no node). */
    synchronized void taskGone(String name) {
        removeEntry(name);
        dropPoison(name);
        finishedHere.remove(name);
        signal();
    }

    /** The task changed while a claim holds it: its bytes are stale; it is read again when the claim ends. */
    synchronized void taskChangedWhileClaimed(String name) {
        data.remove(name);
    }

    /** After a reconnect: exactly {@code names} exist. */
    synchronized void tasksAre(Set<String> names) {
        for (String name : Set.copyOf(byName.keySet())) {
            if (!names.contains(name)) {
                removeEntry(name);
            }
        }
        poison.keySet().retainAll(names);
        poisonTried.retainAll(names);
        finishedHere.retainAll(names);
        signal();
    }

    synchronized boolean hasLiveClaim(String task) {
        return claimsByTask.containsKey(task);
    }

    synchronized void claimCreated(String claimName) {
        String task = QueueLayout.taskOfClaim(claimName);
        if (task == null) {
            return;
        }
        if (claimsByTask.computeIfAbsent(task, t -> new HashSet<>()).add(claimName)) {
            liveClaims++;
        }
        claimSeenNanos.put(claimName, System.nanoTime());
        data.remove(task); // the claim rewrote the task
        signal();
    }

    /** A claim node went away; returns whether its task should be read again (it still exists, no other claim). */
    synchronized boolean claimDeleted(String claimName) {
        String task = QueueLayout.taskOfClaim(claimName);
        if (task == null) {
            return false;
        }
        mine.remove(claimName);
        claimSeenNanos.remove(claimName);
        Set<String> claims = claimsByTask.get(task);
        if (claims != null && claims.remove(claimName)) {
            liveClaims--;
            if (claims.isEmpty()) {
                claimsByTask.remove(task);
            }
        }
        passOverAt.remove(task); // its holder is gone: worth a look again
        signal();
        return (byName.containsKey(task) || poison.containsKey(task)) && !claimsByTask.containsKey(task);
    }

    /** After a reconnect: exactly {@code names} are the live claims. */
    synchronized void claimsAre(Set<String> names) {
        claimsByTask.clear();
        liveClaims = 0;
        for (String claim : names) {
            String task = QueueLayout.taskOfClaim(claim);
            if (task != null && claimsByTask.computeIfAbsent(task, t -> new HashSet<>()).add(claim)) {
                liveClaims++;
            }
        }
        mine.retainAll(names);
        claimSeenNanos.keySet().retainAll(names);
        long now = System.nanoTime();
        for (String claim : names) {
            claimSeenNanos.putIfAbsent(claim, now);
        }
        signal();
    }

    /** A live claim was written (extended) or looked at: {@code atNanos} is when, for {@link #claimsUnseenFor}. */
    synchronized void claimSeen(String claimName, long atNanos) {
        claimSeenNanos.computeIfPresent(claimName, (c, old) -> atNanos);
    }

    /** Live claims not seen written or looked at for more than {@code nanos} before {@code nowNanos}. */
    synchronized List<String> claimsUnseenFor(long nanos, long nowNanos) {
        return claimSeenNanos.entrySet().stream().filter(e -> nowNanos - e.getValue() > nanos).map(Map.Entry::getKey).toList();
    }

    /** When the first live claim will have gone unseen for {@code nanos}; {@code Long.MAX_VALUE} if there is none. */
    synchronized long nextClaimLookNanos(long nanos) {
        return claimSeenNanos.values().stream().mapToLong(seen -> seen + nanos).min().orElse(Long.MAX_VALUE);
    }

    /** The connection dropped: tasks enqueued from now on may be missed until the next full read. */
    synchronized void viewPartial(long nowNanos) {
        if (!partial) {
            partial = true;
            partialSinceNanos = nowNanos;
        }
    }

    /** The connection is back: the bound on waiting for the full read ({@link #MAX_PARTIAL_WAIT_NANOS}) starts now. */
    synchronized void reconnected(long nowNanos) {
        if (partial) {
            partialSinceNanos = nowNanos;
        }
    }

    /** The full read after a reconnect is done (or could not be made): claims choose again. */
    synchronized void viewWhole() {
        if (partial) {
            partial = false;
            signal();
        }
    }

    // --- used by claimers ---

    /** The next tasks to try, best first, and when to look again if there is none. */
    synchronized ClaimRule.Choice choose(long nowMillis, int rotation) {
        if (partial && System.nanoTime() - partialSinceNanos < MAX_PARTIAL_WAIT_NANOS) {
            return new ClaimRule.Choice(java.util.List.of(), Long.MAX_VALUE); // woken by viewWhole
        }
        int ownLive = 0;
        for (String claim : mine) {
            String task = QueueLayout.taskOfClaim(claim);
            Set<String> live = task == null ? null : claimsByTask.get(task);
            if (live != null && live.contains(claim)) {
                ownLive++;
            }
        }
        int limit = ClaimRule.spread(liveClaims - ownLive, MAX_SPREAD);
        ClaimRule.Choice choice = ClaimRule.choose(ordered, nowMillis, limit,
                e -> held.contains(e.name()) || claimsByTask.containsKey(e.name())
                        || Integer.valueOf(e.version()).equals(passOverAt.get(e.name())));
        return new ClaimRule.Choice(ClaimRule.rotate(choice.candidates(), rotation), choice.nextReadyMillis());
    }

    /** A partition's first ready task as a cross-partition claim compares it: lane, then czxid. */
    record Head(int lane, long czxid) implements Comparable<Head> {
        @Override
        public int compareTo(Head o) {
            return lane != o.lane ? Integer.compare(o.lane, lane) : Long.compare(czxid, o.czxid);
        }
    }

    /** The first task this process could claim now (ready, not held, no live claim), or null. */
    synchronized Head head(long nowMillis) {
        if (partial && System.nanoTime() - partialSinceNanos < MAX_PARTIAL_WAIT_NANOS) {
            return null;
        }
        for (ClaimRule.Entry e : ordered) {
            if (held.contains(e.name()) || claimsByTask.containsKey(e.name())
                    || Integer.valueOf(e.version()).equals(passOverAt.get(e.name())) || e.notBeforeMillis() > nowMillis) {
                continue;
            }
            return new Head(e.lane(), created.getOrDefault(e.name(), 0L));
        }
        return null;
    }

    void onChange(Runnable listener) {
        onChange = listener;
    }

    /** The task's bytes at the version the index knows, or null if not kept. */
    synchronized Cached cached(String name) {
        ClaimRule.Entry e = byName.get(name);
        Cached c = data.get(name);
        return e != null && c != null && c.version() == e.version() ? c : null;
    }

    synchronized boolean claimLive(String claimName) {
        String task = QueueLayout.taskOfClaim(claimName);
        Set<String> live = task == null ? null : claimsByTask.get(task);
        return live != null && live.contains(claimName);
    }

    /** Marks {@code task} as being tried or held here; false if it already is. */
    synchronized boolean hold(String task) {
        return held.add(task);
    }

    synchronized void unhold(String task) {
        held.remove(task);
        signal();
    }

    /** A claim node this process made (so it does not count as another consumer's). */
    synchronized void claimedHere(String claimName) {
        mine.add(claimName);
    }

    /** A claim node this process tried to make but did not. */
    synchronized void notClaimedHere(String claimName) {
        mine.remove(claimName);
    }

    /** Pass over {@code task} until its version moves past {@code version} or its claim goes away. */
    synchronized void passOver(String task, int version) {
        passOverAt.put(task, version);
    }

    /** This process completed or dead-lettered {@code task}: forget it now, before the watch says so. */
    synchronized void finishedHere(String task) {
        finishedHere.add(task);
        if (finishedHere.size() > MAX_TOMBSTONES) {
            // Normally the delete event clears each one; a tombstone left behind only costs a
            // wasted read, so the oldest go first.
            Iterator<String> it = finishedHere.iterator();
            it.next();
            it.remove();
        }
        removeEntry(task);
        dropPoison(task);
        held.remove(task);
        signal();
    }

    /** Tasks known (pending, processing and poison). */
    synchronized int depth() {
        return byName.size() + poison.size();
    }

    synchronized long changes() {
        return changes;
    }

    /** Waits up to {@code nanos} for any change after {@code seen}; returns whether one came. */
    synchronized boolean awaitChange(long seen, long nanos) throws InterruptedException {
        long deadline = System.nanoTime() + nanos;
        long left = nanos;
        while (changes == seen && left > 0) {
            TimeUnit.NANOSECONDS.timedWait(this, left);
            left = deadline - System.nanoTime();
        }
        return changes != seen;
    }

    /** Wakes every waiter (shutdown, close). */
    synchronized void wakeAll() {
        signal();
    }

    private void removeEntry(String name) {
        data.remove(name);
        created.remove(name);
        passOverAt.remove(name);
        ClaimRule.Entry old = byName.remove(name);
        if (old != null) {
            ordered.remove(old);
        }
    }

    private void dropPoison(String name) {
        poison.remove(name);
        poisonTried.remove(name);
    }

    /**
     * Adds {@code waiter}, run on every change (under this index's monitor, on whichever thread made
     * the change: it must only hand work elsewhere); returns what removes it.
     */
    Runnable addWaiter(Runnable waiter) {
        waiters.add(waiter);
        return () -> waiters.remove(waiter);
    }

    private void signal() {
        changes++;
        notifyAll();
        for (Runnable waiter : waiters) {
            waiter.run();
        }
        Runnable listener = onChange;
        if (listener != null) {
            listener.run();
        }
    }
}
