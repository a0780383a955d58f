package io.coord.internal;

import static io.coord.CoreTestSupport.await;
import static io.coord.CoreTestSupport.holdsWithin;
import static io.coord.CoreTestSupport.scaled;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.CoordPath;
import io.coord.CoordSession;
import io.coord.CoordSettings;
import io.coord.CoreTestSupport;
import io.coord.LeaseState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What a {@link CoordClient} costs in threads, and what the clients of one JVM share: one
 * scheduling thread ({@code coord-scheduler}) that only says when a client's timed work is due and
 * hands it to that client's own timer thread, started on demand. An idle client holds its
 * ZooKeeper handle's two threads and Curator's two, nothing of Coord's.
 *
 * <p>{@code -Dcoord.threads.clients=1,50,500} (default 50) sets how many clients each census opens;
 * it prints the threads per client (docs/OPERATING.md, "Threads", quotes it at 1, 50 and 500).
 */
class ClientThreadsIT {
    /** How many clients each census opens, one census per number. */
    private static final List<Integer> SIZES = java.util.Arrays.stream(System.getProperty("coord.threads.clients", "50").split(","))
            .map(String::trim).map(Integer::valueOf).toList();
    private static final CoordPath PARENT = CoordPath.of("/threads/leases");
    private static TestingServer server;

    private final List<CoordClient> clients = new CopyOnWriteArrayList<>();
    private final ExecutorService listenerThread = Executors.newSingleThreadExecutor();

    @BeforeAll
    static void start() throws Exception {
        // maxClientCnxns 0: one address may open as many connections as the census asks for (ZooKeeper's default is 60)
        server = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, 500, 0,
                Map.of("admin.enableServer", "false"), "127.0.0.1"), true);
    }

    @AfterAll
    static void stopServer() throws Exception {
        server.close();
    }

    @AfterEach
    void closeClients() throws InterruptedException {
        clients.forEach(CoordClient::close);
        listenerThread.shutdownNow();
        assertTrue(listenerThread.awaitTermination(10, TimeUnit.SECONDS), "the test's listener thread stops");
    }

    private CoordClient client(java.util.function.UnaryOperator<CoordSettings.Builder> customize) throws InterruptedException {
        CoordClient c = CoordClient.connect(customize.apply(CoordSettings.builder().connectString(server.getConnectString())
                .namespace("threads").sessionTimeout(Duration.ofSeconds(10)).connectionTimeout(scaled(Duration.ofSeconds(30)))).build());
        clients.add(c);
        return c;
    }

    /**
     * N idle clients: each holds ZooKeeper's SendThread and EventThread and Curator's
     * connection-state and background threads, and the N share one {@code coord-scheduler}; no
     * client keeps a timer thread, and Curator's notify threads (used here by every client) end when
     * idle. Closing the last client ends every one of these threads, the shared one included.
     * Before the shared scheduler every client kept a {@code coord-timer-N} thread for life, and a
     * Curator notify thread that Curator never shuts down.
     */
    @Test
    void idleClientsHoldOnlyTheirHandlesThreadsAndShareOneSchedulerThatEndsWithTheLastClient() throws Exception {
        List<String> failures = new ArrayList<>();
        for (int n : SIZES) {
            failures.addAll(censusOf(n));
        }
        assertEquals(List.of(), failures);
    }

    /** Opens {@code n} clients, counts their threads (busy, then idle), closes them; returns what did not hold. */
    private List<String> censusOf(int n) throws Exception {
        Set<Thread> before = Set.copyOf(Thread.getAllStackTraces().keySet());
        boolean sharedBefore = before.stream().anyMatch(t -> t.isAlive() && t.getName().equals(SharedScheduler.THREAD_NAME));
        long started = System.nanoTime();
        for (int i = 0; i < n; i++) {
            client(b -> b);
        }
        long connected = System.nanoTime();
        for (CoordClient c : clients) {
            c.curator().runSafe(() -> { }).get(scaled(Duration.ofSeconds(10)).toMillis(), TimeUnit.MILLISECONDS);
            // the client's timer runs a task too (an async timeout would): its thread starts, then ends when idle
            Zk.of(c).timer().schedule(() -> { }, 1, TimeUnit.MILLISECONDS).get(scaled(Duration.ofSeconds(10)).toMillis(), TimeUnit.MILLISECONDS);
        }
        System.out.printf("threads of %d clients, connected in %d ms, busy: %s%n", n,
                TimeUnit.NANOSECONDS.toMillis(connected - started), census(before));
        Set<String> onDemand = Set.of("coord-timer-N", "coord-events-N", "coord-callbacks-N", "coord-safe-notify-N",
                "Curator-SafeNotifyService-N");
        boolean settled = holdsWithin(Duration.ofSeconds(EventThreads.IDLE_SECONDS * 4),
                () -> census(before).keySet().stream().noneMatch(onDemand::contains));
        Map<String, Integer> idle = census(before);
        int total = idle.values().stream().mapToInt(Integer::intValue).sum();
        System.out.printf("threads of %d clients, idle: %s = %d, %.3f per client%n", n, idle, total, (double) total / n);
        List<String> failures = new ArrayList<>();
        if (!settled) {
            failures.add(n + " idle clients kept on-demand threads: " + idle);
        }
        Map<String, Integer> expected = new TreeMap<>(Map.of("SendThread", n, "EventThread", n,
                "Curator-ConnectionStateManager-N", n, "Curator-Framework-N", n));
        if (!sharedBefore) {
            expected.put(SharedScheduler.THREAD_NAME, 1); // else another client of this JVM started it: it is not new
        }
        if (!expected.equals(idle)) {
            failures.add(n + " idle clients: expected their handles' two threads and Curator's two each, and one scheduler: "
                    + expected + ", found " + idle);
        }
        for (CoordClient c : clients) {
            c.close();
        }
        clients.clear();
        if (!holdsWithin(Duration.ofSeconds(20), () -> census(before).isEmpty())) {
            failures.add("after closing all " + n + " clients, threads left (the shared scheduler too must end): " + census(before));
        }
        return failures;
    }

    /**
     * Client A's timer thread is stuck in a task (a blocking call that should not be there). Client
     * B's timed work, stall monitor, lease events and session tracking go on as if A did not exist;
     * A's own later task keeps its place behind the stuck one (a client's timer runs its tasks one at
     * a time, in order), and runs once A's task returns.
     */
    @Test
    void aStuckTimerTaskOfOneClientDelaysNothingOfAnother() throws Exception {
        CoordClient a = client(b -> b);
        AtomicLong stalled = new AtomicLong();
        CoordClient b = client(s -> s.ticker(() -> System.nanoTime() + stalled.get()));
        CountDownLatch stuck = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        // scheduled, not executed: it comes due through the shared thread, as every timed task does
        Zk.of(a).timer().schedule(() -> {
            stuck.countDown();
            awaitUninterruptibly(release);
        }, 1, TimeUnit.MILLISECONDS);
        assertTrue(stuck.await(scaled(Duration.ofSeconds(10)).toMillis(), TimeUnit.MILLISECONDS), "A's timer task runs");
        AtomicBoolean aLater = new AtomicBoolean();
        Zk.of(a).timer().schedule(() -> aLater.set(true), 1, TimeUnit.MILLISECONDS);
        try {
            String bTimerThread = Zk.of(b).timer().schedule(() -> Thread.currentThread().getName(), 10, TimeUnit.MILLISECONDS)
                    .get(scaled(Duration.ofSeconds(10)).toMillis(), TimeUnit.MILLISECONDS);
            assertTrue(bTimerThread.startsWith("coord-timer-"), "B's task ran on B's own timer thread, not the shared one: " + bTimerThread);

            Zk zkB = Zk.of(b);
            NodeLease lease = LeaseNodes.lease(zkB, LeaseNodes.create(zkB, PARENT, "lease-", new byte[0], true));
            List<String> events = new CopyOnWriteArrayList<>();
            lease.addListener(NodeLeaseIT.recorder(events), listenerThread);
            stalled.addAndGet(b.negotiatedSessionTimeout().toNanos()); // B's stall monitor sees B stall
            await(Duration.ofSeconds(10), () -> events.equals(List.of("uncertain", "restored")),
                    () -> "B's stall monitor fired and one round trip confirmed B's lease: " + events);

            CompletableFuture<CoordSession> next = new CompletableFuture<>();
            b.onNewSession(next::complete, Runnable::run);
            CoreTestSupport.expireOnServer(b);
            assertEquals(LeaseState.LOST, lease.ended().get(scaled(Duration.ofSeconds(20)).toMillis(), TimeUnit.MILLISECONDS),
                    "B's lease ends with B's expired session");
            next.get(scaled(Duration.ofSeconds(20)).toMillis(), TimeUnit.MILLISECONDS);
            // the server's close of the session may first show as a lost connection (UNCERTAIN), then LOST
            await(Duration.ofSeconds(5), () -> events.size() >= 3 && events.get(events.size() - 1).equals("lost"),
                    () -> "B's listener heard its lease lost: " + events);
            assertFalse(aLater.get(), "A's later task waits behind A's stuck one");
        } finally {
            release.countDown();
        }
        await(Duration.ofSeconds(10), aLater::get, () -> "A's later task runs once A's stuck task returns");
    }

    /** Live client-side threads started since {@code before}, counted by role (numbers and addresses left out). */
    private static Map<String, Integer> census(Set<Thread> before) {
        List<String> roles = new ArrayList<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.isAlive() && !before.contains(t)) {
                String role = role(t.getName());
                if (role != null) {
                    roles.add(role);
                }
            }
        }
        return new TreeMap<>(roles.stream().collect(Collectors.groupingBy(r -> r, Collectors.summingInt(r -> 1))));
    }

    /** A client thread's role, or null for a thread that is not a client's (the server's, the JVM's). */
    private static String role(String name) {
        if (name.contains("-SendThread(")) {
            return "SendThread";
        }
        if (name.endsWith("-EventThread")) {
            return "EventThread";
        }
        if (name.startsWith("Curator-") || name.startsWith("coord-")) {
            return name.replaceAll("\\d+", "N");
        }
        return null;
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        boolean interrupted = false;
        while (true) {
            try {
                latch.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
