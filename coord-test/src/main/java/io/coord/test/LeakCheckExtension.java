package io.coord.test;

import io.coord.CoordClient;
import io.coord.CoordSession;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.Supplier;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test that leaves something behind:
 * <ol>
 *   <li>a non-daemon thread started during the test and still alive after a grace period
 *       (threads of the embedded ZooKeeper servers are not counted: they belong to the ensemble);
 *   <li>an ephemeral node still owned by a session of a {@linkplain #track tracked} client that has
 *       ended (closed or expired), after a grace of the longest negotiated session timeout plus
 *       two seconds, which covers a close that could not reach the server.
 * </ol>
 * {@link ZooKeeperExtension} applies it to every client it makes. Registered alone
 * ({@code @RegisterExtension static LeakCheckExtension leaks = LeakCheckExtension.threads();}) it
 * checks threads, and ephemerals of the clients passed to {@link #track} when built with
 * {@link #forEnsemble}.
 *
 * <p>Ephemerals are read with the {@code dump} four-letter word on the leader, so nodes anywhere
 * in the tree count, not only under the test's namespace.
 */
public final class LeakCheckExtension implements BeforeEachCallback, AfterEachCallback {
    private static final Duration THREAD_GRACE = Duration.ofSeconds(2);

    private final Supplier<EmbeddedEnsemble> ensemble;
    private final Map<CoordSession, Duration> sessions = new ConcurrentHashMap<>();
    private volatile Set<Thread> before = Set.of();

    private LeakCheckExtension(Supplier<EmbeddedEnsemble> ensemble) {
        this.ensemble = ensemble;
    }

    /** Checks for leaked threads only. */
    public static LeakCheckExtension threads() {
        return new LeakCheckExtension(null);
    }

    /** Checks for leaked threads, and for ephemerals of tracked clients on {@code ensemble}. */
    public static LeakCheckExtension forEnsemble(Supplier<EmbeddedEnsemble> ensemble) {
        return new LeakCheckExtension(ensemble);
    }

    /**
     * Watches {@code client}: its current session and every later one count for the ephemeral
     * check once they have ended.
     */
    public void track(CoordClient client) {
        Duration timeout = client.negotiatedSessionTimeout();
        try {
            sessions.put(client.session(), timeout);
        } catch (RuntimeException e) {
            // no session right now; the next one is caught by the listener below
        }
        Executor direct = Runnable::run;
        client.onNewSession(s -> sessions.put(s, client.negotiatedSessionTimeout()), direct);
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        begin();
    }

    @Override
    public void afterEach(ExtensionContext context) {
        List<String> leaks = findLeaks();
        if (!leaks.isEmpty()) {
            throw new AssertionError("the test leaked:\n  " + String.join("\n  ", leaks));
        }
    }

    /** Starts a check: remembers the live threads and forgets tracked sessions. */
    void begin() {
        sessions.clear();
        before = liveNonDaemonThreads();
    }

    /** Everything leaked since {@link #begin()}, each as one sentence; waits out the grace periods. */
    List<String> findLeaks() {
        List<String> leaks = new ArrayList<>();
        for (Thread t : leakedThreads(before, Awaits.scaled(THREAD_GRACE))) {
            leaks.add("non-daemon thread '" + t.getName() + "' (state " + t.getState() + ") is still running");
        }
        if (ensemble != null && ensemble.get() != null) {
            Set<Long> ended = new HashSet<>();
            Duration grace = Duration.ZERO;
            for (Map.Entry<CoordSession, Duration> e : sessions.entrySet()) {
                if (e.getKey().state().isTerminal()) {
                    ended.add(e.getKey().id());
                    grace = grace.compareTo(e.getValue()) < 0 ? e.getValue() : grace;
                }
            }
            if (!ended.isEmpty()) {
                Map<Long, List<String>> left = leakedEphemerals(ensemble.get(), ended, Awaits.scaled(grace.plusSeconds(2)));
                left.forEach((id, paths) -> leaks.add("ephemeral node(s) " + paths + " still owned by ended session 0x" + Long.toHexString(id)));
            }
        }
        return leaks;
    }

    static Set<Thread> liveNonDaemonThreads() {
        Set<Thread> live = new HashSet<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.isAlive() && !t.isDaemon() && !EmbeddedEnsemble.isServerThread(t)) {
                live.add(t);
            }
        }
        return live;
    }

    /**
     * Non-daemon threads alive now that were not in {@code before}, after waiting up to
     * {@code grace} for them to end.
     */
    static List<Thread> leakedThreads(Collection<Thread> before, Duration grace) {
        long deadline = System.nanoTime() + grace.toNanos();
        while (true) {
            List<Thread> extra = new ArrayList<>();
            for (Thread t : liveNonDaemonThreads()) {
                if (!before.contains(t)) {
                    extra.add(t);
                }
            }
            if (extra.isEmpty() || System.nanoTime() >= deadline) {
                return extra;
            }
            pause();
        }
    }

    /**
     * Ephemerals owned by any of {@code sessionIds}, as the leader's {@code dump} lists them, after
     * waiting up to {@code grace} for them to go.
     */
    static Map<Long, List<String>> leakedEphemerals(EmbeddedEnsemble ensemble, Set<Long> sessionIds, Duration grace) {
        long deadline = System.nanoTime() + grace.toNanos();
        while (true) {
            Map<Long, List<String>> owned = new LinkedHashMap<>();
            Optional<Map<Long, List<String>>> all = ephemerals(ensemble);
            all.ifPresent(m -> m.forEach((id, paths) -> {
                if (sessionIds.contains(id) && !paths.isEmpty()) {
                    owned.put(id, paths);
                }
            }));
            if ((all.isPresent() && owned.isEmpty()) || System.nanoTime() >= deadline) {
                if (all.isEmpty()) {
                    throw new AssertionError("could not read the ephemerals of " + ensemble + ": no leader answered 'dump'");
                }
                return owned;
            }
            pause();
        }
    }

    /** Every session's ephemerals, from the leader's {@code dump}; empty if no leader answers. */
    static Optional<Map<Long, List<String>>> ephemerals(EmbeddedEnsemble ensemble) {
        return ensemble.leaderIndex()
                .flatMap(i -> EmbeddedEnsemble.fourLetterWord(ensemble.clientPort(i), "dump"))
                .map(LeakCheckExtension::parseDump);
    }

    /**
     * Parses the "Sessions with Ephemerals" part of {@code dump}: a line {@code 0x<id>:} per
     * session, then one tab-indented path per line.
     */
    static Map<Long, List<String>> parseDump(String dump) {
        Map<Long, List<String>> result = new LinkedHashMap<>();
        boolean inEphemerals = false;
        List<String> current = null;
        for (String line : dump.split("\n")) {
            if (line.startsWith("Sessions with Ephemerals")) {
                inEphemerals = true;
                continue;
            }
            if (!inEphemerals) {
                continue;
            }
            String trimmed = line.trim();
            if (line.startsWith("0x") && trimmed.endsWith(":")) {
                long id = Long.parseUnsignedLong(trimmed.substring(2, trimmed.length() - 1), 16);
                current = result.computeIfAbsent(id, k -> new ArrayList<>());
            } else if ((line.startsWith("\t") || line.startsWith(" ")) && current != null && trimmed.startsWith("/")) {
                current.add(trimmed);
            } else if (!trimmed.isEmpty()) {
                inEphemerals = false; // a later section
                current = null;
            }
        }
        return result;
    }

    private static void pause() {
        try {
            Thread.sleep(50);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted during the leak check", e);
        }
    }
}
