package io.coord.internal;

import io.coord.CoordMetrics;
import io.coord.CoordSession;
import io.coord.Registration;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.zookeeper.ZooKeeper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place where Curator's connection events enter Coord. Turns
 * {@link ConnectionState} into {@link ZkSession} moves:
 * <ul>
 *   <li>SUSPENDED (and READ_ONLY, which Coord never asks for) → the session is SUSPENDED;
 *   <li>CONNECTED / RECONNECTED → same id: CONNECTED again; a new id: the old session EXPIRED and
 *       a new {@link ZkSession} begins;
 *   <li>LOST → EXPIRED (Curator reports LOST only once the session is gone or given up for gone).
 * </ul>
 * Runs on Curator's event thread, so it only moves state; listeners run on their executors, and
 * are told only after the tracker let go of its lock.
 *
 * <p>Counts {@code coord.session.suspended}, {@code coord.session.expired} and
 * {@code coord.session.started} (a new session id after the first): the figures to alert on,
 * because every ephemeral lease of the client ends with an expiry.
 */
public final class SessionTracker implements ConnectionStateListener {
    private static final Logger LOG = LoggerFactory.getLogger(SessionTracker.class);

    private final AtomicReference<ZkSession> current = new AtomicReference<>();
    private final Listeners<Consumer<CoordSession>> newSessionListeners = new Listeners<>();
    private final Object lock = new Object();
    private final CoordMetrics metrics;
    private final Executor callbacks;

    /** {@code callbacks}: where a session's {@code ended()} completes when it ends on an event thread. */
    public SessionTracker(CoordMetrics metrics, Executor callbacks) {
        this.metrics = metrics;
        this.callbacks = callbacks;
    }

    @Override
    public void stateChanged(CuratorFramework client, ConnectionState newState) {
        switch (newState) {
            case CONNECTED, RECONNECTED -> observeConnected(currentSessionId(client));
            case SUSPENDED, READ_ONLY -> {
                ZkSession s = current.get();
                if (s != null && s.apply(SessionEvent.SUSPEND)) {
                    metrics.increment("coord.session.suspended");
                }
            }
            case LOST -> {
                ZkSession s = current.get();
                if (s != null && connectedOn(client, s.id())) {
                    // CURATOR-525: Curator can deliver a LOST after the connection was repaired (it then
                    // forces RECONNECTED). A handle connected on this very session right now proves the
                    // session alive; expiring it would end its leases while their nodes live on, and its
                    // id would never come back (a terminal session does not revive).
                    LOG.warn("Curator reported LOST while this client is connected on session {}: a stale event, ignored",
                            s.idHex());
                    return;
                }
                if (s != null && s.apply(SessionEvent.EXPIRE)) {
                    metrics.increment("coord.session.expired");
                    LOG.warn("ZooKeeper session {} is lost; everything bound to it is gone", s.idHex());
                }
            }
        }
    }

    /** Called with the session id of a live connection (from an event, or right after connecting). */
    public void observeConnected(long sessionId) {
        if (sessionId == 0) {
            return;
        }
        ZkSession previous;
        ZkSession started = null;
        synchronized (lock) {
            previous = current.get();
            if (previous != null && previous.id() == sessionId) {
                // CONNECTED again; a terminal session ignores it: it never comes back, even if an id repeats
                previous.queue(SessionEvent.RECONNECT);
            } else {
                started = replace(previous, sessionId);
            }
        }
        // Told outside the lock: the old session's moves first, then the new session.
        if (previous != null) {
            previous.announce();
        }
        if (started != null) {
            ZkSession fresh = started;
            newSessionListeners.forEach(l -> l.accept(fresh));
        }
    }

    /** Under {@link #lock}: ends {@code s} (if any; its listeners are told later) and makes the session of {@code sessionId} current. */
    private ZkSession replace(ZkSession s, long sessionId) {
        if (s != null && s.queue(SessionEvent.EXPIRE)) {
            metrics.increment("coord.session.expired");
            LOG.warn("ZooKeeper session {} was replaced by 0x{}; everything bound to the old one is gone",
                    s.idHex(), Long.toHexString(sessionId));
        }
        if (s != null) {
            metrics.increment("coord.session.started");
        }
        ZkSession started = new ZkSession(sessionId, callbacks);
        current.set(started);
        return started;
    }

    public ZkSession current() {
        return current.get();
    }

    public Registration onNewSession(Consumer<CoordSession> listener, Executor executor) {
        return newSessionListeners.add(listener, executor);
    }

    /** The client is closing: the current session ends as CLOSED. */
    public void close() {
        ZkSession s = current.get();
        if (s != null) {
            s.apply(SessionEvent.CLOSE);
        }
        newSessionListeners.clear();
    }

    /** Whether {@code client}'s handle is connected right now, on the session {@code sessionId}. */
    static boolean connectedOn(CuratorFramework client, long sessionId) {
        try {
            ZooKeeper zk = client.getZookeeperClient().getZooKeeper();
            return zk.getState() == ZooKeeper.States.CONNECTED && zk.getSessionId() == sessionId;
        } catch (Exception e) {
            LOG.debug("could not read the connection state", e);
            return false;
        }
    }

    private static long currentSessionId(CuratorFramework client) {
        try {
            return client.getZookeeperClient().getZooKeeper().getSessionId();
        } catch (Exception e) {
            LOG.debug("could not read the session id", e);
            return 0;
        }
    }
}
