package io.coord.lock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.CoordPath;
import io.coord.CoordSettings;
import io.coord.LeaseState;
import io.coord.test.Awaits;
import io.coord.test.ReplyLossServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * An uncontended lock cycle waits for one round trip (issue 18 part 1): the acquire sends its
 * read of the queue right behind its create, without waiting for the create's reply, and
 * {@code close()} returns once the delete is sent. The server holds the reply in question back
 * until the same session sends its next request (bounded): a client that waits for the reply
 * first never sends that request while it is held, and the hold reports it.
 */
class RoundTripLimitIT {
    private static final CoordPath LOCK = Locks.path("payments", "acct-round-trip");
    private static final Duration HOLD = Awaits.scaled(Duration.ofSeconds(5));

    private static CoordClient connect(ReplyLossServer server) throws InterruptedException {
        return CoordClient.connect(CoordSettings.builder().connectString(server.connectString())
                .connectionTimeout(Awaits.scaled(Duration.ofSeconds(30))).build());
    }

    @Test
    void theAcquireSendsItsReadBeforeTheCreatesReplyComesBack() throws Exception {
        try (ReplyLossServer server = ReplyLossServer.start(); CoordClient client = connect(server)) {
            // The lock's node exists: a create that first makes the parents retries after the read.
            client.curator().create().creatingParentsIfNeeded().forPath(LOCK.value());
            CompletableFuture<Boolean> readBeforeReply = server.holdNextCreateReply(LOCK.value() + "/_c_", HOLD);

            try (LockLease lease = Locks.mutex(client, LOCK).acquire(Awaits.scaled(Duration.ofSeconds(20)))) {
                assertTrue(readBeforeReply.get(HOLD.toMillis() * 2, TimeUnit.MILLISECONDS),
                        "the queue's read went out only after the create's reply: two round trips, not one");
                assertEquals(LeaseState.ACQUIRED, lease.state());
                assertEquals(List.of(lease.node().name()), client.curator().getChildren().forPath(LOCK.value()));
            }
        }
    }

    @Test
    void closeReturnsBeforeTheDeletesReplyAndTheSessionsNextRequestsComeAfterTheDelete() throws Exception {
        try (ReplyLossServer server = ReplyLossServer.start(); CoordClient client = connect(server)) {
            DistributedLock lock = Locks.mutex(client, LOCK);
            LockLease first = lock.acquire(Awaits.scaled(Duration.ofSeconds(20)));
            CompletableFuture<Boolean> returnedBeforeReply = server.holdNextDeleteReply(first.node().value(), HOLD);

            first.close();
            assertEquals(LeaseState.RELEASED, first.state(), "RELEASED locally as soon as close() returns");
            // The next acquire on this session is ordered after the delete: it sees only its own node.
            try (LockLease second = lock.acquire(Awaits.scaled(Duration.ofSeconds(20)))) {
                assertTrue(returnedBeforeReply.get(HOLD.toMillis() * 2, TimeUnit.MILLISECONDS),
                        "close() waited for the delete's reply before returning");
                assertTrue(second.token().value() > first.token().value(), "tokens rise");
                assertNull(client.curator().checkExists().forPath(first.node().value()), "the first node is gone");
                assertEquals(List.of(second.node().name()), client.curator().getChildren().forPath(LOCK.value()));
            }
        }
    }
}
