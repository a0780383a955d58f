package io.coord.membership;

import io.coord.test.Awaits;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * Random joins, leaves and updates on a thread of its own, recording every incarnation created,
 * every metadata generation written and every incarnation that left: the ground truth against
 * which an observer's events are checked ("nothing invented").
 */
final class Churn implements AutoCloseable {
    record Meta(int generation) {
    }

    private final List<Group<Meta>> joiners;
    private final Random random;
    private final Thread thread;
    private final AtomicInteger ops = new AtomicInteger();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private volatile boolean stop;
    private final Map<String, Membership<Meta>> live = new HashMap<>();
    final Set<Long> created = ConcurrentHashMap.newKeySet();
    final Set<Long> left = ConcurrentHashMap.newKeySet();
    final Map<Long, Set<Integer>> written = new ConcurrentHashMap<>();

    Churn(List<Group<Meta>> joiners, long seed) {
        this.joiners = joiners;
        this.random = new Random(seed);
        this.thread = new Thread(this::run, "churn");
        this.thread.setDaemon(true);
    }

    Churn start() {
        thread.start();
        return this;
    }

    int ops() {
        return ops.get();
    }

    /** Waits (bounded) until {@code more} further operations were done. */
    void awaitOps(int more) {
        int target = ops() + more;
        Awaits.until(more + " more churn operations", java.time.Duration.ofSeconds(20), () -> ops() >= target || failure.get() != null);
        check();
    }

    private void run() {
        try {
            while (!stop) {
                step(ops.get());
                ops.incrementAndGet();
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(3)); // pacing, not synchronization
            }
        } catch (Throwable t) {
            failure.set(t);
        }
    }

    private void step(int op) throws InterruptedException {
        int kind = live.isEmpty() ? 0 : random.nextInt(3);
        if (kind == 0 && live.size() < 15) {
            String id;
            do {
                id = "m" + random.nextInt(30);
            } while (live.containsKey(id));
            Membership<Meta> m = joiners.get(random.nextInt(joiners.size())).join(id, new Meta(op));
            created.add(m.incarnation());
            written.computeIfAbsent(m.incarnation(), k -> ConcurrentHashMap.newKeySet()).add(op);
            live.put(id, m);
        } else if (kind != 2) {
            Membership<Meta> m = live.remove(pick());
            long incarnation = m.incarnation();
            m.leave();
            left.add(incarnation);
        } else {
            Membership<Meta> m = live.get(pick());
            // recorded before the write: an observer may see it as soon as it is applied
            written.computeIfAbsent(m.incarnation(), k -> ConcurrentHashMap.newKeySet()).add(op);
            m.update(new Meta(op));
        }
    }

    private String pick() {
        List<String> ids = new ArrayList<>(new TreeSet<>(live.keySet()));
        return ids.get(random.nextInt(ids.size()));
    }

    /** Stops and returns the ids still joined. */
    Set<String> stop() throws InterruptedException {
        stop = true;
        thread.join(TimeUnit.SECONDS.toMillis(20));
        check();
        return new TreeSet<>(live.keySet());
    }

    private void check() {
        Throwable t = failure.get();
        if (t != null) {
            throw new AssertionError("the churn failed", t);
        }
    }

    /** Fails if an observer's recorded events name an incarnation or a write the churn never made. */
    void assertNothingInvented(Recorder<Meta> recorder, String who) {
        for (ViewDiff.Change<Meta> c : recorder.changes()) {
            switch (c.kind()) {
                case JOINED -> {
                    assertMade(created.contains(c.after().czxid()), who + " was told of a join never made: " + c);
                    assertMade(written(c.after()), who + " was told metadata never written: " + c);
                }
                case UPDATED -> assertMade(written(c.after()), who + " was told of an update never made: " + c);
                case LEFT -> assertMade(left.contains(c.before().czxid()), who + " was told of a leave never made: " + c);
            }
        }
    }

    private boolean written(MemberInfo<Meta> m) {
        return written.getOrDefault(m.czxid(), Set.of()).contains(m.metadata().generation());
    }

    private static void assertMade(boolean made, String message) {
        if (!made) {
            throw new AssertionError(message);
        }
    }

    @Override
    public void close() throws InterruptedException {
        stop = true;
        thread.join(TimeUnit.SECONDS.toMillis(20));
    }
}
