package io.coord.test;

import io.coord.ConfigurationException;
import io.coord.CoordClient;
import io.coord.CoordSettings;
import io.coord.CoordTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real ZooKeeper for JUnit 5 tests, on loopback:
 *
 * <pre>{@code
 * @RegisterExtension
 * static final ZooKeeperExtension zk = ZooKeeperExtension.single();   // or quorum()
 *
 * @Test
 * void something() {
 *     CoordClient client = zk.newClient();     // closed after the test
 * }
 * }</pre>
 *
 * <ul>
 *   <li>On a {@code static} field the server starts once per test class; on an instance field,
 *       once per test.
 *   <li>The servers run with a tickTime of 500 ms, so sessions of 1–10 s are allowed; clients
 *       ask for {@link #DEFAULT_SESSION_TIMEOUT} unless told otherwise.
 *   <li>Each test gets its own Curator namespace ({@link #namespace()}), so tests of one class
 *       do not see each other's nodes.
 *   <li>After each test every client made by {@link #newClient} is closed, members a test
 *       killed are restarted, and the {@link LeakCheckExtension} checks run: a thread the test
 *       left running or an ephemeral still owned by one of its ended sessions fails the test.
 * </ul>
 */
public final class ZooKeeperExtension implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {
    /** Requested session timeout of {@link #newClient()}. */
    public static final Duration DEFAULT_SESSION_TIMEOUT = Duration.ofSeconds(4);
    /** How long {@link #newClient()} waits for the first connection, per attempt (see {@link #CONNECT_ATTEMPTS}). */
    public static final Duration DEFAULT_CONNECTION_TIMEOUT = Duration.ofSeconds(10);
    /**
     * How many times {@link #newClient()} tries to connect when the test left the connection timeout
     * at its default: a first connection is set-up, not what a test checks, and on a loaded machine
     * (CI's second pass, other builds) one can take longer than 10 s. A test that sets its own
     * connection timeout gets one attempt, so a test of a failing connect keeps its timing.
     */
    public static final int CONNECT_ATTEMPTS = 3;

    private static final Logger LOG = LoggerFactory.getLogger(ZooKeeperExtension.class);
    private static final AtomicInteger NAMESPACES = new AtomicInteger();

    private final EmbeddedEnsemble.Options options;
    private final boolean leakCheck;
    private final List<CoordClient> clients = new ArrayList<>();
    private final LeakCheckExtension leaks;
    private volatile EmbeddedEnsemble ensemble;
    private volatile boolean perTest;
    private volatile String namespace;

    private ZooKeeperExtension(EmbeddedEnsemble.Options options, boolean leakCheck) {
        this.options = options;
        this.leakCheck = leakCheck;
        this.leaks = LeakCheckExtension.forEnsemble(() -> ensemble);
    }

    /** One standalone server. */
    public static ZooKeeperExtension single() {
        return new ZooKeeperExtension(EmbeddedEnsemble.Options.single(), true);
    }

    /** A quorum of three servers. */
    public static ZooKeeperExtension quorum() {
        return new ZooKeeperExtension(EmbeddedEnsemble.Options.quorum(), true);
    }

    /** The same extension without the leak checks (for tests that leak on purpose). */
    public ZooKeeperExtension withoutLeakCheck() {
        return new ZooKeeperExtension(options, false);
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        ensemble = EmbeddedEnsemble.start(options);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        EmbeddedEnsemble e = ensemble;
        ensemble = null;
        if (e != null) {
            e.close();
        }
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        if (ensemble == null) {
            perTest = true; // registered on an instance field: beforeAll was not called
            ensemble = EmbeddedEnsemble.start(options);
        }
        String method = context.getTestMethod().map(m -> m.getName()).orElse("test");
        namespace = "coordtest-" + NAMESPACES.incrementAndGet() + "-" + method.replaceAll("[^A-Za-z0-9_-]", "_");
        if (namespace.length() > 100) {
            namespace = namespace.substring(0, 100);
        }
        if (leakCheck) {
            leaks.begin();
        }
    }

    @Override
    public void afterEach(ExtensionContext context) {
        Throwable failure = null;
        try {
            restoreMembers();
        } catch (RuntimeException | Error e) {
            failure = e;
        }
        List<CoordClient> toClose;
        synchronized (clients) {
            toClose = new ArrayList<>(clients);
            clients.clear();
        }
        for (int i = toClose.size() - 1; i >= 0; i--) {
            try {
                toClose.get(i).close();
            } catch (RuntimeException e) {
                failure = failure == null ? e : failure;
            }
        }
        try {
            if (leakCheck && failure == null) {
                List<String> found = leaks.findLeaks();
                if (!found.isEmpty()) {
                    throw new AssertionError("the test leaked:\n  " + String.join("\n  ", found));
                }
            }
        } finally {
            namespace = null;
            if (perTest) {
                afterAll(context);
            }
        }
        if (failure instanceof RuntimeException re) {
            throw re;
        }
        if (failure instanceof Error err) {
            throw err;
        }
    }

    /** A member a test killed would break the next test: bring every member back. */
    private void restoreMembers() {
        EmbeddedEnsemble e = ensemble;
        if (e == null) {
            return;
        }
        List<Integer> down = new ArrayList<>();
        for (int i = 0; i < e.size(); i++) {
            if (!e.isRunning(i)) {
                down.add(i);
            }
        }
        if (!down.isEmpty()) {
            Faults.restore(e, down);
        }
    }

    /** The running ensemble. */
    public EmbeddedEnsemble ensemble() {
        EmbeddedEnsemble e = ensemble;
        if (e == null) {
            throw new IllegalStateException("ZooKeeperExtension is not running: register it with @RegisterExtension");
        }
        return e;
    }

    /** The ensemble's connect string (every member, no namespace). */
    public String connectString() {
        return ensemble().connectString();
    }

    /** This test's Curator namespace (no leading {@code /}); null outside a test. */
    public String namespace() {
        return namespace;
    }

    /** A client on this test's namespace with the default timeouts; closed after the test. */
    public CoordClient newClient() {
        return newClient(UnaryOperator.identity());
    }

    /**
     * A client whose settings {@code customize} may change; closed after the test. What it does
     * not set gets this test's defaults: the ensemble's connect string (set another one to go
     * through a {@link ClientProxy}), this test's namespace, a session timeout of
     * {@link #DEFAULT_SESSION_TIMEOUT} and a connection timeout of {@link #DEFAULT_CONNECTION_TIMEOUT}
     * (with that default, up to {@link #CONNECT_ATTEMPTS} attempts to connect).
     */
    public CoordClient newClient(UnaryOperator<CoordSettings.Builder> customize) {
        Objects.requireNonNull(customize, "customize");
        String ns = namespace;
        if (ns == null) {
            throw new IllegalStateException("newClient() is for use inside a test (no test is running)");
        }
        CoordSettings.Builder b = customize.apply(CoordSettings.builder());
        // The builder refuses a setting given twice: that is how we know the test chose its own.
        defaultIfUnset(() -> b.connectString(connectString()));
        defaultIfUnset(() -> b.namespace(ns));
        defaultIfUnset(() -> b.sessionTimeout(DEFAULT_SESSION_TIMEOUT));
        boolean defaultTimeout = defaultIfUnset(() -> b.connectionTimeout(DEFAULT_CONNECTION_TIMEOUT));
        CoordSettings settings = b.build();
        CoordClient client;
        try {
            client = connect(settings, defaultTimeout ? CONNECT_ATTEMPTS : 1);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while connecting to " + connectString(), e);
        }
        synchronized (clients) {
            clients.add(client);
        }
        if (leakCheck) {
            leaks.track(client);
        }
        return client;
    }

    private static CoordClient connect(CoordSettings settings, int attempts) throws InterruptedException {
        for (int attempt = 1; ; attempt++) {
            try {
                return CoordClient.connect(settings);
            } catch (CoordTimeoutException slow) {
                if (attempt >= attempts) {
                    throw slow;
                }
                LOG.warn("first connection to {} took over {} (attempt {} of {}); trying again: {}", settings.connectString(),
                        settings.connectionTimeout(), attempt, attempts, slow.getMessage());
            }
        }
    }

    /** Runs {@code set}; returns false if the test had already set that setting (its value is kept). */
    private static boolean defaultIfUnset(Runnable set) {
        try {
            set.run();
            return true;
        } catch (ConfigurationException alreadySet) {
            return false; // the test set it: keep its value
        }
    }

    @Override
    public String toString() {
        EmbeddedEnsemble e = ensemble;
        return "ZooKeeperExtension[" + (e == null ? "not running" : e.connectString()) + "]";
    }
}
