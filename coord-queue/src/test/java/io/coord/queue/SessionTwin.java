package io.coord.queue;

import io.coord.test.Awaits;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;

/**
 * A second handle on a child JVM's ZooKeeper session (from the child's {@code SESSION} line), for
 * faults that must know exactly which claims they interrupt. Connecting it replaces the child's
 * connection; ZooKeeper orders one session's requests, so its read comes after everything the
 * child got to the server. With the child stopped (SIGSTOP) nothing is sent after it either: what
 * the read returns is what the fault takes away. A harness that books the last task a child
 * <em>printed</em> is behind: a completion also claims the worker's next task in its own
 * transaction, and the child's {@code START} line for it comes later (or, for a killed child,
 * never).
 */
final class SessionTwin {
    /** A child's session, as its {@code SESSION id password timeout} line gives it. */
    record Credentials(long id, byte[] password, int timeoutMs) {
    }

    /** One claim a session held: the task and the claim's token (its node's czxid). */
    record Claim(String task, long token) {
    }

    /** What the fault does to the session after the read. */
    enum Then {
        /** Close it on the server now (F2: its ephemeral claim nodes go at once). */
        END_SESSION,
        /** Drop the connection without closing: the server expires it after its timeout, as after a kill -9. */
        LEAVE_TO_TIME_OUT
    }

    private SessionTwin() {
    }

    /**
     * The claims {@code session} holds under {@code claimsPath} (absolute, with the namespace, no trailing {@code /}), read
     * on the session itself; then {@code then}. Empty if the session had already ended (an expiry
     * nobody injected, e.g. under load): then nothing can be read, and the caller must not treat
     * this as its fault.
     */
    static Optional<List<Claim>> claimsHeld(String connect, Credentials session, String claimsPath, Then then) throws Exception {
        CountDownLatch decided = new CountDownLatch(1);
        AtomicBoolean expired = new AtomicBoolean();
        ZooKeeper twin = new ZooKeeper(connect, session.timeoutMs(), e -> {
            if (e.getState() == Watcher.Event.KeeperState.Expired) {
                expired.set(true);
                decided.countDown();
            } else if (e.getState() == Watcher.Event.KeeperState.SyncConnected) {
                decided.countDown();
            }
        }, session.id(), session.password());
        try {
            if (!decided.await(Awaits.scaled(Duration.ofSeconds(10)).toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError("twin handle for session 0x" + Long.toHexString(session.id()) + " did not connect");
            }
            if (expired.get()) {
                return Optional.empty();
            }
            String prefix = claimsPath + "/";
            List<Claim> held = new ArrayList<>();
            try {
                // getEphemerals matches a path prefix; only the claims directory's children count
                for (String path : twin.getEphemerals(claimsPath)) {
                    if (!path.startsWith(prefix)) {
                        continue;
                    }
                    Stat stat = twin.exists(path, false);
                    String name = path.substring(prefix.length());
                    if (stat != null && QueueLayout.taskOfClaim(name) != null) {
                        held.add(new Claim(QueueLayout.taskOfClaim(name), stat.getCzxid()));
                    }
                }
            } catch (KeeperException.SessionExpiredException e) {
                return Optional.empty();
            }
            if (then == Then.LEAVE_TO_TIME_OUT) {
                // Local only: the handle stops without sending closeSession, so the server keeps the
                // session until its timeout, exactly as for a process that died.
                twin.getTestable().injectSessionExpiration();
            }
            return Optional.of(List.copyOf(held));
        } finally {
            // END_SESSION: sends closeSession, the server ends the session and deletes its claim nodes.
            // LEAVE_TO_TIME_OUT: the handle is already closed locally; this only frees its threads.
            twin.close();
        }
    }
}
