package io.coord.chaos;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Base64;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;

/**
 * Fault F2 for a client in another process: a child prints {@code SESSION <hex id> <base64
 * password> <timeout ms>} for every session it gets, and the controller expires that session on
 * the server by joining it with a second handle and closing that handle. The server deletes the
 * session's ephemerals at once; the child learns on its next contact and starts a new session.
 */
final class SessionKiller {
    private SessionKiller() {
    }

    /** A session as a child announced it. */
    record Session(long id, byte[] password, int timeoutMs) {
        /** Parses the fields after {@code SESSION}: hex id, base64 password, timeout. */
        static Session parse(String hexId, String base64Password, String timeoutMs) {
            return new Session(Long.parseUnsignedLong(hexId, 16), Base64.getDecoder().decode(base64Password),
                    Integer.parseInt(timeoutMs));
        }

        /** The line a child prints for {@code zk}'s session. */
        static String line(ZooKeeper zk) {
            return "SESSION " + Long.toHexString(zk.getSessionId()) + " " + Base64.getEncoder().encodeToString(zk.getSessionPasswd())
                    + " " + zk.getSessionTimeout();
        }
    }

    /**
     * Expires {@code session} through {@code connectString} (the servers themselves, not a proxy).
     * Returns false if the server said it had already expired (nothing to do).
     */
    static boolean expire(String connectString, Session session) throws InterruptedException {
        CountDownLatch answered = new CountDownLatch(1);
        AtomicBoolean joined = new AtomicBoolean();
        ZooKeeper killer;
        try {
            killer = new ZooKeeper(connectString, Math.max(1000, session.timeoutMs()), e -> {
                if (e.getState() == Watcher.Event.KeeperState.SyncConnected) {
                    joined.set(true);
                    answered.countDown();
                } else if (e.getState() == Watcher.Event.KeeperState.Expired) {
                    answered.countDown();
                }
            }, session.id(), session.password());
        } catch (IOException e) {
            throw new UncheckedIOException("could not open a second handle to " + connectString, e);
        }
        try {
            if (!answered.await(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("could not join session 0x" + Long.toHexString(session.id()) + " at "
                        + connectString + " within 10 s");
            }
            return joined.get();
        } finally {
            killer.close(); // closing the joined handle is what ends the session on the server
        }
    }
}
