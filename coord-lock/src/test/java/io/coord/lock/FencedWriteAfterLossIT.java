package io.coord.lock;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.CoordPath;
import io.coord.FencingToken;
import io.coord.LeaseState;
import io.coord.LockLostException;
import io.coord.test.Awaits;
import io.coord.test.Faults;
import io.coord.test.ZooKeeperExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.function.Executable;

/**
 * Bad-input row 28 of RELIABILITY.md (c): a fenced write after the lock was lost. Whichever way
 * the loss shows (known LOST after an expiry, the lease node deleted under a holder that still
 * believes it holds, a closed handle), the write fails with a final {@link LockLostException}
 * that names the lost token, within 1 s (scaled), and nothing is written: not the value, not the
 * node the same transaction would have created, and not later on the client's new session.
 */
@Tag("fault")
class FencedWriteAfterLossIT {
    @RegisterExtension
    static final ZooKeeperExtension SERVER = ZooKeeperExtension.single();

    private static final CoordPath LOCK = Locks.path("payments", "acct-28");
    private static final CoordPath BALANCE = CoordPath.of("/data/acct-28/balance");
    private static final CoordPath AUDIT = CoordPath.of("/data/acct-28/audit-1");
    private static final byte[] BEFORE = "100".getBytes(StandardCharsets.UTF_8);

    @Test
    void aWriteAfterTheSessionExpiredNamesTheLostTokenAndWritesNothingNowOrOnTheNewSession() throws Exception {
        CoordClient holder = SERVER.newClient();
        CoordClient observer = seed();
        LockLease lease = Locks.mutex(holder, LOCK).acquire(Duration.ofSeconds(5));
        long oldSession = lease.session().id();
        LockTesting.expire(holder, SERVER);
        assertEquals(LeaseState.LOST, lease.ended().get(10, TimeUnit.SECONDS));

        assertRefusedNamingTheToken(lease, observer, () -> guardedWrite(holder, lease));
        Faults.awaitNewSession(holder, oldSession, Duration.ofSeconds(10));
        assertRefusedNamingTheToken(lease, observer, () -> guardedWrite(holder, lease)); // still refused on the new session
    }

    @Test
    void aWriteAfterTheLockNodeWasDeletedUnderTheHolderNamesTheLostToken() throws Exception {
        CoordClient holder = SERVER.newClient();
        CoordClient observer = seed();
        LockLease lease = Locks.mutex(holder, LOCK).acquire(Duration.ofSeconds(5));
        // Right away, so the holder's watch has usually not seen it: the transaction's check does.
        observer.curator().delete().forPath(lease.node().value());

        assertRefusedNamingTheToken(lease, observer, () -> guardedWrite(holder, lease));
        assertEquals(LeaseState.LOST, lease.ended().get(5, TimeUnit.SECONDS), "the refused write also ends the lease");
    }

    @Test
    void aWriteThroughAClosedHandleNamesItsToken() throws Exception {
        CoordClient holder = SERVER.newClient();
        CoordClient observer = seed();
        LockLease lease = Locks.mutex(holder, LOCK).acquire(Duration.ofSeconds(5));
        lease.close();

        assertRefusedNamingTheToken(lease, observer, () -> guardedWrite(holder, lease));
    }

    private static CoordClient seed() throws Exception {
        CoordClient observer = SERVER.newClient();
        observer.curator().create().creatingParentsIfNeeded().forPath(BALANCE.value(), BEFORE);
        return observer;
    }

    /** One fenced transaction: the new balance and an audit node. */
    private static void guardedWrite(CoordClient holder, LockLease lease) throws Exception {
        lease.guardedTransaction(List.of(
                holder.curator().transactionOp().setData().forPath(BALANCE.value(), "90".getBytes(StandardCharsets.UTF_8)),
                holder.curator().transactionOp().create().forPath(AUDIT.value())));
    }

    private static void assertRefusedNamingTheToken(LockLease lease, CoordClient observer, Executable write) throws Exception {
        FencingToken token = lease.token();
        long start = System.nanoTime();
        LockLostException e = assertThrows(LockLostException.class, write);
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        System.out.println("row 28 -> LockLostException in " + took.toMillis() + " ms: " + e.getMessage());
        assertTrue(e.getMessage().contains("0x" + Long.toHexString(token.value())) && e.getMessage().contains(token.node().value()),
                "the message names the lost token " + token + ": " + e.getMessage());
        assertFalse(e.retryable(), "a lost lock is final: the write is never retried");
        Duration bound = Awaits.scaled(Duration.ofSeconds(1));
        assertTrue(took.compareTo(bound) < 0, "refused within " + bound + ", took " + took);
        assertArrayEquals(BEFORE, observer.curator().getData().forPath(BALANCE.value()), "the value was not written");
        assertNull(observer.curator().checkExists().forPath(AUDIT.value()), "the transaction's node was not created");
    }
}
