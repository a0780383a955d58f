package io.coord.test;

import io.coord.CoordClient;
import io.coord.CoordSession;
import io.coord.SessionState;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;

/**
 * The in-JVM faults of the catalogue in RELIABILITY.md. The network faults are on
 * {@link ClientProxy}, the process faults on {@link ChildJvm}, server kills on
 * {@link EmbeddedEnsemble}; this class holds the rest and the waits that go with them.
 *
 * <ul>
 *   <li>F2 {@link #expireSession}: real server-side expiry (ephemerals deleted at once).
 *   <li>F3 {@link #injectClientExpiry}: the client alone believes its session expired.
 *   <li>F4 {@link #dropConnection}: the client's socket closes; the session survives.
 *   <li>F6 {@link #killLeader}; F8 {@link #loseQuorum} and {@link #restore}, in-JVM or on a
 *       {@link ForkedEnsemble} (F7 and F9 are {@link ForkedEnsemble#pause} and {@link ForkedEnsemble#isolate}).
 *   <li>F11 {@link #spuriousSyncConnected}, {@link #spuriousFlap}: connection events while nothing changed.
 * </ul>
 */
public final class Faults {
    private Faults() {
    }

    /** The ZooKeeper handle a client uses right now. */
    static ZooKeeper zookeeper(CoordClient client) {
        try {
            return client.curator().getZookeeperClient().getZooKeeper();
        } catch (Exception e) {
            throw new IllegalStateException("client " + client + " has no ZooKeeper handle", e);
        }
    }

    /**
     * F2: expires {@code client}'s session on the server, the way an ensemble does when it stops
     * hearing from a client: a second handle joins the same session (id and password) through
     * {@code serverConnectString} and closes it. The server deletes the session's ephemerals at
     * once; the client learns on its next contact and starts a new session.
     *
     * @return the id of the session that was expired
     */
    public static long expireSession(CoordClient client, String serverConnectString) {
        ZooKeeper zk = zookeeper(client);
        long id = zk.getSessionId();
        byte[] password = zk.getSessionPasswd();
        if (id == 0) {
            throw new IllegalStateException("client " + client + " has no session to expire");
        }
        CountDownLatch connected = new CountDownLatch(1);
        AtomicReference<Watcher.Event.KeeperState> last = new AtomicReference<>();
        Watcher watcher = (WatchedEvent e) -> {
            last.set(e.getState());
            if (e.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        };
        ZooKeeper killer = null;
        try {
            killer = new ZooKeeper(serverConnectString, (int) Math.max(1000, client.negotiatedSessionTimeout().toMillis()), watcher, id, password);
            Duration bound = Awaits.scaled(Duration.ofSeconds(10));
            if (!connected.await(bound.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("could not join session 0x" + Long.toHexString(id) + " at " + serverConnectString
                        + " within " + bound.toMillis() + " ms (last event " + last.get() + ")");
            }
            return id;
        } catch (IOException e) {
            throw new UncheckedIOException("could not open a second handle to " + serverConnectString, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while expiring session 0x" + Long.toHexString(id), e);
        } finally {
            if (killer != null) {
                try {
                    killer.close(); // closing the joined handle is what ends the session on the server
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    /** {@link #expireSession(CoordClient, String)} through the ensemble's own connect string. */
    public static long expireSession(CoordClient client, EmbeddedEnsemble ensemble) {
        return expireSession(client, ensemble.connectString());
    }

    /**
     * F3: the client behaves as if its session expired (Curator reports LOST, then a new session
     * starts), but the server knows nothing: the old session and its ephemerals live on until the
     * server's own timeout.
     *
     * @return the id of the session the client gave up
     */
    public static long injectClientExpiry(CoordClient client) {
        ZooKeeper zk = zookeeper(client);
        long id = zk.getSessionId();
        // injectSessionExpiration queues the Expired event *before* it marks the handle closed.
        // Curator reacts on the event thread by closing the old handle; if that close runs first it
        // sends closeSession and the server deletes the session after all (seen here). close() is
        // synchronized on the handle, so holding its monitor makes Curator's close wait until the
        // handle is marked closed, when close() no longer talks to the server.
        synchronized (zk) {
            zk.getTestable().injectSessionExpiration();
        }
        return id;
    }

    /**
     * F4: closes the client's socket. The client reconnects and, within the session timeout,
     * keeps the same session.
     */
    public static void dropConnection(CoordClient client) {
        try {
            zookeeper(client).getTestable().closeSocket();
        } catch (IOException e) {
            throw new UncheckedIOException("could not close the socket of " + client, e);
        }
    }

    /**
     * F11: queues a {@code SyncConnected} event (type None) although nothing happened, as a
     * duplicated or late event would. Note that ZooKeeper's own event thread drops a None event
     * whose state equals the last one it delivered, so on a connected client this one never
     * reaches a watcher; {@link #spuriousFlap} is the variant that does.
     */
    public static void spuriousSyncConnected(CoordClient client) {
        queue(client, Watcher.Event.KeeperState.SyncConnected);
    }

    /**
     * F11: queues {@code Disconnected} then {@code SyncConnected} while the real connection stays
     * up: Curator reports SUSPENDED then RECONNECTED, the session id does not change.
     */
    public static void spuriousFlap(CoordClient client) {
        queue(client, Watcher.Event.KeeperState.Disconnected);
        queue(client, Watcher.Event.KeeperState.SyncConnected);
    }

    private static void queue(CoordClient client, Watcher.Event.KeeperState state) {
        zookeeper(client).getTestable().queueEvent(new WatchedEvent(Watcher.Event.EventType.None, state, null));
    }

    /**
     * Waits (bounded, scaled) until {@code client} runs on a session other than {@code oldId}
     * and returns it.
     */
    public static CoordSession awaitNewSession(CoordClient client, long oldId, Duration timeout) {
        return Awaits.value("a new session on " + client + " replacing 0x" + Long.toHexString(oldId), timeout, () -> {
            try {
                CoordSession s = client.session();
                return s.id() != oldId && s.state() == SessionState.CONNECTED ? Optional.of(s) : Optional.empty();
            } catch (RuntimeException e) {
                return Optional.empty();
            }
        });
    }

    /** Waits (bounded, scaled) until {@code session} is in {@code state}; returns how long it took. */
    public static Duration awaitState(CoordSession session, SessionState state, Duration timeout) {
        return Awaits.until(session + " to be " + state, timeout, () -> session.state() == state);
    }

    /**
     * F6: kills the current leader of a quorum and returns its index. Restart it with
     * {@link #restore}.
     */
    public static int killLeader(EmbeddedEnsemble ensemble) {
        if (ensemble.size() < 3) {
            throw new IllegalArgumentException("killing the leader needs a quorum, not " + ensemble.size() + " server(s)");
        }
        int leader = ensemble.awaitLeader(Awaits.scaled(Duration.ofSeconds(10)).toMillis());
        ensemble.kill(leader);
        return leader;
    }

    /**
     * F8: stops a majority of the members (the leader among them), so no quorum is left; returns
     * the indexes stopped.
     */
    public static List<Integer> loseQuorum(EmbeddedEnsemble ensemble) {
        if (ensemble.size() < 3) {
            throw new IllegalArgumentException("quorum loss needs a quorum, not " + ensemble.size() + " server(s)");
        }
        List<Integer> stopped = new ArrayList<>();
        stopped.add(killLeader(ensemble));
        for (int i = 0; i < ensemble.size() && stopped.size() < ensemble.size() / 2 + 1; i++) {
            if (ensemble.isRunning(i)) {
                ensemble.kill(i);
                stopped.add(i);
            }
        }
        return stopped;
    }

    /** Restarts the given members and waits (bounded) until a leader serves again. */
    public static void restore(EmbeddedEnsemble ensemble, List<Integer> members) {
        for (int i : members) {
            if (!ensemble.isRunning(i)) {
                ensemble.restart(i);
            }
        }
        ensemble.awaitLeader(Awaits.scaled(Duration.ofSeconds(30)).toMillis());
    }

    /**
     * F8 on a quorum of child JVMs: SIGSTOP of the leader and of as many other members as it takes
     * to leave no quorum (2 of 3); returns the indexes stopped, for {@link #restore(ForkedEnsemble, List)}.
     * Stopped rather than killed: the quorum is gone all the same, and coming back needs no JVM
     * start (tens of seconds on a loaded machine), so the outage lasts as long as the test says.
     */
    public static List<Integer> loseQuorum(ForkedEnsemble ensemble) {
        int leader = ensemble.awaitLeader(Awaits.scaled(Duration.ofSeconds(30)).toMillis());
        List<Integer> stopped = new ArrayList<>();
        ensemble.pause(leader);
        stopped.add(leader);
        for (int i = 0; i < ensemble.size() && stopped.size() < ensemble.size() / 2 + 1; i++) {
            if (ensemble.process(i) != null && !ensemble.isPaused(i)) {
                ensemble.pause(i);
                stopped.add(i);
            }
        }
        return stopped;
    }

    /**
     * Resumes (or, if killed, restarts) the given members of a forked quorum and waits (bounded)
     * until every member serves again.
     */
    public static void restore(ForkedEnsemble ensemble, List<Integer> members) {
        for (int i : members) {
            if (ensemble.process(i) == null) {
                ensemble.restart(i);
            } else if (ensemble.isPaused(i)) {
                ensemble.resume(i);
            }
        }
        ensemble.awaitLeader(Awaits.scaled(Duration.ofSeconds(60)).toMillis());
        for (int i = 0; i < ensemble.size(); i++) {
            awaitServing(ensemble, i, Duration.ofSeconds(60));
        }
    }

    /**
     * Waits (scaled) until member {@code index} serves; a member that does not fails the wait with
     * the tail of its own log, so the reason (a port it could not bind, an election it never left)
     * is in the failure itself.
     */
    public static void awaitServing(ForkedEnsemble ensemble, int index, Duration timeout) {
        try {
            Awaits.until("member " + index + " of " + ensemble + " to serve", timeout, () -> ensemble.mode(index).isPresent());
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "; the end of its log:\n" + ensemble.log(index), e);
        }
    }
}
