package io.coord.lock;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.ConnectionLostException;
import io.coord.CoordClient;
import io.coord.CoordPath;
import io.coord.CoordSettings;
import io.coord.LeaseState;
import io.coord.test.Awaits;
import io.coord.test.ClientProxy;
import io.coord.test.Faults;
import io.coord.test.ReplyLossServer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A guarded write whose reply is lost, and whose session then ends before the client is back: the
 * write committed, so it must never be reported as refused. The chaos suite's lock scenario found
 * it: Curator retried the transaction on the new session, the retry failed at the lease check
 * (our node died with the old session), and the caller got {@code LockLostException} for a write
 * that had been applied — a counter one above every acknowledged increment. A guarded write is
 * sent once; a lost reply is {@link ConnectionLostException}, indeterminate.
 */
@Tag("fault")
class GuardedWriteReplyLossIT {
    private static final CoordPath LOCK = Locks.path("payments", "acct-lost-reply");
    private static final CoordPath BALANCE = CoordPath.of("/data/acct-lost-reply/balance");
    private static final byte[] BEFORE = "100".getBytes(StandardCharsets.UTF_8);
    private static final byte[] AFTER = "101".getBytes(StandardCharsets.UTF_8);

    @Test
    void aGuardedWriteThatCommittedButLostItsReplyAcrossASessionExpiryIsIndeterminateNeverRefused() throws Exception {
        ExecutorService caller = Executors.newSingleThreadExecutor();
        try (ReplyLossServer server = ReplyLossServer.start();
             CoordClient observer = CoordClient.connect(CoordSettings.builder().connectString(server.connectString()).build());
             ClientProxy proxy = ClientProxy.to(server.connectString());
             CoordClient holder = CoordClient.connect(CoordSettings.builder().connectString(proxy.connectString())
                     .sessionTimeout(Duration.ofSeconds(4)).connectionTimeout(Duration.ofSeconds(5)).build())) {
            observer.curator().create().creatingParentsIfNeeded().forPath(BALANCE.value(), BEFORE);
            LockLease lease = Locks.mutex(holder, LOCK).acquire(Awaits.scaled(Duration.ofSeconds(10)));

            // The multi commits; its reply is dropped and the holder cannot reconnect.
            server.dropNextMultiReply(proxy::refuse);
            Future<Stat> write = caller.submit(() -> lease.guardedSetData(BALANCE, AFTER));
            Awaits.until("the guarded write's reply dropped", Duration.ofSeconds(10), () -> server.droppedReplies() == 1);
            // While the holder is away its session really ends on the server (its lock node goes with it).
            Faults.expireSession(holder, server.connectString());
            Awaits.until("the holder's lock node gone", Duration.ofSeconds(10),
                    () -> nodeMissing(observer, lease.node()));
            proxy.accept();

            ExecutionException failure = null;
            try {
                write.get(Awaits.scaled(Duration.ofSeconds(30)).toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                failure = e;
            }
            assertTrue(failure != null, "a write whose reply was lost cannot report success");
            assertInstanceOf(ConnectionLostException.class, failure.getCause(),
                    "a committed write whose reply was lost is indeterminate, never refused: " + failure.getCause());
            assertTrue(failure.getCause().getMessage().contains(lease.token().toString()),
                    "the message names the lease's token: " + failure.getCause().getMessage());
            assertArrayEquals(AFTER, observer.curator().getData().forPath(BALANCE.value()), "the write did commit");
            assertEquals(1, observer.curator().checkExists().forPath(BALANCE.value()).getVersion(),
                    "and only once");
            assertEquals(LeaseState.LOST, lease.ended().get(Awaits.scaled(Duration.ofSeconds(30)).toMillis(), TimeUnit.MILLISECONDS),
                    "the session ended, so the lease is lost");
        } finally {
            caller.shutdownNow();
            assertTrue(caller.awaitTermination(Awaits.scaled(Duration.ofSeconds(10)).toMillis(), TimeUnit.MILLISECONDS));
        }
    }

    private static boolean nodeMissing(CoordClient observer, CoordPath node) {
        try {
            return observer.curator().checkExists().forPath(node.value()) == null;
        } catch (Exception e) {
            return false;
        }
    }
}
