package io.coord.lock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.test.Awaits;
import io.coord.test.Faults;
import io.coord.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;

/**
 * A rolling deploy in one JVM: Curator 5.9 clients and Coord clients, each on its own session,
 * contend for one path while an in-process {@link Section} counts who is inside the critical
 * section. Every overlap is recorded with who held; an overlap involving a hold whose session was
 * expired by the test ({@link #expired}) is the fenced case (that holder learns of its loss
 * late) and is reported apart. Every wait is bounded; {@link #close} stops every thread and
 * closes every Curator client (Coord clients belong to the {@link ZooKeeperExtension}).
 */
final class MixedFleet implements AutoCloseable {
    /** How long a holder stays inside: a few ms, so a run of hundreds of acquisitions stays quick. */
    static final Duration HOLD = Duration.ofMillis(2);
    /**
     * How long a semaphore holder stays: long beside one admission (a few round trips through the
     * gate), so that several holders really are inside together; the gate sets the pace anyway.
     */
    static final Duration SHARED_HOLD = Duration.ofMillis(20);
    /** One acquire's bound; a contender that is not granted in it just tries again. */
    static final Duration ACQUIRE = Duration.ofSeconds(5);

    /** One contender's turn: take the lock (bounded), visit the section, release. False: not granted in time. */
    @FunctionalInterface
    interface Round {
        boolean run(Section section) throws Exception;
    }

    /** An overlap: {@code entering} came in while {@code inside} were there. */
    record Overlap(Visit entering, List<Visit> inside) {
        boolean involves(Set<Long> sessions) {
            return sessions.contains(entering.session()) || inside.stream().anyMatch(v -> sessions.contains(v.session()));
        }
    }

    /** One stay in the section: who, exclusive or shared, on which session (0 for Curator), its token (-1: none). */
    record Visit(String who, boolean exclusive, long session, long token) {
    }

    /** The overlap detector. */
    static final class Section {
        private final List<Visit> inside = new ArrayList<>();
        private final List<Overlap> overlaps = new ArrayList<>();
        private final List<Visit> exclusiveOrder = new ArrayList<>();
        private final List<Visit> counted = new ArrayList<>();
        private int mostInside;

        /** Enters, stays {@link #HOLD}, leaves. */
        void visit(String who, boolean exclusive, long session, long token) throws InterruptedException {
            Visit v = new Visit(who, exclusive, session, token);
            synchronized (this) {
                boolean clash = exclusive ? !inside.isEmpty() : inside.stream().anyMatch(Visit::exclusive);
                if (clash) {
                    overlaps.add(new Overlap(v, List.copyOf(inside)));
                }
                inside.add(v);
                if (exclusive) {
                    exclusiveOrder.add(v);
                }
            }
            try {
                Thread.sleep(HOLD.toMillis());
            } finally {
                synchronized (this) {
                    inside.remove(v);
                }
            }
        }

        /**
         * Enters as one of at most {@code capacity} (a semaphore's permits), stays {@link #HOLD} (or
         * {@link #SHARED_HOLD} beside others),
         * leaves; coming in while {@code capacity} are inside is an overlap. Every stay is recorded
         * with its token ({@link #counted}).
         */
        void visit(String who, int capacity, long session, long token) throws InterruptedException {
            Visit v = new Visit(who, capacity == 1, session, token);
            synchronized (this) {
                if (inside.size() >= capacity) {
                    overlaps.add(new Overlap(v, List.copyOf(inside)));
                }
                inside.add(v);
                counted.add(v);
                mostInside = Math.max(mostInside, inside.size());
                if (capacity == 1) {
                    exclusiveOrder.add(v);
                }
            }
            try {
                Thread.sleep((capacity == 1 ? HOLD : SHARED_HOLD).toMillis());
            } finally {
                synchronized (this) {
                    inside.remove(v);
                }
            }
        }

        /** The most visitors inside at once. */
        synchronized int mostInside() {
            return mostInside;
        }

        synchronized List<Visit> counted() {
            return List.copyOf(counted);
        }

        synchronized List<Overlap> overlaps() {
            return List.copyOf(overlaps);
        }

        synchronized List<Visit> exclusiveOrder() {
            return List.copyOf(exclusiveOrder);
        }
    }

    /** What a run saw. */
    record Result(int acquisitions, Map<String, Integer> perContender, List<Overlap> overlaps, List<Visit> exclusiveOrder,
                  List<Visit> counted, int mostInside, Map<String, List<String>> failures, long millis) {
        /** Overlaps among holders whose sessions were not expired by the test. */
        List<Overlap> survivorOverlaps(Set<Long> expired) {
            return overlaps.stream().filter(o -> !o.involves(expired)).toList();
        }

        /** Coord exclusive tokens in entry (= grant) order, leaving out holds on expired sessions. */
        List<Long> coordTokens(Set<Long> expired) {
            return exclusiveOrder.stream().filter(v -> v.token() >= 0 && !expired.contains(v.session())).map(Visit::token).toList();
        }

        String summary() {
            return acquisitions + " acquisitions in " + millis + " ms, per contender " + perContender + ", most inside at once "
                    + mostInside + ", overlaps "
                    + overlaps.size() + (overlaps.isEmpty() ? "" : " e.g. " + overlaps.subList(0, Math.min(3, overlaps.size())))
                    + (failures.isEmpty() ? "" : ", failures " + failures);
        }
    }

    private final ZooKeeperExtension server;
    private final List<CuratorFramework> curators = new ArrayList<>();
    private final Map<String, Round> contenders = new LinkedHashMap<>();
    private final List<Thread> threads = new ArrayList<>();
    /** Sessions the test expired: overlaps with their holds are the fenced case, not a violation. */
    final Set<Long> expired = ConcurrentHashMap.newKeySet();

    MixedFleet(ZooKeeperExtension server) {
        this.server = server;
    }

    /** A started Curator client on the test's namespace, with its own session; closed by {@link #close}. */
    CuratorFramework curator() throws InterruptedException {
        CuratorFramework c = CuratorFrameworkFactory.builder().connectString(server.connectString())
                .namespace(server.namespace()).sessionTimeoutMs((int) LockTesting.SESSION.toMillis())
                .connectionTimeoutMs(10_000).retryPolicy(new ExponentialBackoffRetry(100, 5)).build();
        curators.add(c);
        c.start();
        Duration bound = Awaits.scaled(Duration.ofSeconds(20));
        if (!c.blockUntilConnected((int) bound.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException("a Curator client did not connect to " + server.connectString() + " within " + bound);
        }
        return c;
    }

    void add(String name, Round round) {
        if (contenders.putIfAbsent(name, round) != null) {
            throw new IllegalArgumentException("two contenders named " + name);
        }
    }

    /**
     * Every contender loops in its own thread until {@code total} acquisitions were made in all
     * and {@code andThen} holds; {@code midRun} (if not null) runs on the caller's thread once half
     * of them are done. Fails if the run takes longer than {@code budget} (scaled).
     */
    Result run(int total, Duration budget, Runnable midRun, Predicate<Section> andThen) throws InterruptedException {
        Section section = new Section();
        AtomicInteger done = new AtomicInteger();
        Map<String, AtomicInteger> counts = new LinkedHashMap<>();
        Map<String, List<String>> failures = new ConcurrentHashMap<>();
        long start = System.nanoTime();
        for (Map.Entry<String, Round> e : contenders.entrySet()) {
            AtomicInteger mine = new AtomicInteger();
            counts.put(e.getKey(), mine);
            Thread t = new Thread(() -> {
                while (!(done.get() >= total && andThen.test(section)) && !Thread.currentThread().isInterrupted()) {
                    try {
                        if (e.getValue().run(section)) {
                            mine.incrementAndGet();
                            done.incrementAndGet();
                        }
                    } catch (InterruptedException stop) {
                        return;
                    } catch (Exception | AssertionError fail) {
                        // Recorded for the test to judge (a session expiry makes some); the contender goes on.
                        List<String> mineFailed = failures.computeIfAbsent(e.getKey(), k -> new CopyOnWriteArrayList<>());
                        if (mineFailed.size() < 20) {
                            mineFailed.add(fail.getClass().getSimpleName() + ": " + fail.getMessage());
                        }
                        pause();
                    }
                }
            }, "fleet-" + e.getKey());
            t.setDaemon(true);
            threads.add(t);
        }
        threads.forEach(Thread::start);
        Duration bound = Awaits.scaled(budget);
        if (midRun != null) {
            Awaits.until("half of " + total + " acquisitions", bound, () -> done.get() >= total / 2);
            midRun.run();
        }
        long deadline = System.nanoTime() + bound.toNanos();
        for (Thread t : threads) {
            t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            if (t.isAlive()) {
                throw new AssertionError("the fleet did not make " + total + " acquisitions within " + bound + ": "
                        + done.get() + " done, per contender " + counts + ", failures " + failures);
            }
        }
        Map<String, Integer> per = new LinkedHashMap<>();
        counts.forEach((k, v) -> per.put(k, v.get()));
        return new Result(done.get(), per, section.overlaps(), section.exclusiveOrder(), section.counted(), section.mostInside(),
                Map.copyOf(failures),
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
    }

    /** Runs {@code total} acquisitions without faults and checks what must hold; returns what it saw. */
    Result runClean(int total, Duration budget) throws InterruptedException {
        Result r = run(total, budget, null, s -> true);
        assertClean(r, total);
        return r;
    }

    /**
     * Runs {@code total} acquisitions of a semaphore (contenders visit with {@link Section#visit(String, int, long, long)})
     * and checks: never more inside than its permits, no failure, everyone held, each Coord lease its own token.
     */
    Result runCounted(int total, Duration budget) throws InterruptedException {
        Result r = run(total, budget, null, s -> true);
        assertTrue(r.acquisitions() >= total, r.summary());
        assertEquals(List.of(), r.overlaps(), r.summary());
        assertEquals(Map.of(), r.failures(), r.summary());
        assertEveryoneHeld(r);
        List<Long> tokens = r.counted().stream().filter(v -> v.token() >= 0).map(Visit::token).toList();
        assertTrue(tokens.size() > 1, "Coord holders were granted: " + r.summary());
        assertEquals(tokens.size(), Set.copyOf(tokens).size(), "each Coord lease has its own token: " + r.summary());
        return r;
    }

    /** Runs {@code total} acquisitions, expiring {@code victim}'s session half-way, and checks what must hold then. */
    Result runExpiringHalfWay(CoordClient victim, String victimName, int total, Duration budget) throws InterruptedException {
        // Until the victim held again on its new session, however long its client takes to get one.
        Result r = run(total, budget, () -> expired.add(Faults.expireSession(victim, server.ensemble())),
                s -> !expired.isEmpty() && s.exclusiveOrder().stream().anyMatch(v -> v.who().equals(victimName) && !expired.contains(v.session())));
        assertExpiryRun(r, expired, victimName, total);
        return r;
    }

    /** A run without faults: enough acquisitions, everyone held, no overlap, no failure, Coord tokens rising. */
    private static void assertClean(Result r, int total) {
        assertTrue(r.acquisitions() >= total, r.summary());
        assertEquals(List.of(), r.overlaps(), r.summary());
        assertEquals(Map.of(), r.failures(), r.summary());
        assertEveryoneHeld(r);
        assertRising(r.coordTokens(Set.of()), r.summary());
    }

    /** A run with {@code victim}'s session expired: survivors never overlap, only the victim failed, tokens rise, the victim held again after. */
    private static void assertExpiryRun(Result r, Set<Long> expired, String victim, int total) {
        assertEquals(1, expired.size());
        assertTrue(r.acquisitions() >= total, r.summary());
        assertEquals(List.of(), r.survivorOverlaps(expired), r.summary());
        assertTrue(r.failures().keySet().stream().allMatch(victim::equals), "only the expired client may fail: " + r.summary());
        assertRising(r.coordTokens(expired), r.summary());
        assertTrue(r.exclusiveOrder().stream().anyMatch(v -> v.who().equals(victim) && !expired.contains(v.session())),
                "the victim held again on its new session: " + r.summary());
    }

    /** Every contender was granted at least once, so the libraries really interleaved. */
    private static void assertEveryoneHeld(Result r) {
        r.perContender().forEach((who, n) -> assertTrue(n > 0, who + " never held: " + r.summary()));
    }

    /** Tokens strictly rise in grant order. */
    private static void assertRising(List<Long> tokens, String summary) {
        assertTrue(tokens.size() > 1, "Coord holders were granted: " + summary);
        for (int i = 1; i < tokens.size(); i++) {
            assertTrue(tokens.get(i) > tokens.get(i - 1), "Coord tokens rise in grant order, at " + i + ": " + tokens + " " + summary);
        }
    }

    private static void pause() {
        try {
            Thread.sleep(20);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() throws InterruptedException {
        for (Thread t : threads) {
            t.interrupt();
        }
        for (Thread t : threads) {
            t.join(Awaits.scaled(Duration.ofSeconds(10)).toMillis());
        }
        curators.forEach(CuratorFramework::close);
        for (Thread t : threads) {
            if (t.isAlive()) {
                throw new AssertionError(t.getName() + " did not stop");
            }
        }
    }
}
