package io.coord.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.coord.CoordClient;
import io.coord.CoordException;
import io.coord.FencingToken;
import io.coord.Lease;
import io.coord.LeaseListener;
import io.coord.LeaseState;
import io.coord.LockLostException;
import io.coord.SessionState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The one contract every lease handle keeps: {@link Lease#state()}, {@link Lease#checkValid()},
 * {@link Lease#ended()} and {@link LeaseListener}s agree on every path a lease can take. A recipe
 * module's test extends this once per handle kind and says, in {@link #acquire}, how to get one
 * handle and how to end it the recipe's own way (close, complete, leave, resign).
 *
 * <p>The paths: release the recipe's way, session expiry on the server, the node deleted by
 * someone else, a connection cut shorter and longer than the session, a stall of the process past
 * its client's threshold (confirmed by one round trip, or LOST when the node went meanwhile), a
 * listener added after the end, close after LOST, and closing a client made with
 * {@link CoordClient#wrap} while its Curator client stays open. A path that does not apply to a
 * kind is skipped by {@link #notApplicable}, which must say why.
 *
 * <p>Every wait is bounded through {@link Awaits} (stretched by the timing factor); the only fixed
 * period is the short window in which nothing more may be heard after a final call.
 */
public abstract class LeaseContract {
    @RegisterExtension
    static final ZooKeeperExtension SERVER = ZooKeeperExtension.single();

    /** Session of the client cut off for longer than it: short, so the loss comes soon. */
    protected static final Duration SHORT_SESSION = Duration.ofSeconds(2);
    /** Session of the client cut off briefly: the reconnect must beat its expiry by a wide margin. */
    protected static final Duration LONG_SESSION = Duration.ofSeconds(6);
    /**
     * Session of the client that stalls: the longest the test server grants (20 x its 500 ms tick),
     * so that its connection held back while the stall is looked at stays far inside it.
     */
    protected static final Duration STALL_SESSION = Duration.ofSeconds(10);
    /** Bound of an acquire, of an event that follows at once from a fault, of a release. */
    protected static final Duration SOON = Duration.ofSeconds(10);
    /** After the final call, nothing more may be heard within this window (not scaled: see {@link Awaits#never}). */
    private static final Duration QUIET = Duration.ofMillis(200);

    /** How to end a handle the recipe's own way. */
    @FunctionalInterface
    public interface Release {
        void release() throws Exception;
    }

    /**
     * One handle, as a {@link Lease}, with the recipe's own way to release it and what to close
     * after the test (the election, queue or group it came from; null if nothing).
     */
    public record Held(Lease lease, Release release, AutoCloseable owner) {
    }

    /** The paths of this contract, for {@link #notApplicable}. */
    public enum Path {
        RELEASE, SESSION_EXPIRY, NODE_DELETED, SHORT_CUT, LONG_CUT, STALL, LATE_LISTENER, CLOSE_AFTER_LOST, WRAPPED_CLIENT_CLOSE
    }

    private final ExecutorService listenerThread = Executors.newSingleThreadExecutor();
    private final List<AutoCloseable> toClose = new ArrayList<>();

    /**
     * Acquires one handle of this kind on {@code client} (connected to this test's namespace),
     * bounded by {@code timeout}; the lease returned is ACQUIRED.
     */
    protected abstract Held acquire(CoordClient client, Duration timeout) throws Exception;

    /** Why {@code path} does not apply to this kind, or empty if it does (the default). */
    protected Optional<String> notApplicable(Path path) {
        return Optional.empty();
    }

    /** The test server, for subclasses that need to look at it. */
    protected static ZooKeeperExtension server() {
        return SERVER;
    }

    @AfterEach
    void closeEverything() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
        listenerThread.shutdownNow();
        assertTrue(listenerThread.awaitTermination(Awaits.scaled(Duration.ofSeconds(5)).toMillis(), TimeUnit.MILLISECONDS),
                "the listener thread stops");
    }

    // ---- the paths ----

    @Test
    void releasingTheRecipesOwnWayIsReleasedEverywhere() throws Exception {
        applies(Path.RELEASE);
        CoordClient client = SERVER.newClient();
        Held held = held(client);
        Recorder events = record(held.lease());
        assertAcquired(held.lease());

        held.release().release();

        assertEnded(held.lease(), LeaseState.RELEASED, events, List.of());
        CoordClient other = SERVER.newClient();
        Awaits.until("the released node " + held.lease().node() + " to be gone", SOON, () -> !exists(other, held.lease()));
    }

    @Test
    void sessionExpiryOnTheServerIsLostEverywhere() throws Exception {
        applies(Path.SESSION_EXPIRY);
        CoordClient client = SERVER.newClient();
        Held held = held(client);
        Recorder events = record(held.lease());

        Faults.expireSession(client, SERVER.ensemble());

        // the server drops the connection of the expired session: a SUSPENDED may show first
        assertEnded(held.lease(), LeaseState.LOST, events, List.of("uncertain"));
        assertFalse(exists(SERVER.newClient(), held.lease()), "the server deleted the node with the session");
    }

    @Test
    void theNodeDeletedBySomeoneElseIsLostEverywhere() throws Exception {
        applies(Path.NODE_DELETED);
        CoordClient client = SERVER.newClient();
        Held held = held(client);
        Recorder events = record(held.lease());

        SERVER.newClient().curator().delete().forPath(held.lease().token().node().value());

        assertEnded(held.lease(), LeaseState.LOST, events, List.of());
        assertEquals(SessionState.CONNECTED, client.session().state(), "the session itself lives on");
    }

    /**
     * A cut the client notices at once (the proxy refuses and resets its connections) and that
     * ends well within the session. Not a freeze: a black hole is noticed only at 2/3 of the
     * session, and the server may expire it 1/3 of a session after the last ping it heard, a
     * window a loaded machine can miss; here the whole session is the margin.
     */
    @Test
    void aConnectionCutShorterThanTheSessionIsUncertainThenAcquiredWithTheSameToken() throws Exception {
        applies(Path.SHORT_CUT);
        ClientProxy proxy = closeLater(ClientProxy.to(SERVER.ensemble().connectString()));
        CoordClient client = SERVER.newClient(b -> b.connectString(proxy.connectString()).sessionTimeout(LONG_SESSION));
        Held held = held(client);
        FencingToken token = held.lease().token();
        long session = held.lease().session().id();
        Recorder events = record(held.lease());

        proxy.refuse();
        Awaits.until("the lease to be UNCERTAIN while cut off", SOON, () -> held.lease().state() == LeaseState.UNCERTAIN);
        assertThrows(LockLostException.class, held.lease()::checkValid, "UNCERTAIN: checkValid refuses");
        assertFalse(held.lease().ended().isDone(), "UNCERTAIN is not an end");
        events.await("onUncertain", e -> e.contains("uncertain"));
        proxy.accept();

        assertRestoredThenReleased(held, events, token, session, "");
    }

    /** UNCERTAIN was followed by a confirmation: ACQUIRED again, the same lease on the same session; then released. */
    private void assertRestoredThenReleased(Held held, Recorder events, FencingToken token, long session, String after)
            throws Exception {
        Awaits.until("the lease to be ACQUIRED again" + after, SOON, () -> held.lease().state() == LeaseState.ACQUIRED);
        events.await("onRestored", e -> e.contains("restored"));
        assertEquals(List.of("uncertain", "restored"), events.list());
        assertEquals(token, held.lease().token(), "the same lease, the same token");
        assertEquals(session, held.lease().session().id(), "the same session");
        assertAcquired(held.lease());

        held.release().release();
        assertEnded(held.lease(), LeaseState.RELEASED, events, List.of("uncertain", "restored"));
    }

    @Test
    void aConnectionCutLongerThanTheSessionIsLostEverywhere() throws Exception {
        applies(Path.LONG_CUT);
        ClientProxy proxy = closeLater(ClientProxy.to(SERVER.ensemble().connectString()));
        CoordClient client = SERVER.newClient(b -> b.connectString(proxy.connectString()).sessionTimeout(SHORT_SESSION));
        Held held = held(client);
        Recorder events = record(held.lease());

        proxy.freeze();
        Awaits.until("the lease to be UNCERTAIN while frozen", SOON, () -> held.lease().state() != LeaseState.ACQUIRED);
        if (held.lease().state() == LeaseState.UNCERTAIN) {
            assertThrows(LockLostException.class, held.lease()::checkValid, "UNCERTAIN: checkValid refuses");
        }
        // Curator gives the session up by its own clock, a session timeout after the disconnect
        Awaits.until("the lease to be LOST while frozen", SHORT_SESSION.multipliedBy(5), () -> held.lease().state() == LeaseState.LOST);
        proxy.unfreeze();

        assertEnded(held.lease(), LeaseState.LOST, events, List.of("uncertain"));
        assertEquals("uncertain", events.list().get(0), "the disconnect was told before the loss: " + events.list());
        CoordClient other = SERVER.newClient();
        Awaits.until("the server to expire the session and delete " + held.lease().node(), SHORT_SESSION.multipliedBy(5),
                () -> !exists(other, held.lease()));
    }

    /**
     * The process stalls past its client's threshold (its {@link SteppedTicker} jumps by a whole
     * negotiated session, more than any stall fraction): the lease is UNCERTAIN everywhere until one
     * round trip started after the stall confirms its node, then ACQUIRED again with the same token
     * on the same session. The client's connection is frozen from just before the stall until the
     * UNCERTAIN has been looked at, so that the confirming reply cannot come first. The freeze is
     * far shorter than the 2/3 of the session after which the client would give the connection up:
     * the session is still CONNECTED when the UNCERTAIN is seen, which shows the stall caused it (a
     * SUSPENDED after that would change no outcome: UNCERTAIN already, and the reconnect confirms).
     */
    @Test
    void aStallPastTheThresholdIsUncertainUntilOneRoundTripConfirmsIt() throws Exception {
        applies(Path.STALL);
        StalledClient stalling = stalledClient();
        Held held = stalling.held();
        FencingToken token = held.lease().token();
        long session = held.lease().session().id();
        Recorder events = record(held.lease());

        stalling.stall();
        assertUncertainAfterTheStall(held.lease(), events, stalling.client());
        stalling.proxy().unfreeze();

        assertRestoredThenReleased(held, events, token, session, " after the stall");
    }

    /**
     * The process stalls, and meanwhile someone deletes its node: the round trip that would have
     * confirmed the lease finds the node gone, and the lease is LOST everywhere, never ACQUIRED in
     * between; the session itself lives on.
     */
    @Test
    void aStallDuringWhichTheNodeWasDeletedIsUncertainThenLostEverywhere() throws Exception {
        applies(Path.STALL);
        StalledClient stalling = stalledClient();
        Held held = stalling.held();
        long session = held.lease().session().id();
        Recorder events = record(held.lease());

        stalling.stall();
        assertUncertainAfterTheStall(held.lease(), events, stalling.client());
        SERVER.newClient().curator().delete().forPath(held.lease().node().value());
        stalling.proxy().unfreeze();

        assertEnded(held.lease(), LeaseState.LOST, events, List.of("uncertain"));
        Awaits.until("the stalled client's session to be connected again", SOON,
                () -> stalling.client().session().state() == SessionState.CONNECTED);
        assertEquals(session, stalling.client().session().id(), "the session itself lives on");
    }

    @Test
    void aListenerAddedAfterTheEndHearsExactlyOneFinalCall() throws Exception {
        applies(Path.LATE_LISTENER);
        CoordClient client = SERVER.newClient();
        Held released = held(client);
        released.release().release();
        Awaits.until("the first lease to be RELEASED", SOON, () -> released.lease().state() == LeaseState.RELEASED);
        Recorder late = record(released.lease());
        late.await("the late listener's final call", e -> !e.isEmpty());
        Awaits.never("a second call to the late listener", QUIET, () -> late.list().size() > 1);
        assertEquals(List.of("released"), late.list());

        Held lost = held(client);
        SERVER.newClient().curator().delete().forPath(lost.lease().node().value());
        Awaits.until("the second lease to be LOST", SOON, () -> lost.lease().state() == LeaseState.LOST);
        Recorder lateToLoss = record(lost.lease());
        lateToLoss.await("the late listener's final call", e -> !e.isEmpty());
        Awaits.never("a second call to the late listener", QUIET, () -> lateToLoss.list().size() > 1);
        assertEquals(List.of("lost"), lateToLoss.list());
    }

    @Test
    void closingAfterLostKeepsItLost() throws Exception {
        applies(Path.CLOSE_AFTER_LOST);
        CoordClient client = SERVER.newClient();
        Held held = held(client);
        Recorder events = record(held.lease());
        SERVER.newClient().curator().delete().forPath(held.lease().node().value());
        assertEnded(held.lease(), LeaseState.LOST, events, List.of());

        held.lease().close();
        held.lease().close();

        assertEquals(LeaseState.LOST, held.lease().state(), "closing does not turn a loss into a release");
        assertEquals(LeaseState.LOST, held.lease().ended().getNow(null), "ended() still says LOST");
        assertThrows(LockLostException.class, held.lease()::checkValid);
        Awaits.never("a call after the close", QUIET, () -> events.list().size() > 1);
        assertEquals(List.of("lost"), events.list());
    }

    @Test
    void closingAWrappedClientLosesTheLeaseAndDeletesItsNodeWhileTheSessionLives() throws Exception {
        applies(Path.WRAPPED_CLIENT_CLOSE);
        CuratorFramework curator = closeLater(CuratorFrameworkFactory.builder().connectString(SERVER.connectString())
                .namespace(SERVER.namespace()).sessionTimeoutMs((int) LONG_SESSION.toMillis())
                .retryPolicy(new RetryOneTime(100)).build());
        curator.start();
        CoordClient wrapped = CoordClient.wrap(curator);
        Held held = held(wrapped);
        Recorder events = record(held.lease());
        long session = curator.getZookeeperClient().getZooKeeper().getSessionId();

        wrapped.close();

        assertEnded(held.lease(), LeaseState.LOST, events, List.of());
        assertNull(curator.checkExists().forPath(held.lease().node().value()), "the node went with the close");
        assertEquals(session, curator.getZookeeperClient().getZooKeeper().getSessionId(), "the caller's session lives on");
        assertTrue(curator.getZookeeperClient().isConnected(), "and is still connected");
    }

    // ---- shared checks ----

    /** A client behind a proxy, stepping its ticker, with one handle. */
    private record StalledClient(CoordClient client, ClientProxy proxy, SteppedTicker ticker, Held held) {
        /** Freezes the connection (the confirming round trip waits), then stalls past any threshold. */
        void stall() {
            proxy.freeze();
            ticker.stall(client.negotiatedSessionTimeout());
        }
    }

    private StalledClient stalledClient() throws Exception {
        ClientProxy proxy = closeLater(ClientProxy.to(SERVER.ensemble().connectString()));
        SteppedTicker ticker = new SteppedTicker();
        CoordClient client = SERVER.newClient(b -> b.connectString(proxy.connectString()).sessionTimeout(STALL_SESSION).ticker(ticker));
        assertTrue(client.settings().stallFraction() > 0, "the client watches for stalls");
        return new StalledClient(client, proxy, ticker, held(client));
    }

    /** After a stall: UNCERTAIN in every view (state, checkValid, ended, onUncertain), the session untouched. */
    private static void assertUncertainAfterTheStall(Lease lease, Recorder events, CoordClient client) {
        Awaits.until("the lease to be UNCERTAIN after the stall", SOON, () -> lease.state() == LeaseState.UNCERTAIN);
        assertThrows(LockLostException.class, lease::checkValid, "UNCERTAIN: checkValid refuses");
        assertFalse(lease.ended().isDone(), "UNCERTAIN is not an end");
        events.await("onUncertain", e -> e.contains("uncertain"));
        assertEquals(List.of("uncertain"), events.list(), "the stall is told once");
        assertEquals(LeaseState.UNCERTAIN, lease.state(), "nothing confirmed it while the connection is held: " + lease);
        assertEquals(lease.session().id(), client.session().id(), "a stall ends no session");
        // The frozen connection would be given up at 2/3 of the session and make the lease UNCERTAIN
        // too: the session still CONNECTED shows this UNCERTAIN came from the stall.
        assertEquals(SessionState.CONNECTED, client.session().state(), "a stall, not a suspension, made it UNCERTAIN");
    }

    private void applies(Path path) {
        Optional<String> why = notApplicable(path);
        Assumptions.assumeTrue(why.isEmpty(), () -> path + " does not apply to " + getClass().getSimpleName() + ": " + why.orElse(""));
    }

    private Held held(CoordClient client) throws Exception {
        Held held = acquire(client, Awaits.scaled(SOON));
        if (held.owner() != null) {
            toClose.add(held.owner());
        }
        assertAcquired(held.lease());
        return held;
    }

    private <T extends AutoCloseable> T closeLater(T resource) {
        toClose.add(resource);
        return resource;
    }

    private static void assertAcquired(Lease lease) {
        assertEquals(LeaseState.ACQUIRED, lease.state(), "a fresh lease is ACQUIRED: " + lease);
        lease.checkValid();
        assertFalse(lease.ended().isDone(), "a held lease has not ended: " + lease);
    }

    /**
     * {@code lease} ended {@code end}, and everything says so: state, checkValid, ended(), exactly
     * one final call to {@code events} (after calls from {@code before} only, in order, each at
     * most once), and a listener added now hears exactly that one final call too.
     */
    private void assertEnded(Lease lease, LeaseState end, Recorder events, List<String> before) throws Exception {
        String fin = end == LeaseState.LOST ? "lost" : "released";
        assertEquals(end, lease.ended().get(Awaits.scaled(SOON).toMillis(), TimeUnit.MILLISECONDS), "ended() of " + lease);
        assertEquals(end, lease.state(), "state() agrees with ended(): " + lease);
        assertThrows(LockLostException.class, lease::checkValid, "checkValid refuses a " + end + " lease");
        events.await("the final call " + fin, e -> e.contains("lost") || e.contains("released"));
        Recorder late = record(lease);
        late.await("a late listener's final call", e -> !e.isEmpty());
        Awaits.never("a call after the final one", QUIET, () -> !isFinal(events.list(), fin) || late.list().size() > 1);
        assertEquals(List.of(fin), late.list(), "a listener added after the end hears the end once");
        List<String> heard = events.list();
        List<String> leading = heard.subList(0, heard.size() - 1);
        int at = 0;
        for (String e : leading) {
            int found = before.subList(at, before.size()).indexOf(e);
            if (found < 0) {
                fail("before the final " + fin + " only " + before + " (in order) may be heard, got " + heard);
            }
            at += found + 1;
        }
        assertEquals(end, lease.state(), "still " + end + " after the final call: " + lease);
    }

    private static boolean isFinal(List<String> heard, String fin) {
        long finals = heard.stream().filter(e -> e.equals("lost") || e.equals("released")).count();
        return finals == 1 && heard.get(heard.size() - 1).equals(fin);
    }

    private static boolean exists(CoordClient client, Lease lease) {
        try {
            return client.curator().checkExists().forPath(lease.node().value()) != null;
        } catch (Exception e) {
            throw new IllegalStateException("could not look for " + lease.node(), e);
        }
    }

    private Recorder record(Lease lease) {
        Recorder r = new Recorder();
        lease.addListener(r, listenerThread);
        return r;
    }

    /** Every call a listener heard, in order. */
    private static final class Recorder implements LeaseListener {
        private final List<String> heard = new CopyOnWriteArrayList<>();

        @Override
        public void onUncertain(Lease lease) {
            heard.add("uncertain");
        }

        @Override
        public void onRestored(Lease lease) {
            heard.add("restored");
        }

        @Override
        public void onLost(Lease lease, CoordException cause) {
            heard.add("lost");
        }

        @Override
        public void onReleased(Lease lease) {
            heard.add("released");
        }

        List<String> list() {
            return List.copyOf(heard);
        }

        void await(String what, java.util.function.Predicate<List<String>> condition) {
            Awaits.until(what + " (heard " + heard + ")", SOON, () -> condition.test(list()));
        }
    }
}
