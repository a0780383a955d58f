package io.coord.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.CoordPath;
import io.coord.CoordSettings;
import io.coord.CoreTestSupport;
import io.coord.LeaseState;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The one waiting primitive against a real server: every source wakes it (a watched node deleted
 * or changed, a session's end, a lease's loss, a fire from another thread), a wake-up between the
 * epoch read and the wait is never lost, the deadline is kept, and after closing no event of its
 * watches reaches it. Bounds stretch with {@code -Dcoord.test.timing}; no outcome depends on speed.
 */
class WakeSignalIT {
    private static final CoordPath ROOT = CoordPath.of("/wake");
    private static final AtomicInteger NS = new AtomicInteger();
    @RegisterExtension
    static final ServerProbe SERVER = new ServerProbe();
    private final List<CoordClient> clients = new CopyOnWriteArrayList<>();
    private final List<WakeSignal> signals = new CopyOnWriteArrayList<>();
    private final ExecutorService waiter = Executors.newSingleThreadExecutor();
    private final String namespace = "wake" + NS.incrementAndGet();

    @AfterEach
    void closeAll() throws InterruptedException {
        signals.forEach(WakeSignal::close);
        waiter.shutdownNow();
        assertTrue(waiter.awaitTermination(10, TimeUnit.SECONDS), "the waiting thread ended");
        clients.forEach(CoordClient::close);
    }

    @Test
    void aWakeUpBetweenTheEpochReadAndTheWaitIsNotLost() throws Exception {
        Zk zk = Zk.of(client());
        CoordPath node = node(zk, "between");
        WakeSignal signal = signal(zk);
        long seen = signal.epoch();
        signal.watching().getData().usingWatcher(signal).forPath(node.value());
        other().curator().delete().forPath(node.value());
        ServerProbe.until("the deletion reached the signal", () -> signal.epoch() != seen);
        // The deadline has passed already: only the counted wake-up can make this true.
        assertTrue(signal.await(seen, System.nanoTime()), "a wake-up before the wait is not lost");
        assertFalse(signal.await(signal.epoch(), System.nanoTime()), "control: no wake-up since, and the deadline passed");

        long again = signal.epoch();
        signal.fire();
        assertTrue(signal.await(again, System.nanoTime()), "a fire before the wait is not lost either");
    }

    @Test
    void aDeletedNodeWakesItAndIsRecordedAsGone() throws Exception {
        CoordPath node = ROOT.child("deleted");
        WakeSignal.Wakes wakes = wakesOfAWatchedNode(node, c -> c.curator().delete().forPath(node.value()));
        assertEquals(1, wakes.gone().size(), "one node went: " + wakes);
        assertTrue(wakes.gone().iterator().next().endsWith(node.value()), "the deleted node is named: " + wakes);
        assertTrue(wakes.changed().isEmpty() && !wakes.sessionEnded(), "nothing else recorded: " + wakes);
    }

    @Test
    void aChangedNodeWakesItAndIsRecordedAsChanged() throws Exception {
        CoordPath node = ROOT.child("changed");
        WakeSignal.Wakes wakes = wakesOfAWatchedNode(node, c -> c.curator().setData().forPath(node.value(), new byte[] {1}));
        assertEquals(1, wakes.changed().size(), "one node changed: " + wakes);
        assertTrue(wakes.changed().iterator().next().endsWith(node.value()), "the changed node is named: " + wakes);
        assertTrue(wakes.gone().isEmpty() && !wakes.sessionEnded(), "nothing else recorded: " + wakes);
    }

    /** A change another client makes to a node. */
    private interface Change {
        void apply(CoordClient other) throws Exception;
    }

    /**
     * Creates {@code node}, watches it through a signal, waits on another thread while another
     * client makes {@code change}: the wait must end with a wake-up; returns what was recorded
     * (and checks that taking it cleared it).
     */
    private WakeSignal.Wakes wakesOfAWatchedNode(CoordPath node, Change change) throws Exception {
        Zk zk = Zk.of(client());
        node(zk, node.name());
        WakeSignal signal = signal(zk);
        long seen = signal.epoch();
        signal.watching().getData().usingWatcher(signal).forPath(node.value());
        Future<Boolean> woke = waitFor(signal, seen);
        change.apply(other());
        assertTrue(woke.get(ServerProbe.scaledMillis(10_000), TimeUnit.MILLISECONDS), "the change of " + node + " woke the waiter");
        WakeSignal.Wakes wakes = signal.take();
        assertTrue(signal.take().isEmpty(), "take clears the record");
        return wakes;
    }

    @Test
    void theEndOfAFollowedSessionWakesIt() throws Exception {
        CoordClient client = client();
        WakeSignal signal = signal(Zk.of(client)).followSession(client.session());
        // The waiting shape itself: read the epoch, look, wait; a suspension first is only one more turn.
        long bound = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ServerProbe.scaledMillis(30_000));
        Future<Boolean> ended = waiter.submit(() -> {
            while (true) {
                long seen = signal.epoch();
                if (signal.take().sessionEnded()) {
                    return true;
                }
                if (!signal.await(seen, bound)) {
                    return false;
                }
            }
        });
        CoreTestSupport.expireOnServer(client);
        assertTrue(ended.get(ServerProbe.scaledMillis(40_000), TimeUnit.MILLISECONDS), "the session's end woke the waiter, recorded");
    }

    @Test
    void aLostLeaseWakesIt() throws Exception {
        Zk zk = Zk.of(client());
        NodeLease lease = LeaseNodes.lease(zk, LeaseNodes.create(zk, ROOT.child("leases"), "lock-", new byte[0], true));
        ServerProbe.until("the lease is held", () -> lease.state() == LeaseState.ACQUIRED);
        WakeSignal signal = signal(zk);
        signal.follow(lease);
        long seen = signal.epoch();
        Future<Boolean> woke = waitFor(signal, seen);
        other().curator().delete().forPath(lease.node().value());
        assertTrue(woke.get(ServerProbe.scaledMillis(10_000), TimeUnit.MILLISECONDS), "the lease's loss woke the waiter");
        ServerProbe.until("the lease is LOST", () -> lease.state() == LeaseState.LOST);
        assertTrue(signal.take().isEmpty(), "a lease change is a wake-up, not a node record");
    }

    @Test
    void aFireFromAnotherThreadWakesAWaitWithoutDeadline() throws Exception {
        WakeSignal signal = signal(Zk.of(client()));
        long seen = signal.epoch();
        AtomicReference<Thread> waiting = new AtomicReference<>();
        Future<Boolean> woke = waiter.submit(() -> {
            waiting.set(Thread.currentThread());
            signal.await(seen);
            return true;
        });
        ServerProbe.until("the waiter is blocked in its wait",
                () -> waiting.get() != null && waiting.get().getState() == Thread.State.WAITING);
        signal.fire();
        assertTrue(woke.get(ServerProbe.scaledMillis(10_000), TimeUnit.MILLISECONDS), "the fire woke the waiter");
    }

    @Test
    void theDeadlinePassingEndsTheWaitWithFalse() throws Exception {
        WakeSignal signal = signal(Zk.of(client()));
        long start = System.nanoTime();
        long wait = TimeUnit.MILLISECONDS.toNanos(300);
        assertFalse(signal.await(signal.epoch(), start + wait), "no wake-up: the deadline ends the wait");
        long took = System.nanoTime() - start;
        assertTrue(took >= wait, "not before the deadline: " + took / 1_000_000 + " ms");
        assertTrue(took < wait + TimeUnit.MILLISECONDS.toNanos(ServerProbe.scaledMillis(5_000)), "soon after the deadline: " + took / 1_000_000 + " ms");
    }

    @Test
    void aWaitIsInterruptible() throws Exception {
        WakeSignal signal = signal(Zk.of(client()));
        Thread.currentThread().interrupt();
        assertThrows(InterruptedException.class, () -> signal.await(signal.epoch(), System.nanoTime() + TimeUnit.SECONDS.toNanos(30)));
        Thread.currentThread().interrupt();
        assertThrows(InterruptedException.class, () -> signal.await(signal.epoch()));
    }

    @Test
    void afterCloseAWatchedNodeNoLongerReachesIt() throws Exception {
        Zk zk = Zk.of(client());
        CoordPath node = node(zk, "closed");
        CoordPath marker = node(zk, "marker");
        WakeSignal signal = signal(zk);
        signal.watching().getData().usingWatcher(signal).forPath(node.value());
        assertTrue(SERVER.watched(namespace, node), "the watch is set");
        long before = signal.epoch();
        signal.close();
        signal.close(); // idempotent
        // ZooKeeper removes a single watcher on the client, and tells it so (a DataWatchRemoved
        // event); the server keeps the path's watch until it fires, and the client drops that
        // event. Proof by order: a plain watch on a marker, deleted after the node, fires on the
        // same event thread after the node's event would have.
        ServerProbe.until("the removal reached the watcher", () -> signal.epoch() != before);
        signal.take();
        java.util.concurrent.CountDownLatch markerGone = new java.util.concurrent.CountDownLatch(1);
        zk.curator().getData().usingWatcher((org.apache.zookeeper.Watcher) e -> markerGone.countDown()).forPath(marker.value());
        CoordClient other = other();
        other.curator().delete().forPath(node.value());
        other.curator().delete().forPath(marker.value());
        assertTrue(markerGone.await(ServerProbe.scaledMillis(10_000), TimeUnit.MILLISECONDS), "the marker's deletion arrived");
        WakeSignal.Wakes wakes = signal.take();
        assertTrue(wakes.gone().isEmpty(), "no deletion reached the closed signal: " + wakes);
    }

    @Test
    void closingOnAClosedClientDoesNotThrow() throws Exception {
        CoordClient client = client();
        Zk zk = Zk.of(client);
        CoordPath node = node(zk, "after-client");
        WakeSignal signal = signal(zk).followSession(client.session());
        signal.watching().getData().usingWatcher(signal).forPath(node.value());
        client.close();
        signal.close();
    }

    // --- helpers ---

    private CoordClient client() throws InterruptedException {
        CoordClient c = CoordClient.connect(CoordSettings.builder().connectString(SERVER.connectString()).namespace(namespace)
                .sessionTimeout(Duration.ofSeconds(3)).build());
        clients.add(c);
        return c;
    }

    private CoordClient other() throws InterruptedException {
        return client();
    }

    private WakeSignal signal(Zk zk) {
        WakeSignal s = new WakeSignal(zk);
        signals.add(s);
        return s;
    }

    private static CoordPath node(Zk zk, String name) throws Exception {
        CoordPath node = ROOT.child(name);
        zk.curator().create().creatingParentsIfNeeded().forPath(node.value(), new byte[0]);
        return node;
    }

    private Future<Boolean> waitFor(WakeSignal signal, long seen) {
        return waiter.submit(() -> signal.await(seen, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ServerProbe.scaledMillis(30_000))));
    }
}
