package io.coord.queue;

import io.coord.CodecException;
import io.coord.CoordPath;
import io.coord.CoordTimeoutException;
import io.coord.internal.SequentialNodes;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.WatcherRemoveCuratorFramework;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.apache.curator.framework.recipes.cache.CuratorCacheStorage;
import org.apache.curator.utils.ZKPaths;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A consumer's view of one queue, kept current by two watched caches (Curator {@link CuratorCache}
 * on {@code tasks/} and on {@code claims/}, each one persistent recursive watch) instead of a
 * listing per claim: a change re-reads only the node that changed. The caches keep no data; this
 * index keeps, per task, what ordering needs (lane, sequence, notBefore, claim, version) in the
 * order {@link ClaimRule#ORDER}.
 *
 * <p>Besides the server's state it remembers what this process did: tasks it holds or is trying
 * ({@code held}), tasks it has just finished (until the cache sees them deleted), and tasks it
 * must pass over until they change (a lost race, a claim found live).
 */
final class TaskIndex implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TaskIndex.class);
    /** Spread at most over this many ready tasks (see {@link ClaimRule#spread}). */
    static final int MAX_SPREAD = 8;
    private static final int MAX_TOMBSTONES = 4096;

    private final QueueLayout layout;
    private final TaskCodec<?> codec;
    private final WatcherRemoveCuratorFramework watching;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final Map<String, ClaimRule.Entry> byName = new HashMap<>();
    private final TreeSet<ClaimRule.Entry> ordered = new TreeSet<>(ClaimRule.ORDER);
    private final Set<String> liveClaims = new HashSet<>();
    /** Claim nodes this process made, until the cache sees them deleted: not "other consumers". */
    private final Set<String> mine = new HashSet<>();
    private final Map<String, Integer> passOverAt = new HashMap<>();
    private final Set<String> held = new HashSet<>();
    private final Set<String> finishedHere = new java.util.LinkedHashSet<>();
    private final Set<String> corrupt = new HashSet<>();
    private final CuratorCache claimsCache;
    private final CuratorCache tasksCache;
    private long changes;

    TaskIndex(CuratorFramework curator, QueueLayout layout, TaskCodec<?> codec) {
        this.layout = layout;
        this.codec = codec;
        this.watching = curator.newWatcherRemoveCuratorFramework();
        this.claimsCache = CuratorCache.builder(watching, layout.claims.value())
                .withStorage(CuratorCacheStorage.dataNotCached()).build();
        this.tasksCache = CuratorCache.builder(watching, layout.tasks.value())
                .withStorage(CuratorCacheStorage.dataNotCached()).build();
    }

    /** Starts both caches (claims first) and waits until each has read its initial state. */
    void start(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        CountDownLatch claimsReady = new CountDownLatch(1);
        claimsCache.listenable().addListener(listener(this::onClaim, claimsReady));
        claimsCache.start();
        await(claimsReady, deadline, layout.claims);
        CountDownLatch tasksReady = new CountDownLatch(1);
        tasksCache.listenable().addListener(listener(this::onTask, tasksReady));
        tasksCache.start();
        await(tasksReady, deadline, layout.tasks);
    }

    private interface Handler {
        void apply(CuratorCacheListener.Type type, ChildData old, ChildData data);
    }

    private static CuratorCacheListener listener(Handler handler, CountDownLatch ready) {
        return new CuratorCacheListener() {
            @Override
            public void event(Type type, ChildData oldData, ChildData data) {
                handler.apply(type, oldData, data);
            }

            @Override
            public void initialized() {
                ready.countDown();
            }
        };
    }

    private static void await(CountDownLatch latch, long deadline, CoordPath what) throws InterruptedException {
        if (!latch.await(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
            throw new CoordTimeoutException("the watched cache of " + what + " did not finish its first read in time");
        }
    }

    private String childOf(CoordPath dir, ChildData d) {
        if (d == null) {
            return null;
        }
        String path = d.getPath();
        if (!dir.value().equals(ZKPaths.getPathAndNode(path).getPath())) {
            return null; // the directory node itself
        }
        return ZKPaths.getNodeFromPath(path);
    }

    private void onClaim(CuratorCacheListener.Type type, ChildData old, ChildData data) {
        String name = childOf(layout.claims, data != null ? data : old);
        if (name == null) {
            return;
        }
        lock.lock();
        try {
            if (type == CuratorCacheListener.Type.NODE_DELETED) {
                liveClaims.remove(name);
                mine.remove(name);
                String task = QueueLayout.taskOfClaim(name);
                if (task != null) {
                    passOverAt.remove(task); // its holder is gone: worth a look again
                }
            } else {
                liveClaims.add(name);
            }
            signal();
        } finally {
            lock.unlock();
        }
    }

    private void onTask(CuratorCacheListener.Type type, ChildData old, ChildData data) {
        String name = childOf(layout.tasks, data != null ? data : old);
        if (name == null || !QueueLayout.isTaskName(name)) {
            return;
        }
        if (type == CuratorCacheListener.Type.NODE_DELETED) {
            lock.lock();
            try {
                remove(name);
                finishedHere.remove(name);
                corrupt.remove(name);
                signal();
            } finally {
                lock.unlock();
            }
            return;
        }
        TaskRecord record;
        try {
            record = codec.decode(layout.task(name), data.getData());
        } catch (CodecException e) {
            lock.lock();
            try {
                if (corrupt.add(name)) {
                    LOG.warn("task {} cannot be read and is passed over: {}", layout.task(name), e.getMessage());
                }
                remove(name);
            } finally {
                lock.unlock();
            }
            return;
        }
        refresh(name, record, data.getStat().getVersion());
    }

    /** Records what a read of task {@code name} (by the cache or by a claim attempt) found. */
    void refresh(String name, TaskRecord record, int version) {
        lock.lock();
        try {
            if (finishedHere.contains(name)) {
                return; // a read that started before we completed it
            }
            ClaimRule.Entry old = byName.get(name);
            if (old != null && old.version() > version) {
                return; // older than what we know
            }
            ClaimRule.Entry entry = new ClaimRule.Entry(name, SequentialNodes.sequence(name), record.lane(),
                    record.notBeforeMillis(), record.claim(), version);
            remove(name);
            byName.put(name, entry);
            ordered.add(entry);
            Integer at = passOverAt.get(name);
            if (at != null && at != version) {
                passOverAt.remove(name);
            }
            signal();
        } finally {
            lock.unlock();
        }
    }

    private void remove(String name) {
        ClaimRule.Entry old = byName.remove(name);
        if (old != null) {
            ordered.remove(old);
        }
        passOverAt.remove(name);
    }

    /** The next tasks to try, best first, and when to look again if there is none. */
    ClaimRule.Choice choose(long nowMillis, int rotation) {
        lock.lock();
        try {
            int others = 0;
            for (String claim : liveClaims) {
                if (!mine.contains(claim)) {
                    others++;
                }
            }
            int limit = ClaimRule.spread(others, MAX_SPREAD);
            ClaimRule.Choice choice = ClaimRule.choose(ordered, nowMillis, limit, liveClaims::contains,
                    e -> held.contains(e.name()) || Integer.valueOf(e.version()).equals(passOverAt.get(e.name())));
            return new ClaimRule.Choice(ClaimRule.rotate(choice.candidates(), rotation), choice.nextReadyMillis());
        } finally {
            lock.unlock();
        }
    }

    boolean claimLive(String claimName) {
        lock.lock();
        try {
            return liveClaims.contains(claimName);
        } finally {
            lock.unlock();
        }
    }

    /** Marks {@code task} as being tried or held here; false if it already is. */
    boolean hold(String task) {
        lock.lock();
        try {
            return held.add(task);
        } finally {
            lock.unlock();
        }
    }

    void unhold(String task) {
        lock.lock();
        try {
            held.remove(task);
            signal();
        } finally {
            lock.unlock();
        }
    }

    /** A claim node this process made (so it does not count as another consumer's). */
    void claimedHere(String claimName) {
        lock.lock();
        try {
            mine.add(claimName);
        } finally {
            lock.unlock();
        }
    }

    /** A claim node this process tried to make but did not. */
    void notClaimedHere(String claimName) {
        lock.lock();
        try {
            mine.remove(claimName);
        } finally {
            lock.unlock();
        }
    }

    /** Pass over {@code task} until its version moves past {@code version} or its claim goes away. */
    void passOver(String task, int version) {
        lock.lock();
        try {
            passOverAt.put(task, version);
        } finally {
            lock.unlock();
        }
    }

    /** This process completed or dead-lettered {@code task}: forget it now, before the cache says so. */
    void finishedHere(String task) {
        lock.lock();
        try {
            finishedHere.add(task);
            if (finishedHere.size() > MAX_TOMBSTONES) {
                // Normally the cache's delete event clears each one; a tombstone left behind only
                // costs a wasted read, so the oldest go first.
                var it = finishedHere.iterator();
                it.next();
                it.remove();
            }
            remove(task);
            held.remove(task);
            signal();
        } finally {
            lock.unlock();
        }
    }

    /** A read found {@code task} gone. */
    void gone(String task) {
        lock.lock();
        try {
            remove(task);
        } finally {
            lock.unlock();
        }
    }

    /** Tasks known (pending and processing). */
    int depth() {
        lock.lock();
        try {
            return byName.size();
        } finally {
            lock.unlock();
        }
    }

    long changes() {
        lock.lock();
        try {
            return changes;
        } finally {
            lock.unlock();
        }
    }

    /** Waits up to {@code nanos} for any change after {@code seen}; returns whether one came. */
    boolean awaitChange(long seen, long nanos) throws InterruptedException {
        lock.lock();
        try {
            long left = nanos;
            while (changes == seen && left > 0) {
                left = changed.awaitNanos(left);
            }
            return changes != seen;
        } finally {
            lock.unlock();
        }
    }

    /** Wakes every waiter (used on shutdown). */
    void wakeAll() {
        lock.lock();
        try {
            signal();
        } finally {
            lock.unlock();
        }
    }

    private void signal() {
        changes++;
        changed.signalAll();
    }

    @Override
    public void close() {
        tasksCache.close();
        claimsCache.close();
        watching.removeWatchers();
        wakeAll();
    }
}
