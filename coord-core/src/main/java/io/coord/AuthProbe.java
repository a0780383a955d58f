package io.coord;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.utils.DefaultZookeeperFactory;
import org.apache.curator.utils.ZookeeperFactory;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.client.ZKClientConfig;

/**
 * Makes {@link AuthCheck}'s probe the first request of every ZooKeeper handle a Coord-built client
 * makes. Why: a server that enforces SASL answers whichever request comes first with {@code -124}
 * and closes the session. When that request was Curator's own (its ensemble tracker reads the
 * configuration as soon as Curator hears of the connection), the probe only saw the connection go,
 * and the client went round again, each round after ZooKeeper's random reconnect pause of up to a
 * second: row 24 of the bad-input table took 0.2 to 4.9 s instead of one round trip.
 *
 * <p>Sent from the handle's own connect event, before that event reaches Curator, the probe is in
 * the connection's queue ahead of anything Curator sends, and behind the auth packets (ZooKeeper
 * sends those first when it primes a connection). The server answers a connection's packets in
 * order, so the probe's answer says whether the server accepted our authentication.
 */
final class AuthProbe implements ZookeeperFactory {
    /** The probe of one handle; {@code sent} is false if the connect event came before we knew the handle. */
    private record Probe(ZooKeeper handle, AtomicBoolean sent, CompletableFuture<Integer> answer) {
    }

    private final ZookeeperFactory delegate = new DefaultZookeeperFactory();
    private final AtomicReference<Probe> latest = new AtomicReference<>();

    @Override
    public ZooKeeper newZooKeeper(String connectString, int sessionTimeout, Watcher watcher, boolean canBeReadOnly)
            throws Exception {
        return newZooKeeper(connectString, sessionTimeout, watcher, canBeReadOnly, null);
    }

    @Override
    public ZooKeeper newZooKeeper(String connectString, int sessionTimeout, Watcher watcher, boolean canBeReadOnly,
            ZKClientConfig config) throws Exception {
        AtomicReference<ZooKeeper> handle = new AtomicReference<>();
        AtomicBoolean sent = new AtomicBoolean();
        CompletableFuture<Integer> answer = new CompletableFuture<>();
        Watcher probing = event -> {
            ZooKeeper zk = handle.get();
            if (event.getType() == EventType.None && event.getState() == KeeperState.SyncConnected && zk != null
                    && sent.compareAndSet(false, true)) {
                // Asynchronous: this is ZooKeeper's event thread, nothing may block here.
                zk.exists("/", false, (rc, path, ctx, stat) -> answer.complete(rc), null);
            }
            watcher.process(event);
        };
        ZooKeeper zk = delegate.newZooKeeper(connectString, sessionTimeout, probing, canBeReadOnly, config);
        handle.set(zk);
        latest.set(new Probe(zk, sent, answer));
        return zk;
    }

    /**
     * The answer code of the probe sent as {@code handle}'s first request, or null if none was
     * (another handle, or its connect event came before the handle was known): then the caller
     * sends its own.
     */
    CompletableFuture<Integer> answerFor(ZooKeeper handle) {
        Probe p = latest.get();
        return p != null && p.handle() == handle && p.sent().get() ? p.answer() : null;
    }
}
