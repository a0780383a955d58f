package io.coord.lock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.coord.CoordClient;
import io.coord.CoordPath;
import io.coord.test.Awaits;
import io.coord.test.ClientProxy;
import io.coord.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A blocking acquire waits in its queue listing (a blocking read sent right behind the background
 * create, see {@code LeaseNodes.createThenList}). Interrupted there, it throws at once, and the
 * node its create makes is deleted when the create's reply comes: an interrupt loses nothing and
 * leaves no node that would block everyone behind it.
 */
class InterruptedListingIT {
    @RegisterExtension
    static final ZooKeeperExtension SERVER = ZooKeeperExtension.single();

    private static final CoordPath LOCK = Locks.path("payments", "acct-interrupted-listing");

    @Test
    void anAcquireInterruptedInItsListingThrowsAndItsNodeGoesWhenTheCreateLands() throws Exception {
        CoordClient observer = SERVER.newClient();
        try (ClientProxy proxy = ClientProxy.to(SERVER.ensemble())) {
            CoordClient client = SERVER.newClient(b -> b.connectString(proxy.connectString()));
            DistributedLock lock = Locks.mutex(client, LOCK);
            lock.acquire(Awaits.scaled(Duration.ofSeconds(10))).close(); // the lock's parents exist from here on

            proxy.freeze(); // the create and the listing go out; no reply comes back
            CompletableFuture<Throwable> outcome = new CompletableFuture<>();
            Thread acquirer = new Thread(() -> {
                try {
                    lock.acquire(Duration.ofMinutes(1)).close();
                    outcome.complete(null);
                } catch (Throwable e) {
                    outcome.complete(e);
                }
            }, "acquirer");
            acquirer.start();
            Awaits.until("the acquirer waits for its listing", Awaits.scaled(Duration.ofSeconds(10)),
                    () -> acquirer.getState() == Thread.State.WAITING || acquirer.getState() == Thread.State.TIMED_WAITING);
            acquirer.interrupt();
            Throwable thrown = outcome.get(Awaits.scaled(Duration.ofSeconds(10)).toMillis(), TimeUnit.MILLISECONDS);
            assertInstanceOf(InterruptedException.class, thrown, "the interrupt is thrown, not swallowed: " + thrown);
            proxy.unfreeze();

            Awaits.until("the interrupted acquire's node is deleted once its create lands", Awaits.scaled(Duration.ofSeconds(20)),
                    () -> children(observer).isEmpty());
            assertEquals(List.of(), children(observer));
            acquirer.join(Awaits.scaled(Duration.ofSeconds(10)).toMillis());
        }
    }

    private static List<String> children(CoordClient client) {
        try {
            return client.curator().getChildren().forPath(LOCK.value());
        } catch (Exception e) {
            throw new IllegalStateException("could not list " + LOCK, e);
        }
    }
}
