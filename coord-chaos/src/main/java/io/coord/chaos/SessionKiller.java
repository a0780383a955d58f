package io.coord.chaos;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;

/**
 * Fault F2 for a client in another process: a second handle joins the worker's session (id and
 * password, as the worker reported them) directly at the ensemble, not through the worker's proxy,
 * and closes it. Closing a joined handle ends the session on the server: its ephemerals go at once
 * and the worker learns it has expired on its next contact.
 */
final class SessionKiller {
    private SessionKiller() {
    }

    /**
     * Expires {@code session}; returns false (nothing done) if the server no longer knows it (the
     * worker already moved to a new session) or it could not be joined within {@code bound}.
     */
    static boolean expire(String ensembleConnect, WorkerLink.SessionInfo session, Duration timeout, Duration bound)
            throws InterruptedException {
        CountDownLatch decided = new CountDownLatch(1);
        AtomicReference<Watcher.Event.KeeperState> state = new AtomicReference<>();
        Watcher watcher = e -> {
            if (e.getType() == Watcher.Event.EventType.None
                    && (e.getState() == Watcher.Event.KeeperState.SyncConnected || e.getState() == Watcher.Event.KeeperState.Expired)) {
                state.compareAndSet(null, e.getState());
                decided.countDown();
            }
        };
        ZooKeeper killer;
        try {
            killer = new ZooKeeper(ensembleConnect, (int) timeout.toMillis(), watcher, session.id(), session.password());
        } catch (IOException e) {
            return false;
        }
        try {
            decided.await(bound.toMillis(), TimeUnit.MILLISECONDS);
            return state.get() == Watcher.Event.KeeperState.SyncConnected;
        } finally {
            killer.close(); // closing the joined handle is what ends the session on the server
        }
    }
}
