package io.coord.election;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.CoordTimeoutException;
import io.coord.test.Awaits;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderSelector;
import org.apache.curator.framework.recipes.leader.LeaderSelectorListenerAdapter;
import org.apache.curator.retry.ExponentialBackoffRetry;

/**
 * A rolling deploy of an election in one JVM: Curator 5.9 {@code LeaderLatch} or
 * {@code LeaderSelector} candidates and Coord candidates, each on its own session, on one
 * election. Each leader marks itself acting in an in-process {@link Acting} detector, acts for a
 * short {@link #TERM}, marks itself not acting, then resigns, so the leadership moves on and on.
 * Every moment two marked themselves acting is recorded. Every wait is bounded; {@link #close}
 * stops every thread and closes the Curator clients (Coord clients belong to the test kit).
 */
final class LeaderFleet implements AutoCloseable {
    static final Duration TERM = Duration.ofMillis(3);
    /** One candidacy's bound; a candidate not elected in it just tries again. */
    static final Duration CAMPAIGN = Duration.ofSeconds(5);

    /** One term as leader: who, on which session (0 for Curator), its epoch (-1: none, Curator). */
    record Term(String who, long session, long epoch) {
    }

    /** Two acting at once: {@code entering} while {@code acting} was. */
    record Overlap(Term entering, List<Term> acting) {
    }

    /** The detector: each side marks acting / not acting. */
    static final class Acting {
        private final List<Term> now = new ArrayList<>();
        private final List<Term> terms = new ArrayList<>();
        private final List<Overlap> overlaps = new ArrayList<>();

        void term(Term t) throws InterruptedException {
            synchronized (this) {
                if (!now.isEmpty()) {
                    overlaps.add(new Overlap(t, List.copyOf(now)));
                }
                now.add(t);
                terms.add(t);
            }
            try {
                Thread.sleep(TERM.toMillis());
            } finally {
                synchronized (this) {
                    now.remove(t);
                }
            }
        }

        synchronized List<Term> terms() {
            return List.copyOf(terms);
        }

        synchronized List<Overlap> overlaps() {
            return List.copyOf(overlaps);
        }
    }

    /** One candidacy: campaign (bounded), lead one term, resign. False: not elected in time. */
    @FunctionalInterface
    interface Round {
        boolean run(Acting acting) throws Exception;
    }

    private final ElectionTestKit kit;
    private final String election;
    private final List<CuratorFramework> curators = new ArrayList<>();
    private final Map<String, Round> candidates = new LinkedHashMap<>();
    private final List<Thread> threads = new ArrayList<>();
    final Acting acting = new Acting();
    final Map<String, List<String>> failures = new ConcurrentHashMap<>();
    /** Sessions the test expired: that candidate's terms on it are the fenced case. */
    final Set<Long> expired = ConcurrentHashMap.newKeySet();

    LeaderFleet(ElectionTestKit kit, String election) {
        this.kit = kit;
        this.election = election;
    }

    String path() {
        return Election.ROOT.child(election).value();
    }

    /** A started Curator client on the test's namespace with its own session (10 s: no test expires one); closed by {@link #close}. */
    CuratorFramework curator() throws InterruptedException {
        CuratorFramework c = CuratorFrameworkFactory.builder().connectString(kit.connectString()).namespace(kit.namespace())
                .sessionTimeoutMs(10_000).connectionTimeoutMs(5000).retryPolicy(new ExponentialBackoffRetry(50, 5)).build();
        curators.add(c);
        c.start();
        Duration bound = Awaits.scaled(Duration.ofSeconds(20));
        if (!c.blockUntilConnected((int) bound.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException("a Curator client did not connect within " + bound);
        }
        return c;
    }

    void add(String name, Round round) {
        if (candidates.putIfAbsent(name, round) != null) {
            throw new IllegalArgumentException("two candidates named " + name);
        }
    }

    /** A Curator LeaderLatch candidate: a new latch per round; leads while it has leadership; close resigns. */
    void latch(String name) throws InterruptedException {
        CuratorFramework c = curator();
        add(name, a -> {
            try (LeaderLatch latch = new LeaderLatch(c, path(), name)) {
                latch.start();
                if (!latch.await(CAMPAIGN.toMillis(), TimeUnit.MILLISECONDS) || !latch.hasLeadership()) {
                    return false;
                }
                a.term(new Term(name, 0, -1));
                return true;
            }
        });
    }

    /** A Curator LeaderSelector candidate: takeLeadership acts one term and returns (relinquishes). */
    void selector(String name) throws InterruptedException {
        CuratorFramework c = curator();
        add(name, a -> {
            CountDownLatch led = new CountDownLatch(1);
            try (LeaderSelector s = new LeaderSelector(c, path(), new LeaderSelectorListenerAdapter() {
                @Override
                public void takeLeadership(CuratorFramework client) throws Exception {
                    a.term(new Term(name, 0, -1));
                    led.countDown();
                }
            })) {
                s.setId(name);
                s.start();
                return led.await(CAMPAIGN.toMillis(), TimeUnit.MILLISECONDS);
            }
        });
    }

    /** A Coord candidate on {@code client}: campaign, one term with its epoch, resign. */
    void coord(String name, CoordClient client, CuratorLayout layout) {
        Election e = kit.election(client, election, ElectionOptions.builder().participantId(name).curatorLayout(layout).build());
        add(name, a -> {
            Leadership l;
            try {
                l = e.campaign(CAMPAIGN);
            } catch (CoordTimeoutException notElected) {
                return false;
            }
            try {
                l.checkValid();
                a.term(new Term(name, l.session().id(), l.epoch().value()));
            } finally {
                l.resign();
            }
            return true;
        });
    }

    /**
     * Every candidate loops in its own thread until {@code changes} terms were led in all (and,
     * with an expiry, the victim led again on its new session); {@code midRun} runs once half are
     * done. Fails if that takes longer than {@code budget} (scaled).
     */
    void run(int changes, Duration budget, Runnable midRun, String victim) throws InterruptedException {
        AtomicInteger done = new AtomicInteger();
        for (Map.Entry<String, Round> e : candidates.entrySet()) {
            Thread t = new Thread(() -> {
                while (!(done.get() >= changes && victimBack(victim)) && !Thread.currentThread().isInterrupted()) {
                    try {
                        if (e.getValue().run(acting)) {
                            done.incrementAndGet();
                        }
                    } catch (InterruptedException stop) {
                        return;
                    } catch (Exception | AssertionError fail) {
                        List<String> mine = failures.computeIfAbsent(e.getKey(), k -> new CopyOnWriteArrayList<>());
                        if (mine.size() < 20) {
                            mine.add(fail.getClass().getSimpleName() + ": " + fail.getMessage());
                        }
                        try {
                            Thread.sleep(20);
                        } catch (InterruptedException stop) {
                            return;
                        }
                    }
                }
            }, "fleet-" + e.getKey());
            t.setDaemon(true);
            threads.add(t);
        }
        threads.forEach(Thread::start);
        Duration bound = Awaits.scaled(budget);
        if (midRun != null) {
            Awaits.until("half of " + changes + " leader changes", bound, () -> done.get() >= changes / 2);
            midRun.run();
        }
        long deadline = System.nanoTime() + bound.toNanos();
        for (Thread t : threads) {
            t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            if (t.isAlive()) {
                throw new AssertionError("the fleet did not make " + changes + " leader changes within " + bound + ": " + summary());
            }
        }
    }

    private boolean victimBack(String victim) {
        return victim == null || (!expired.isEmpty()
                && acting.terms().stream().anyMatch(t -> t.who().equals(victim) && t.session() != 0 && !expired.contains(t.session())));
    }

    String summary() {
        List<Term> terms = acting.terms();
        Map<String, Integer> per = new LinkedHashMap<>();
        candidates.keySet().forEach(k -> per.put(k, 0));
        terms.forEach(t -> per.merge(t.who(), 1, Integer::sum));
        List<Overlap> o = acting.overlaps();
        return terms.size() + " terms, per candidate " + per + ", overlaps " + o.size()
                + (o.isEmpty() ? "" : " e.g. " + o.subList(0, Math.min(3, o.size()))) + (failures.isEmpty() ? "" : ", failures " + failures);
    }

    /** What must hold after a run: enough changes, everyone led, never two acting (outside expired sessions), Coord epochs rising. */
    void assertSafe(int changes, String mayFail) {
        System.out.println("fleet on " + path() + ": " + summary());
        List<Term> terms = acting.terms();
        assertTrue(terms.size() >= changes, summary());
        List<Overlap> real = acting.overlaps().stream()
                .filter(o -> !expired.contains(o.entering().session()) && o.acting().stream().noneMatch(t -> expired.contains(t.session())))
                .toList();
        assertEquals(List.of(), real, "two acting leaders: " + summary());
        assertTrue(failures.keySet().stream().allMatch(k -> k.equals(mayFail)), "failures: " + summary());
        for (String who : candidates.keySet()) {
            assertTrue(terms.stream().anyMatch(t -> t.who().equals(who)), who + " never led: " + summary());
        }
        List<Long> epochs = terms.stream().filter(t -> t.epoch() >= 0 && !expired.contains(t.session())).map(Term::epoch).toList();
        assertTrue(epochs.size() > 1, "Coord led: " + summary());
        for (int i = 1; i < epochs.size(); i++) {
            assertTrue(epochs.get(i) > epochs.get(i - 1), "Coord epochs rise in term order, at " + i + ": " + epochs);
        }
    }

    @Override
    public void close() throws InterruptedException {
        threads.forEach(Thread::interrupt);
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
