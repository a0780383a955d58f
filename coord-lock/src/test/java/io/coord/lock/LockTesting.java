package io.coord.lock;

import io.coord.CoordClient;
import io.coord.CoordPath;
import io.coord.test.Awaits;
import io.coord.test.EmbeddedEnsemble;
import io.coord.test.Faults;
import io.coord.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Small helpers this module's tests share on top of coord-test. */
final class LockTesting {
    /** The session timeout {@link ZooKeeperExtension#newClient()} asks for. */
    static final Duration SESSION = ZooKeeperExtension.DEFAULT_SESSION_TIMEOUT;

    private LockTesting() {
    }

    /** {@link Locks#inspect} for polling conditions. */
    static LockInfo inspect(CoordClient client, CoordPath path) {
        try {
            return Locks.inspect(client, path);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** Asserts that {@code f} is still running after a short look (300 ms): it waits, as it must. */
    static void assertPending(java.util.concurrent.Future<?> f, String what) throws Exception {
        try {
            f.get(300, java.util.concurrent.TimeUnit.MILLISECONDS);
            throw new AssertionError(what + " completed but must still wait");
        } catch (java.util.concurrent.TimeoutException expected) {
            // still waiting
        }
    }

    /** A bounded wait (scaled by coord-test's timing factor) that fails naming {@code what}. */
    static void await(String what, Duration budget, BooleanSupplier condition) {
        Awaits.until(what, budget, condition);
    }

    /** F2: the server ends {@code client}'s session for real, deleting its ephemerals at once. */
    static long expire(CoordClient client, ZooKeeperExtension zk) {
        return Faults.expireSession(client, zk.ensemble());
    }

    /**
     * The Curator views' waiter case: waits until {@code observer} sees one waiter on {@code path},
     * expires {@code waiter}'s session, and waits until that one waiter is on another session (the
     * view queued again). Returns the expired session's id.
     */
    static long expireTheWaiterAndAwaitItQueuedAgain(CoordClient observer, CoordPath path, CoordClient waiter, ZooKeeperExtension zk) {
        await("the view's waiter queued", Duration.ofSeconds(10), () -> inspect(observer, path).waiters().size() == 1);
        long expired = expire(waiter, zk);
        await("the waiter queued again on its new session", Duration.ofSeconds(20), () -> {
            java.util.List<LockInfo.Entry> waiters = inspect(observer, path).waiters();
            return waiters.size() == 1 && waiters.get(0).sessionId() != expired;
        });
        return expired;
    }

    /**
     * Waits until the server shows {@code lease}'s own-node watch (sent in the background once the
     * lease has lived a short grace), so that a fault injected next finds the lease fully armed.
     */
    static void awaitLeaseWatch(ZooKeeperExtension zk, LockLease lease) {
        awaitWatch(zk, "the lease watches its node", lease.node(), lease.session().id());
    }

    /** Waits until the server holds a watch of session {@code sessionId} on {@code watched}. */
    static void awaitWatch(ZooKeeperExtension zk, String what, CoordPath watched, long sessionId) {
        String node = "/" + zk.namespace() + watched.value();
        String session = "0x" + Long.toHexString(sessionId);
        await(what, Duration.ofSeconds(10), () -> {
            String wchp = fourLetter(zk, "wchp");
            int at = wchp.indexOf(node + "\n");
            return at >= 0 && wchp.substring(at).split("\n/", 2)[0].contains(session);
        });
    }

    /** The first server's answer to a four-letter word. */
    static String fourLetter(ZooKeeperExtension zk, String word) {
        return EmbeddedEnsemble.fourLetterWord(zk.ensemble().clientPort(0), word)
                .orElseThrow(() -> new AssertionError("the server did not answer " + word));
    }
}
