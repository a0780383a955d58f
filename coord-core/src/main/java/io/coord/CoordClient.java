package io.coord;

import io.coord.internal.ClientTimer;
import io.coord.internal.EventThreads;
import io.coord.internal.SessionTracker;
import io.coord.internal.StallMonitor;
import io.coord.internal.Zk;
import io.coord.internal.ZkSession;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.concurrent.Executor;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection to a ZooKeeper ensemble: owns one Curator client (or adopts one, see
 * {@link #wrap}), tracks its sessions, and is what every recipe is built from.
 *
 * <pre>{@code
 * try (CoordClient client = CoordClient.connect(CoordSettings.builder()
 *         .connectString("127.0.0.1:2181").sessionTimeout(Duration.ofSeconds(10)).build())) {
 *     CoordSession session = client.session();
 * }
 * }</pre>
 *
 * <p>The server may clamp the requested session timeout (to 2–20 × its tickTime). The client
 * reads the negotiated value after connecting, logs one warning with both values when they
 * differ, and exposes both; every lease or pause budget should use {@link #negotiatedSessionTimeout()}.
 */
public final class CoordClient implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(CoordClient.class);
    private static final AtomicInteger CLIENT_IDS = new AtomicInteger();
    /** How often the stall monitor samples its ticker. */
    private static final Duration STALL_TICK = Duration.ofMillis(100);

    private final CuratorFramework curator;
    private final CoordSettings settings;
    private final boolean owned;
    /** Numbers this client's threads ({@code coord-events-N}, ...). */
    private final int id;
    /** Sends the authentication probe as each handle's first request; null for a wrapped client. */
    private final AuthProbe authProbe;
    private final SessionTracker sessions;
    private final ExecutorService events;
    private final ExecutorService callbacks;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final AtomicBoolean clampWarned = new AtomicBoolean();
    private final StallMonitor stallMonitor;
    /**
     * Coord's own timed work for this client (see {@code Zk.timer()}): run on the client's timer
     * thread, started on demand; the waiting is done by the one thread all clients of the JVM share.
     */
    private final ClientTimer timer;
    /**
     * Where the owned Curator client runs {@code runSafe} work (Curator's recipes' notifications):
     * started on demand, ended by {@link #close()}. Null for a wrapped client, whose Curator keeps
     * its own. Curator's default is a thread per client that lives until its executor is collected.
     */
    private final ExecutorService curatorNotify;
    /**
     * What recipes need beyond this public API, read by {@link Zk#of} through {@link Zk.Access}
     * (no map of clients anywhere). Null once closed: {@code Zk.of} then fails naming this client.
     */
    private volatile Zk zk;
    /** Set by {@link #start}'s background wait when the first session will not come by itself; see {@link #startFailure()}. */
    private volatile CoordException startFailure;
    /** {@link #start}'s background wait for the first session; null otherwise. Interrupted by {@link #close()}. */
    private volatile Thread firstSessionWaiter;

    static {
        Zk.installAccess(client -> client.zk);
    }

    /**
     * {@code authProbe} and {@code curatorNotify} are null for a wrapped client: Coord did not build
     * its handles (and does not own it).
     */
    private CoordClient(CuratorFramework curator, CoordSettings settings, AuthProbe authProbe, int id, ExecutorService curatorNotify) {
        this.curator = curator;
        this.settings = settings;
        this.authProbe = authProbe;
        this.owned = authProbe != null;
        this.id = id;
        this.curatorNotify = curatorNotify;
        this.events = EventThreads.newEventsExecutor("coord-events-" + id);
        this.callbacks = EventThreads.newCallbackExecutor("coord-callbacks-" + id);
        this.timer = ClientTimer.open("coord-timer-" + id);
        this.sessions = new SessionTracker(settings.metrics(), callbacks);
        Zk zk = new Zk(this, curator, sessions, events, callbacks, timer);
        this.zk = zk;
        curator.getConnectionStateListenable().addListener(sessions);
        // Sampled on the JVM's shared scheduling thread (a sample only reads a clock), stopped with the
        // client's timer. What a stall sets off touches every lease: it runs on the client's own timer
        // thread, so a client with many leases never delays another client's samples or timers.
        this.stallMonitor = settings.stallFraction() == 0 ? null
                : StallMonitor.start(timer, STALL_TICK, settings.ticker()::getAsLong,
                        () -> (long) (negotiatedSessionTimeout().toNanos() * settings.stallFraction()),
                        stalled -> onTimer(zk::suspectAllLeases), settings.metrics());
    }

    /** Runs {@code task} on this client's timer thread; a closing client drops it (its leases end with it). */
    private void onTimer(Runnable task) {
        try {
            timer.execute(task);
        } catch (RejectedExecutionException closing) {
            LOG.debug("client closing: dropped timer work {}", task);
        }
    }

    /** A client that owns its Curator client, built from {@code settings} and not started. */
    private static CoordClient owning(CoordSettings settings) {
        AuthProbe probe = new AuthProbe();
        int id = CLIENT_IDS.incrementAndGet();
        ExecutorService curatorNotify = EventThreads.newWorkerExecutor("coord-safe-notify-" + id);
        CuratorFramework curator = CuratorFactory.build(settings, probe, curatorNotify);
        return new CoordClient(curator, settings, probe, id, curatorNotify);
    }

    /**
     * Connects with {@code settings} and waits for the first session (the connection timeout
     * counts from this call), then confirms the server accepted this client's authentication.
     * Fails with:
     * <ul>
     *   <li>{@link AuthenticationException} (terminal, not retried) if the server rejected the
     *       credentials' scheme ({@code AUTHFAILED}) or requires SASL this client did not do
     *       ({@code -124}); this comes as soon as the server says so, not at the timeout;</li>
     *   <li>{@link TlsException} naming the host and the handshake cause if the client and the
     *       port disagree about TLS (plaintext client to a TLS port, TLS client to a plaintext
     *       port, untrusted, expired or not yet valid certificate, certificate for another host
     *       name, client certificate refused); found by a diagnostic probe while the first
     *       session is late, so usually well before the connection timeout, and at the latest
     *       at it when the probe got an answer in time;</li>
     *   <li>{@link NotAuthorizedException} if an {@linkplain CoordSettings#authCheckPath() auth
     *       check} path cannot be read with the given credentials;</li>
     *   <li>{@link CoordTimeoutException} naming the ensemble if no session came for another reason.</li>
     * </ul>
     * On any failure the half-built client is closed. An interrupt closes it too and propagates.
     */
    public static CoordClient connect(CoordSettings settings) throws InterruptedException {
        Objects.requireNonNull(settings, "settings");
        long start = System.nanoTime(); // the timeout covers building and starting Curator too: it is the caller's bound
        CoordClient client = owning(settings);
        boolean ok = false;
        try {
            client.curator.start();
            client.awaitFirstSession(settings.connectionTimeout(), start);
            client.checkAuth();
            ok = true;
            return client;
        } finally {
            if (!ok) {
                closeAfterFailedConnect(client);
            }
        }
    }

    /**
     * Starts a client with {@code settings} without waiting for the first session: returns at
     * once, even while the ensemble is unreachable. For a service that must come up during a
     * ZooKeeper outage and can serve something meanwhile (config from a local snapshot); anything
     * else should use {@link #connect}, which fails fast on a wrong ensemble, credentials or TLS.
     *
     * <p>Until the first session, {@link #session()} throws {@link SessionExpiredException} and
     * operations wait for the connection within their documented timeouts, then fail as they
     * would on a lost connection. The session comes later by itself (the same retries as after a
     * disconnect); a listener from {@link #onNewSession} is told of it, the first one included.
     * A background thread ({@code coord-first-session-N}, gone once the session came) makes the
     * checks {@code connect} makes: an authentication or TLS failure, or a failed
     * {@linkplain CoordSettings#authCheckPath() auth check}, is logged at ERROR when it happens and
     * kept in {@link #startFailure()}; such a client stays without a usable session until closed.
     * Connecting for longer than the connection timeout is logged at WARN, once.
     */
    public static CoordClient start(CoordSettings settings) {
        Objects.requireNonNull(settings, "settings");
        CoordClient client = owning(settings);
        client.curator.start();
        Thread waiter = new Thread(client::awaitFirstSessionInBackground, "coord-first-session-" + client.id);
        waiter.setDaemon(true);
        client.firstSessionWaiter = waiter;
        waiter.start();
        return client;
    }

    /** {@link #start}'s wait: the checks of {@link #connect}, retried at each connection timeout until the session comes. */
    private void awaitFirstSessionInBackground() {
        boolean warned = false;
        while (!closed.get()) {
            try {
                awaitFirstSession(settings.connectionTimeout(), System.nanoTime());
                checkAuth();
                return;
            } catch (AuthenticationException | TlsException | NotAuthorizedException | ConfigurationException e) {
                if (!closed.get()) {
                    startFailure = e;
                    LOG.error("ZooKeeper at {} will not give this client a session: {}", settings.connectString(), e.getMessage(), e);
                }
                return;
            } catch (InterruptedException e) {
                return; // closed
            } catch (IllegalStateException e) {
                return; // closed while waiting (Zk.of refuses a closed client)
            } catch (CoordException e) {
                if (!closed.get() && !warned) {
                    warned = true;
                    LOG.warn("no ZooKeeper session yet, still trying: {}", e.getMessage());
                }
            }
        }
    }

    /**
     * Why a client from {@link #start} will not get a usable session by itself: the server
     * rejected its authentication, TLS does not match, or the auth check failed. Empty while it is
     * still connecting, once connected, and always for a client from {@link #connect} (which
     * throws these instead).
     */
    public java.util.Optional<CoordException> startFailure() {
        return java.util.Optional.ofNullable(startFailure);
    }

    /**
     * Closes a client whose connect failed. One that never got a session is closed on a
     * short-lived daemon thread: ZooKeeper's client sleeps up to a second between reconnect
     * attempts and only then notices a close, and the caller should get its error (a TLS
     * mismatch, say) without waiting for that.
     */
    private static void closeAfterFailedConnect(CoordClient client) {
        if (client.curator.getZookeeperClient().isConnected()) {
            client.close();
            return;
        }
        Thread closer = new Thread(client::close, "coord-close-failed-connect");
        closer.setDaemon(true);
        closer.start();
    }

    /**
     * Adopts a Curator client a service already has. The caller keeps owning it:
     * {@link #close()} detaches Coord but does not close {@code curator}; it deletes the nodes
     * Coord made on that client's session (leases, claims, seats, waiters), since the session
     * itself lives on. Settings are derived
     * from the Curator client (connect string, namespace, timeouts); ACLs and credentials are
     * whatever that client was built with.
     */
    public static CoordClient wrap(CuratorFramework curator) throws InterruptedException {
        Objects.requireNonNull(curator, "curator");
        if (curator.getState() != CuratorFrameworkState.STARTED) {
            throw new ConfigurationException("CoordClient.wrap needs a started CuratorFramework; its state is " + curator.getState());
        }
        var zkClient = curator.getZookeeperClient();
        CoordSettings.Builder b = CoordSettings.builder()
                .connectString(zkClient.getCurrentConnectionString())
                .sessionTimeout(Duration.ofMillis(sessionTimeoutOf(curator)))
                .connectionTimeout(Duration.ofMillis(Math.max(1, zkClient.getConnectionTimeoutMs())));
        String ns = curator.getNamespace();
        if (ns != null && !ns.isEmpty()) {
            b.namespace(ns);
        }
        CoordClient client = new CoordClient(curator, b.build(), null, CLIENT_IDS.incrementAndGet(), null);
        boolean ok = false;
        try {
            client.awaitFirstSession(client.settings.connectionTimeout(), System.nanoTime());
            ok = true;
            return client;
        } finally {
            if (!ok) {
                client.close();
            }
        }
    }

    private static long sessionTimeoutOf(CuratorFramework curator) {
        try {
            int timeout = curator.getZookeeperClient().getZooKeeper().getSessionTimeout();
            return timeout > 0 ? timeout : 60_000;
        } catch (Exception e) {
            return 60_000;
        }
    }

    private void awaitFirstSession(Duration timeout, long start) throws InterruptedException {
        long deadline = start + timeout.toNanos();
        // Only for clients built from our settings: a wrapped Curator client may use TLS we cannot see.
        TlsProbe.Diagnosis diagnosis = owned ? new TlsProbe.Diagnosis(settings, start, deadline) : null;
        while (!curator.blockUntilConnected((int) Math.max(1, Math.min(CONNECT_POLL_MS, millisUntil(deadline))), TimeUnit.MILLISECONDS)) {
            AuthCheck.throwIfRejected(AuthCheck.handle(curator), settings.connectString(), Zk.of(this).principals());
            if (diagnosis != null) {
                diagnosis.probeIfDue(); // throws TlsException once every host shows a TLS mismatch
            }
            if (millisUntil(deadline) <= 0) {
                String what = "could not connect to ZooKeeper at " + settings.connectString() + " within " + timeout;
                if (diagnosis != null) {
                    diagnosis.throwIfAnyMismatch(what);
                }
                throw new CoordTimeoutException(what + (diagnosis == null ? "" : diagnosis.summary()));
            }
        }
        AuthCheck.confirmAccepted(curator, authProbe, settings.connectString(), Zk.of(this).principals(), deadline);
        sessions.observeConnected(sessionIdNow());
        warnIfClamped();
    }

    /**
     * Reads the canary node. ZooKeeper accepts any digest password at connect (it just derives a
     * different identity), so reading a node only the right identity may read is the only early
     * test of the credentials.
     */
    private void checkAuth() throws InterruptedException {
        CoordPath canary = settings.authCheckPath();
        if (canary == null) {
            return;
        }
        try {
            Zk.of(this).call(canary, () -> curator.getData().forPath(canary.value()));
        } catch (NotAuthorizedException e) {
            throw new NotAuthorizedException("auth check failed: " + e.getMessage()
                    + "; ZooKeeper accepts any digest password at connect, so the credentials are probably wrong", e);
        } catch (NoParentException e) {
            throw new ConfigurationException("authCheckPath " + canary + " does not exist: create it with an ACL that only"
                    + " the expected identities can READ, or remove the setting", e);
        }
    }

    /** How often the wait for the first session looks at auth failures and TLS probes. */
    private static final int CONNECT_POLL_MS = 50;

    private static long millisUntil(long deadlineNanos) {
        return TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime());
    }

    private long sessionIdNow() {
        try {
            return curator.getZookeeperClient().getZooKeeper().getSessionId();
        } catch (Exception e) {
            throw new ConnectionLostException("could not read the ZooKeeper session id", e);
        }
    }

    private void warnIfClamped() {
        long negotiated = negotiatedSessionTimeout().toMillis();
        long requested = settings.sessionTimeout().toMillis();
        if (negotiated > 0 && negotiated != requested && clampWarned.compareAndSet(false, true)) {
            LOG.warn("ZooKeeper at {} clamped the session timeout: requested {} ms, negotiated {} ms"
                    + " (servers allow 2..20 x tickTime); leases and pause budgets use the negotiated value",
                    settings.connectString(), requested, negotiated);
        }
    }

    /** The Curator client underneath: the escape hatch. Do not close it; close this instead. */
    public CuratorFramework curator() {
        return curator;
    }

    public CoordSettings settings() {
        return settings;
    }

    /**
     * The current session. After an expiry this is a new object; the old one has ended.
     * Throws {@link SessionExpiredException} if the client has no session right now.
     */
    public CoordSession session() {
        ZkSession s = sessions.current();
        if (s == null) {
            throw new SessionExpiredException("no ZooKeeper session yet");
        }
        return s;
    }

    /** Registers a listener told about each new session (after an expiry), on {@code executor}. */
    public Registration onNewSession(Consumer<CoordSession> listener, Executor executor) {
        return sessions.onNewSession(listener, executor);
    }

    public Duration requestedSessionTimeout() {
        return settings.sessionTimeout();
    }

    /** The session timeout the server granted (it clamps to 2–20 × tickTime); zero before the first connection. */
    public Duration negotiatedSessionTimeout() {
        return Duration.ofMillis(curator.getZookeeperClient().getLastNegotiatedSessionTimeoutMs());
    }

    public CoordMetrics metrics() {
        return settings.metrics();
    }

    /** How long closing a wrapped client waits for the deletes of its lease nodes. */
    private static final Duration WRAPPED_CLOSE_BOUND = Duration.ofSeconds(5);

    /**
     * Closes the client: the current session ends as CLOSED, and an owned Curator client is closed.
     * Every lease, claim, seat, candidacy and waiter of this client ends LOST. A wrapped Curator
     * client keeps its ZooKeeper session, so closing deletes this client's lease and waiter nodes on
     * it first (waiting up to 5 s for the replies): nobody waits behind a node nobody holds.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        if (stallMonitor != null) {
            stallMonitor.close();
        }
        Thread waiter = firstSessionWaiter;
        if (waiter != null) {
            waiter.interrupt();
        }
        if (!owned) {
            // The session outlives us in the caller's Curator client: what we hold must not.
            Zk.of(this).endLeasesKeepingSession(WRAPPED_CLOSE_BOUND);
        }
        curator.getConnectionStateListenable().removeListener(sessions);
        sessions.close();
        zk = null;
        if (owned) {
            curator.close();
        }
        if (curatorNotify != null) {
            curatorNotify.shutdown(); // what Curator queued still runs; then the thread ends
        }
        timer.shutdownNow();
        // Events first: the leases' last moves (LOST with the CLOSED session) hand their ended()
        // dependents to the callback thread, which must still take them.
        shutDown(events);
        shutDown(callbacks);
    }

    private static void shutDown(ExecutorService executor) {
        executor.shutdown();
        try {
            if (!executor.awaitTermination(5, TimeUnit.SECONDS)) {
                executor.shutdownNow();
            }
        } catch (InterruptedException e) {
            executor.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }

    public boolean isClosed() {
        return closed.get();
    }

    @Override
    public String toString() {
        return "CoordClient[" + settings.connectString() + (settings.namespace() == null ? "" : " ns=" + settings.namespace())
                + (closed.get() ? " closed" : "") + "]";
    }
}
