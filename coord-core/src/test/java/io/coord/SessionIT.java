package io.coord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The session object against a real server: one object per session id, listeners off Curator's thread, nothing carried over. */
class SessionIT {
    @RegisterExtension
    static final CoreTestServer ZK = new CoreTestServer();

    private final ExecutorService listenerThread = Executors.newSingleThreadExecutor(r -> new Thread(r, "test-listener"));

    @AfterEach
    void stop() throws InterruptedException {
        listenerThread.shutdownNow();
        listenerThread.awaitTermination(5, TimeUnit.SECONDS);
    }

    @Test
    void connectedClientHasALiveSessionWithTheServersId() throws Exception {
        CoordClient client = ZK.client();
        CoordSession session = client.session();
        assertEquals(SessionState.CONNECTED, session.state());
        assertEquals(client.curator().getZookeeperClient().getZooKeeper().getSessionId(), session.id());
        assertFalse(session.ended().isDone());
    }

    @Test
    void expiryEndsTheSessionObjectAndANewOneTakesOverWithANewId() throws Exception {
        CoordClient client = ZK.client();
        CoordSession first = client.session();
        List<String> events = new CopyOnWriteArrayList<>();
        List<String> threads = new CopyOnWriteArrayList<>();
        first.addListener(new SessionListener() {
            @Override
            public void onEnded(CoordSession s, SessionState finalState) {
                // The thread first: the test reads it once it sees the event.
                threads.add(Thread.currentThread().getName());
                events.add("ended:" + finalState);
            }
        }, listenerThread);
        client.curator().create().withMode(CreateMode.EPHEMERAL).forPath("/mine");

        CoreTestServer.expireOnServer(client);

        assertEquals(SessionState.EXPIRED, first.ended().get(10, TimeUnit.SECONDS));
        CoreTestServer.await(Duration.ofSeconds(10), () -> events.contains("ended:EXPIRED"), "onEnded delivered");
        assertEquals(List.of("test-listener"), threads, "listeners run on their executor, never Curator's thread");
        CoreTestServer.await(Duration.ofSeconds(10), () -> client.session() != first
                && client.session().state() == SessionState.CONNECTED, "a new session");
        CoordSession second = client.session();
        assertNotSame(first, second);
        assertNotEquals(first.id(), second.id());
        assertEquals(SessionState.EXPIRED, first.state(), "the old object never comes back");
        assertThrows(SessionExpiredException.class, first::checkAlive);
        assertEquals(null, client.curator().checkExists().forPath("/mine"), "the expired session's ephemeral is gone");
    }

    @Test
    void connectionDropSuspendsThenReconnectsTheSameSession() throws Exception {
        CoordClient client = ZK.client();
        CoordSession session = client.session();
        List<String> events = new CopyOnWriteArrayList<>();
        session.addListener(new SessionListener() {
            @Override
            public void onSuspended(CoordSession s) {
                events.add("suspended");
            }

            @Override
            public void onReconnected(CoordSession s) {
                events.add("reconnected");
            }

            @Override
            public void onEnded(CoordSession s, SessionState finalState) {
                events.add("ended");
            }
        }, listenerThread);

        ZK.server().restart(); // drops every connection; a restart well within the session timeout keeps sessions

        CoreTestServer.await(Duration.ofSeconds(15), () -> events.contains("reconnected"), "reconnected: " + events);
        assertEquals(List.of("suspended", "reconnected"), events, "events come in pairs and in order");
        assertTrue(client.session() == session, "same id, same object");
        assertEquals(SessionState.CONNECTED, session.state());
    }

    @Test
    void closingTheClientEndsItsSessionAsClosed() throws Exception {
        CoordClient client = ZK.client();
        CoordSession session = client.session();
        client.close();
        assertEquals(SessionState.CLOSED, session.ended().get(5, TimeUnit.SECONDS));
        List<SessionState> late = new CopyOnWriteArrayList<>();
        session.addListener(new SessionListener() {
            @Override
            public void onEnded(CoordSession s, SessionState finalState) {
                late.add(finalState);
            }
        }, listenerThread);
        CoreTestServer.await(Duration.ofSeconds(5), () -> late.equals(List.of(SessionState.CLOSED)),
                "a listener added after the end still gets its one onEnded");
    }

    @Test
    void aThrowingListenerDoesNotStopTheOthers() throws Exception {
        CoordClient client = ZK.client();
        CoordSession session = client.session();
        List<String> calls = new CopyOnWriteArrayList<>();
        session.addListener(new SessionListener() {
            @Override
            public void onEnded(CoordSession s, SessionState st) {
                calls.add("first");
                throw new IllegalStateException("listener bug");
            }
        }, listenerThread);
        session.addListener(new SessionListener() {
            @Override
            public void onEnded(CoordSession s, SessionState st) {
                calls.add("second");
            }
        }, listenerThread);
        client.close();
        CoreTestServer.await(Duration.ofSeconds(5), () -> calls.containsAll(List.of("first", "second")), "both called: " + calls);
    }

    @Test
    void row10ClampedSessionTimeoutIsExposedWithBothValuesAndWarnedOnceShowingBoth() throws Exception {
        // ZooKeeper's floor is 2 x tickTime by default; curator-test lowers it to 1 x tickTime.
        // 100 ms is below either, so the server raises it. The tests log through slf4j-simple,
        // which writes to System.err: the capture sees the real log lines.
        CoordClient low;
        CoordClient high;
        String logged;
        try (SecurityFixtures.StderrCapture capture = new SecurityFixtures.StderrCapture()) {
            low = ZK.client(b -> b.sessionTimeout(Duration.ofMillis(100)));
            high = ZK.client(b -> b.sessionTimeout(Duration.ofSeconds(600)).requestTimeout(Duration.ofSeconds(5)));
            ZK.client(b -> b.sessionTimeout(Duration.ofSeconds(4))); // within 2..20 x tickTime: no warning
            logged = capture.text();
        }
        assertEquals(Duration.ofMillis(100), low.requestedSessionTimeout());
        assertTrue(low.negotiatedSessionTimeout().toMillis() >= CoreTestServer.TICK_MS, low.negotiatedSessionTimeout().toString());
        assertEquals(Duration.ofMillis(20L * CoreTestServer.TICK_MS), high.negotiatedSessionTimeout());
        List<String> warnings = logged.lines().filter(l -> l.contains("clamped the session timeout")).toList();
        assertEquals(2, warnings.size(), "one warning per clamped client, none for the one in range:\n" + logged);
        assertWarns(warnings.get(0), 100, low.negotiatedSessionTimeout().toMillis());
        assertWarns(warnings.get(1), 600_000, 20L * CoreTestServer.TICK_MS);
    }

    private static void assertWarns(String line, long requested, long negotiated) {
        assertTrue(line.contains("WARN") && line.contains(CoordClient.class.getName()) && line.contains(ZK.connectString())
                && line.contains("requested " + requested + " ms") && line.contains("negotiated " + negotiated + " ms"),
                "a WARN from CoordClient naming the ensemble and both values: " + line);
    }

    @Test
    void unreachableEnsembleFailsWithinTheConnectionTimeoutNamingIt() {
        long start = System.nanoTime();
        CoordTimeoutException e = assertThrows(CoordTimeoutException.class, () -> CoordClient.connect(CoordSettings.builder()
                .connectString("127.0.0.1:1").connectionTimeout(Duration.ofSeconds(1)).build()));
        assertTrue(e.getMessage().contains("127.0.0.1:1"), e.getMessage());
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(5), "bounded by the connection timeout");
    }

    @Test
    void suspensionsExpiriesAndNewSessionsAreCountedForAlerting() throws Exception {
        java.util.Map<String, java.util.concurrent.atomic.AtomicInteger> counts = new java.util.concurrent.ConcurrentHashMap<>();
        CoordMetrics recording = new CoordMetrics() {
            @Override
            public void increment(String name, String... tags) {
                counts.computeIfAbsent(name, k -> new java.util.concurrent.atomic.AtomicInteger()).incrementAndGet();
            }

            @Override
            public void recordTime(String name, Duration duration, String... tags) {
            }

            @Override
            public void gauge(String name, java.util.function.Supplier<? extends Number> value, String... tags) {
            }
        };
        CoordClient client = ZK.client(b -> b.metrics(recording));
        CoordSession first = client.session();
        assertEquals(null, counts.get("coord.session.started"), "the first session is not a replacement");

        ZK.server().restart(); // a connection drop: SUSPENDED, then the same session again
        CoreTestServer.await(Duration.ofSeconds(15), () -> counts.containsKey("coord.session.suspended")
                && first.state() == SessionState.CONNECTED, "suspended, then reconnected: " + counts);
        assertEquals(null, counts.get("coord.session.expired"), "a reconnect on the same session is no expiry");

        CoreTestServer.expireOnServer(client);
        CoreTestServer.await(Duration.ofSeconds(15), () -> counts.containsKey("coord.session.started")
                && client.session().state() == SessionState.CONNECTED, "a new session: " + counts);
        assertEquals(1, counts.get("coord.session.expired").get(), "one expiry, counted once: " + counts);
        assertEquals(1, counts.get("coord.session.started").get(), "one replacement session: " + counts);
    }
}
