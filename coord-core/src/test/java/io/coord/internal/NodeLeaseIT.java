package io.coord.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.CoordException;
import io.coord.CoordPath;
import io.coord.CoordSettings;
import io.coord.Lease;
import io.coord.LeaseListener;
import io.coord.LeaseState;
import io.coord.LockLostException;
import io.coord.ValueTooLargeException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The shared lease plumbing against a real server: token from the create, loss signals, fenced writes, exact release. */
class NodeLeaseIT {
    private static TestingServer server;
    private static final AtomicInteger NS = new AtomicInteger();
    private final List<CoordClient> clients = new CopyOnWriteArrayList<>();
    private final ExecutorService listenerThread = Executors.newSingleThreadExecutor();
    private final String namespace = "lease" + NS.incrementAndGet();
    private static final CoordPath PARENT = CoordPath.of("/locks/test/resource");
    private static final CoordPath TARGET = CoordPath.of("/data/target");

    @BeforeAll
    static void start() throws Exception {
        server = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, 500, -1, null, "127.0.0.1"), true);
    }

    @AfterAll
    static void stopServer() throws Exception {
        server.close();
    }

    @AfterEach
    void closeClients() throws InterruptedException {
        clients.forEach(CoordClient::close);
        listenerThread.shutdownNow();
        listenerThread.awaitTermination(5, TimeUnit.SECONDS);
    }

    private CoordClient client() throws InterruptedException {
        CoordClient c = CoordClient.connect(CoordSettings.builder().connectString(server.getConnectString()).namespace(namespace)
                .sessionTimeout(Duration.ofSeconds(3)).build());
        clients.add(c);
        return c;
    }

    private static NodeLease newLease(CoordClient client) throws InterruptedException {
        Zk zk = Zk.of(client);
        return LeaseNodes.lease(zk, LeaseNodes.create(zk, PARENT, "lock-", new byte[0], true));
    }

    private static void await(Duration budget, java.util.function.BooleanSupplier c, String what) throws InterruptedException {
        long deadline = System.nanoTime() + budget.toNanos();
        while (!c.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within " + budget + ": " + what);
            }
            Thread.sleep(10);
        }
    }

    @Test
    void tokenIsTheCzxidOfTheNodeFromTheCreateItself() throws Exception {
        CoordClient client = client();
        NodeLease lease = newLease(client);
        var stat = client.curator().checkExists().forPath(lease.node().value());
        assertEquals(stat.getCzxid(), lease.token().value());
        assertEquals(client.session().id(), stat.getEphemeralOwner());
        assertTrue(lease.node().name().startsWith("_c_"), "protected create: " + lease.node());
        assertEquals(LeaseState.ACQUIRED, lease.state());
        lease.checkValid();
    }

    @Test
    void tokensStrictlyIncreaseAlsoAfterTheParentIsRecreated() throws Exception {
        CoordClient client = client();
        NodeLease first = newLease(client);
        first.close();
        client.curator().delete().deletingChildrenIfNeeded().forPath("/locks");
        NodeLease second = newLease(client);
        assertTrue(second.token().isNewerThan(first.token()), first.token() + " then " + second.token());
        assertTrue(second.node().name().endsWith("0000000000"), "the sequence restarted: " + second.node());
        assertTrue(first.node().name().endsWith("0000000000"), "so suffixes would have repeated: " + first.node());
        second.close();
    }

    @Test
    void guardedWriteCommitsWhileTheLeaseHolds() throws Exception {
        CoordClient client = client();
        client.curator().create().creatingParentsIfNeeded().forPath(TARGET.value(), new byte[0]);
        NodeLease lease = newLease(client);
        lease.guardedSetData(TARGET, "v1".getBytes(StandardCharsets.UTF_8));
        assertArrayEquals("v1".getBytes(StandardCharsets.UTF_8), client.curator().getData().forPath(TARGET.value()));
        lease.close();
    }

    @Test
    void expiryMakesTheLeaseLostAndItsGuardedWriteIsRejected() throws Exception {
        CoordClient holder = client();
        CoordClient other = client();
        holder.curator().create().creatingParentsIfNeeded().forPath(TARGET.value(), "before".getBytes(StandardCharsets.UTF_8));
        NodeLease lease = newLease(holder);
        List<String> events = new CopyOnWriteArrayList<>();
        lease.addListener(new LeaseListener() {
            @Override
            public void onLost(Lease l, CoordException cause) {
                events.add("lost");
            }
        }, listenerThread);

        io.coord.CoreTestSupport.expireOnServer(holder);

        assertEquals(LeaseState.LOST, lease.ended().get(10, TimeUnit.SECONDS));
        await(Duration.ofSeconds(5), () -> events.equals(List.of("lost")), "onLost once: " + events);
        assertThrows(LockLostException.class, lease::checkValid);
        assertThrows(LockLostException.class, () -> lease.guardedSetData(TARGET, "stale".getBytes(StandardCharsets.UTF_8)));
        assertArrayEquals("before".getBytes(StandardCharsets.UTF_8), other.curator().getData().forPath(TARGET.value()),
                "nothing written by the lost holder");
        NodeLease next = newLease(other);
        assertTrue(next.token().isNewerThan(lease.token()));
        next.close();
    }

    @Test
    void theServerRefusesTheGuardedWriteEvenIfTheHolderHasNotNoticed() throws Exception {
        CoordClient holder = client();
        CoordClient other = client();
        holder.curator().create().creatingParentsIfNeeded().forPath(TARGET.value(), "before".getBytes(StandardCharsets.UTF_8));
        NodeLease lease = newLease(holder);
        // Someone deletes our node behind our back; the write races the watch, but the check op decides.
        other.curator().delete().forPath(lease.node().value());
        try {
            lease.guardedSetData(TARGET, "stale".getBytes(StandardCharsets.UTF_8));
            throw new AssertionError("a guarded write without our node must not commit");
        } catch (LockLostException expected) {
            // refused by the multi's check, or by checkValid after the watch fired
        }
        assertArrayEquals("before".getBytes(StandardCharsets.UTF_8), other.curator().getData().forPath(TARGET.value()));
        assertEquals(LeaseState.LOST, lease.ended().get(5, TimeUnit.SECONDS));
    }

    @Test
    void connectionDropMakesTheLeaseUncertainThenRestoredWithTheSameToken() throws Exception {
        CoordClient holder = client();
        NodeLease lease = newLease(holder);
        List<String> events = new CopyOnWriteArrayList<>();
        lease.addListener(new LeaseListener() {
            @Override
            public void onUncertain(Lease l) {
                events.add("uncertain");
            }

            @Override
            public void onRestored(Lease l) {
                events.add("restored");
            }
        }, listenerThread);
        var tokenBefore = lease.token();
        server.restart();
        await(Duration.ofSeconds(15), () -> events.contains("restored"), "restored: " + events);
        assertEquals(List.of("uncertain", "restored"), events);
        assertEquals(LeaseState.ACQUIRED, lease.state());
        assertEquals(tokenBefore, lease.token());
        lease.checkValid();
        lease.close();
    }

    @Test
    void closeDeletesOnlyItsOwnNodeAndIsIdempotentFromAnyThread() throws Exception {
        CoordClient client = client();
        NodeLease mine = newLease(client);
        NodeLease theirs = newLease(client);
        Thread closer = new Thread(mine::close);
        closer.start();
        closer.join(5000);
        mine.close();
        assertEquals(LeaseState.RELEASED, mine.state());
        assertNull(client.curator().checkExists().forPath(mine.node().value()));
        assertEquals(LeaseState.ACQUIRED, theirs.state());
        assertTrue(client.curator().checkExists().forPath(theirs.node().value()) != null);
        theirs.close();
    }

    @Test
    void suspectedLeaseIsConfirmedByOneRoundTrip() throws Exception {
        CoordClient client = client();
        NodeLease lease = newLease(client);
        lease.suspect();
        await(Duration.ofSeconds(5), () -> lease.state() == LeaseState.ACQUIRED, "confirmed after the stall check");
        lease.close();
    }

    /**
     * A real client whose ticker jumps (a stall as the monotonic clock sees it, without stopping
     * the JVM): every lease of that client hears onUncertain, then one round trip each confirms it
     * and it is ACQUIRED again, the same token on the same session. Without the client measuring
     * its stalls on its settings' ticker, no stall is seen. The session is long (10 s, the most the
     * server grants), so that a real stall of a loaded machine (a third of it) does not come too.
     */
    @Test
    void aStallOnTheClientsTickerMakesEveryLeaseUncertainUntilOneRoundTripConfirmsIt() throws Exception {
        java.util.concurrent.atomic.AtomicLong stalled = new java.util.concurrent.atomic.AtomicLong();
        CoordClient client = CoordClient.connect(CoordSettings.builder().connectString(server.getConnectString()).namespace(namespace)
                .sessionTimeout(Duration.ofSeconds(10)).ticker(() -> System.nanoTime() + stalled.get()).build());
        clients.add(client);
        NodeLease first = newLease(client);
        NodeLease second = newLease(client);
        List<String> firstEvents = new CopyOnWriteArrayList<>();
        List<String> secondEvents = new CopyOnWriteArrayList<>();
        first.addListener(recorder(firstEvents), listenerThread);
        second.addListener(recorder(secondEvents), listenerThread);
        long session = client.session().id();

        stalled.addAndGet(client.negotiatedSessionTimeout().toNanos()); // past stallFraction x the session, whatever the fraction

        await(Duration.ofSeconds(10), () -> firstEvents.size() >= 2 && secondEvents.size() >= 2, "both leases heard two calls");
        assertEquals(List.of("uncertain", "restored"), firstEvents);
        assertEquals(List.of("uncertain", "restored"), secondEvents);
        for (NodeLease lease : List.of(first, second)) {
            assertEquals(LeaseState.ACQUIRED, lease.state(), "confirmed: " + lease);
            lease.checkValid();
            assertEquals(session, lease.session().id(), "the same session");
            assertEquals(client.session().id(), client.curator().checkExists().forPath(lease.node().value()).getEphemeralOwner());
        }
        first.close();
        second.close();
    }

    @Test
    void row12OversizeTransactionIsRefusedBeforeSending() throws Exception {
        CoordClient client = client();
        client.curator().create().creatingParentsIfNeeded().forPath(TARGET.value(), new byte[0]);
        NodeLease lease = newLease(client);
        var op = client.curator().transactionOp().setData().forPath(TARGET.value(), new byte[600_000]);
        var op2 = client.curator().transactionOp().create().forPath("/data/other", new byte[600_000]);
        long start = System.nanoTime();
        ValueTooLargeException e = assertThrows(ValueTooLargeException.class, () -> lease.guardedTransaction(List.of(op, op2)));
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(1), "refused at once, not after retries");
        assertTrue(e.size() > Payloads.TRANSACTION_LIMIT && e.limit() == Payloads.TRANSACTION_LIMIT, e.getMessage());
        assertTrue(e.getMessage().contains("transaction of 3 operations") && e.getMessage().contains(e.size() + " bytes")
                && e.getMessage().contains("limit of " + Payloads.TRANSACTION_LIMIT), "names the size and the limit: " + e.getMessage());
        assertNull(client.curator().checkExists().forPath("/data/other"), "nothing written");
        assertEquals(LeaseState.ACQUIRED, lease.state(), "the lease is untouched");
        lease.close();
    }

    @Test
    void row11OversizeGuardedValueIsRefusedBeforeSending() throws Exception {
        CoordClient client = client();
        NodeLease lease = newLease(client);
        long start = System.nanoTime();
        ValueTooLargeException e = assertThrows(ValueTooLargeException.class, () -> lease.guardedSetData(TARGET, new byte[1_048_576]));
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(1));
        assertEquals(TARGET.value(), e.path());
        lease.close();
    }

    /**
     * Waits until every reply to a lease's background reads that the server could have sent so far
     * has been handled: two background round trips in a row on the same connection (the first
     * lets ZooKeeper's event thread dispatch a watch event already received, and so send the
     * lease's re-read; the second's reply comes after that re-read's), then the client's event
     * thread, where the lease handles replies.
     */
    private static void drainLeaseReplies(CoordClient client) throws Exception {
        for (int i = 0; i < 2; i++) {
            CompletableFuture<Void> done = new CompletableFuture<>();
            client.curator().checkExists().inBackground((c, e) -> done.complete(null)).forPath("/");
            done.get(5, TimeUnit.SECONDS);
        }
        Zk.of(client).events().submit(() -> { }).get(5, TimeUnit.SECONDS);
    }

    private List<String> record(NodeLease lease) {
        List<String> events = new CopyOnWriteArrayList<>();
        lease.addListener(new LeaseListener() {
            @Override
            public void onLost(Lease l, CoordException cause) {
                events.add("lost");
            }

            @Override
            public void onReleased(Lease l) {
                events.add("released");
            }
        }, listenerThread);
        return events;
    }

    @Test
    void aReleaseCommittedByTheRecipesOwnTransactionEndsReleasedNotLost() throws Exception {
        CoordClient client = client();
        NodeLease lease = newLease(client);
        List<String> events = record(lease);
        lease.armWatch(); // without waiting out the grace
        drainLeaseReplies(client); // the own-node watch is set
        NodeLease.OwnRelease release = lease.beginOwnRelease();
        client.curator().transaction().forOperations(release.deleteOp(),
                client.curator().transactionOp().create().forPath("/done", new byte[0]));
        drainLeaseReplies(client); // the watch fired and the lease read its node: gone
        assertEquals(LeaseState.ACQUIRED, lease.state(), "a node gone while our own release is in flight is not a loss yet");
        release.committed();
        assertEquals(LeaseState.RELEASED, lease.ended().get(5, TimeUnit.SECONDS));
        await(Duration.ofSeconds(5), () -> events.equals(List.of("released")), "onReleased once, never onLost: " + events);
        assertNull(client.curator().checkExists().forPath(lease.node().value()));
    }

    @Test
    void anOwnReleaseThatDidNotCommitLeavesTheLeaseWatchingAndItsVanishedNodeIsALoss() throws Exception {
        CoordClient holder = client();
        CoordClient other = client();
        NodeLease lease = newLease(holder);
        List<String> events = record(lease);
        lease.armWatch();
        drainLeaseReplies(holder);
        NodeLease.OwnRelease release = lease.beginOwnRelease();
        other.curator().delete().forPath(lease.node().value()); // someone else, while our transaction "fails"
        drainLeaseReplies(holder);
        release.notCommitted();
        assertEquals(LeaseState.LOST, lease.ended().get(5, TimeUnit.SECONDS));
        await(Duration.ofSeconds(5), () -> events.equals(List.of("lost")), "onLost once: " + events);
    }

    @Test
    void releaseKeepingNodeEndsReleasedLeavesTheNodeAndItsLaterDeleteIsNoLoss() throws Exception {
        CoordClient client = client();
        NodeLease lease = newLease(client);
        List<String> events = record(lease);
        lease.armWatch();
        drainLeaseReplies(client);
        lease.releaseKeepingNode();
        assertEquals(LeaseState.RELEASED, lease.ended().get(5, TimeUnit.SECONDS));
        assertTrue(client.curator().checkExists().forPath(lease.node().value()) != null, "the node is the caller's to delete");
        client.curator().delete().forPath(lease.node().value());
        drainLeaseReplies(client);
        lease.close();
        await(Duration.ofSeconds(5), () -> events.equals(List.of("released")), "onReleased once, never onLost: " + events);
        assertEquals(LeaseState.RELEASED, lease.state());
    }

    @Test
    void aLeaseWatchedByItsRecipeSendsNoWatchAndReReadsOnTheRecipesEvent() throws Exception {
        CoordClient holder = client();
        CoordClient other = client();
        Zk zk = Zk.of(holder);
        LeaseNodes.Created created = LeaseNodes.create(zk, PARENT, "lock-", new byte[0], true);
        NodeLease lease = NodeLease.watchedByRecipe(zk, created.session(), created.token());
        lease.armWatch(); // asked to, it still sends no watch of its own
        drainLeaseReplies(holder);
        other.curator().delete().forPath(lease.node().value());
        drainLeaseReplies(holder);
        assertEquals(LeaseState.ACQUIRED, lease.state(), "no watch of its own: it learns from its recipe");
        lease.nodeEvent();
        assertEquals(LeaseState.LOST, lease.ended().get(5, TimeUnit.SECONDS));
    }

    @Test
    void aNodeDeletedBySomeoneElseBeforeTheWatchIsArmedMakesTheLeaseLostWhenItIs() throws Exception {
        CoordClient holder = client();
        CoordClient other = client();
        NodeLease lease = newLease(holder);
        other.curator().delete().forPath(lease.node().value()); // within the grace: no watch yet
        assertEquals(LeaseState.LOST, lease.ended().get(5, TimeUnit.SECONDS), "the arming read finds the node gone");
        assertThrows(LockLostException.class, lease::checkValid);
    }
    @Test
    void aListenerAddedAfterTheLeaseWasLostHearsOnLostExactlyOnce() throws Exception {
        CoordClient holder = client();
        CoordClient other = client();
        NodeLease lease = newLease(holder);
        other.curator().delete().forPath(lease.node().value());
        assertEquals(LeaseState.LOST, lease.ended().get(10, TimeUnit.SECONDS));
        List<String> events = new CopyOnWriteArrayList<>();
        lease.addListener(recorder(events), listenerThread);
        await(Duration.ofSeconds(5), () -> events.size() == 1, "the late listener hears the end: " + events);
        Thread.sleep(200);
        assertEquals(List.of("lost"), events, "exactly one final call, and it is onLost");
    }

    @Test
    void aListenerAddedAfterReleaseHearsOnReleasedExactlyOnce() throws Exception {
        CoordClient client = client();
        NodeLease lease = newLease(client);
        lease.close();
        List<String> events = new CopyOnWriteArrayList<>();
        lease.addListener(recorder(events), listenerThread);
        await(Duration.ofSeconds(5), () -> events.size() == 1, "the late listener hears the end: " + events);
        Thread.sleep(200);
        assertEquals(List.of("released"), events, "exactly one final call, and it is onReleased");
    }

    @Test
    void listenersAddedWhileTheLeaseEndsHearExactlyOneFinalCall() throws Exception {
        CoordClient client = client();
        NodeLease lease = newLease(client);
        List<List<String>> all = new CopyOnWriteArrayList<>();
        Thread adder = new Thread(() -> {
            for (int i = 0; i < 200; i++) {
                List<String> events = new CopyOnWriteArrayList<>();
                all.add(events);
                lease.addListener(recorder(events), listenerThread);
            }
        });
        adder.start();
        lease.close();
        adder.join(10_000);
        await(Duration.ofSeconds(10), () -> all.stream().allMatch(e -> e.size() >= 1), "every listener hears the end");
        Thread.sleep(200);
        for (List<String> events : all) {
            assertEquals(List.of("released"), events);
        }
    }

    @Test
    void aLeaseStartedWhileItsSessionIsSuspendedIsUncertainInStateAndCheckValidUntilConfirmed() throws Exception {
        CoordClient c = CoordClient.connect(CoordSettings.builder().connectString(server.getConnectString()).namespace(namespace)
                .sessionTimeout(Duration.ofSeconds(10)).build());
        clients.add(c);
        Zk zk = Zk.of(c);
        LeaseNodes.Created created = LeaseNodes.create(zk, PARENT, "lock-", new byte[0], true);
        server.stop();
        NodeLease lease;
        try {
            await(Duration.ofSeconds(10), () -> c.session().state() == io.coord.SessionState.SUSPENDED, "the session is SUSPENDED");
            lease = LeaseNodes.lease(zk, created);
            assertEquals(LeaseState.UNCERTAIN, lease.state(), "state() agrees with checkValid(): not ACQUIRED while SUSPENDED");
            assertThrows(LockLostException.class, lease::checkValid);
        } finally {
            server.restart();
        }
        await(Duration.ofSeconds(15), () -> lease.state() == LeaseState.ACQUIRED, "confirmed by the reconnect's round trip");
        lease.checkValid();
        lease.close();
    }

    @Test
    void anAcquiredLeaseIsUncertainTheMomentItsSessionIsNotConnected() throws Exception {
        CoordClient c = CoordClient.connect(CoordSettings.builder().connectString(server.getConnectString()).namespace(namespace)
                .sessionTimeout(Duration.ofSeconds(10)).build());
        clients.add(c);
        NodeLease lease = newLease(c);
        server.stop();
        try {
            await(Duration.ofSeconds(10), () -> c.session().state() != io.coord.SessionState.CONNECTED, "the session moves");
            assertEquals(LeaseState.UNCERTAIN, lease.state(), "state() follows the session at once, as checkValid() does");
            assertThrows(LockLostException.class, lease::checkValid);
        } finally {
            server.restart();
        }
        await(Duration.ofSeconds(15), () -> lease.state() == LeaseState.ACQUIRED, "restored after the reconnect");
        lease.close();
    }

    @Test
    void closingAWrappedClientEndsItsLeasesLostAndDeletesTheirNodesOnTheLiveSession() throws Exception {
        try (org.apache.curator.framework.CuratorFramework curator = org.apache.curator.framework.CuratorFrameworkFactory.builder()
                .connectString(server.getConnectString()).namespace(namespace).sessionTimeoutMs(30_000)
                .retryPolicy(new org.apache.curator.retry.RetryOneTime(100)).build()) {
            curator.start();
            CoordClient wrapped = CoordClient.wrap(curator);
            NodeLease first = newLease(wrapped);
            NodeLease second = newLease(wrapped);
            NodeLease released = newLease(wrapped);
            released.close();
            long sessionId = curator.getZookeeperClient().getZooKeeper().getSessionId();
            List<String> events = new CopyOnWriteArrayList<>();
            first.addListener(recorder(events), listenerThread);

            wrapped.close();

            assertEquals(LeaseState.LOST, first.ended().get(10, TimeUnit.SECONDS));
            assertEquals(LeaseState.LOST, second.ended().get(10, TimeUnit.SECONDS));
            assertEquals(LeaseState.RELEASED, released.state(), "a lease released before stays RELEASED");
            assertNull(curator.checkExists().forPath(first.node().value()), "its node is deleted although the session lives");
            assertNull(curator.checkExists().forPath(second.node().value()));
            assertEquals(sessionId, curator.getZookeeperClient().getZooKeeper().getSessionId(), "the caller's session lives on");
            assertTrue(curator.getZookeeperClient().isConnected(), "the caller's Curator client is still open");
            await(Duration.ofSeconds(5), () -> events.equals(List.of("lost")), "onLost once: " + events);
            assertThrows(LockLostException.class, first::checkValid);
        }
    }

    /** The one thread clients share ({@code coord-scheduler}) ends with the last of them, here the only one. */
    @Test
    void everyThreadOfAClientEndsWithItTheSharedSchedulerWithTheLastClient() throws Exception {
        java.util.Set<Thread> before = Thread.getAllStackTraces().keySet();
        CoordClient c = CoordClient.connect(CoordSettings.builder().connectString(server.getConnectString()).namespace(namespace)
                .sessionTimeout(Duration.ofSeconds(3)).build());
        NodeLease lease = newLease(c);
        await(Duration.ofSeconds(5), () -> coordThreadsSince(before).stream().anyMatch(t -> t.getName().startsWith("coord-timer-")),
                "the client's own timer runs its watch armer");
        Thread.sleep(2 * WatchArmer.GRACE.toMillis()); // the watch is armed on the client's timer
        lease.close();
        c.close();
        await(Duration.ofSeconds(10), () -> coordThreadsSince(before).isEmpty(),
                "no thread of the closed client is left: " + coordThreadsSince(before));
    }

    /**
     * The stall monitor samples on the shared scheduler: a client's only threads of Coord's are its
     * events, callback and timer threads (and the scheduler every client of the JVM shares).
     */
    @Test
    void aClientRunsNoThreadOfItsOwnBesideItsEventsCallbackAndTimerThreads() throws Exception {
        java.util.Set<Thread> before = Thread.getAllStackTraces().keySet();
        CoordClient c = client();
        assertTrue(c.settings().stallFraction() > 0, "the stall monitor is on");
        NodeLease lease = newLease(c);
        await(Duration.ofSeconds(5), () -> coordThreadsSince(before).stream().anyMatch(t -> t.getName().startsWith("coord-timer-")),
                "the client's own timer runs");
        List<String> names = coordThreadsSince(before).stream().map(Thread::getName).toList();
        assertTrue(names.stream().allMatch(n -> n.startsWith("coord-events-") || n.startsWith("coord-callbacks-")
                || n.startsWith("coord-timer-") || n.equals(SharedScheduler.THREAD_NAME)), "threads of one client: " + names);
        lease.close();
    }

    /** Idle clients (hundreds of group members or config readers) hold no events or callback thread; the next task starts one. */
    @Test
    void anIdleClientsEventsAndCallbackThreadsEndAndComeBackForTheNextTask() throws Exception {
        Zk z = Zk.of(client());
        List<String> names = new java.util.ArrayList<>();
        for (java.util.concurrent.ExecutorService e : List.of(z.events(), z.callbacks())) {
            names.add(e.submit(() -> Thread.currentThread().getName()).get(10, java.util.concurrent.TimeUnit.SECONDS));
        }
        await(Duration.ofSeconds(EventThreads.IDLE_SECONDS * 3), () -> Thread.getAllStackTraces().keySet().stream()
                .noneMatch(t -> t.isAlive() && names.contains(t.getName())), "the idle client's threads " + names + " end");
        assertEquals(names.get(0), z.events().submit(() -> Thread.currentThread().getName()).get(10, java.util.concurrent.TimeUnit.SECONDS));
        assertTrue(z.events().submit(EventThreads::current).get(10, java.util.concurrent.TimeUnit.SECONDS),
                "a new events thread is an event thread");
        assertEquals(names.get(1), z.callbacks().submit(() -> Thread.currentThread().getName()).get(10, java.util.concurrent.TimeUnit.SECONDS));
    }

    private static List<Thread> coordThreadsSince(java.util.Set<Thread> before) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().startsWith("coord-") && !before.contains(t)).toList();
    }

    /** Records each call by name ("uncertain", "restored", "lost", "released"); also ClientThreadsIT's. */
    static LeaseListener recorder(List<String> events) {
        return new LeaseListener() {
            @Override
            public void onUncertain(Lease l) {
                events.add("uncertain");
            }

            @Override
            public void onRestored(Lease l) {
                events.add("restored");
            }

            @Override
            public void onLost(Lease l, CoordException cause) {
                events.add("lost");
            }

            @Override
            public void onReleased(Lease l) {
                events.add("released");
            }
        };
    }
}
