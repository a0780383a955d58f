package io.coord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.internal.Zk;
import java.lang.ref.WeakReference;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Each {@link CoordClient} owns its {@link Zk} (issue 15, "the {@code Zk.of(client)} static map
 * goes"): {@code Zk.of} reads the client's own field, nothing process-global holds a client or its
 * internals, and a closed client fails clearly where recipes reach for them.
 */
class ClientOwnsItsInternalsIT {
    @RegisterExtension
    static final CoreTestServer ZK = new CoreTestServer();

    @Test
    void eachClientReachesItsOwnZk() throws Exception {
        CoordClient a = ZK.client();
        CoordClient b = ZK.client();
        Zk ofA = Zk.of(a);
        assertSame(ofA, Zk.of(a), "one Zk per client, the same on every call");
        assertSame(a, ofA.client());
        assertNotSame(ofA, Zk.of(b));
        assertSame(b, Zk.of(b).client());
    }

    @Test
    void aClosedClientFailsClearlyNamingItselfOwnedOrWrapped() throws Exception {
        CoordClient owned = ZK.client();
        owned.close();
        assertClosed(owned);

        try (CuratorFramework curator = CuratorFrameworkFactory.newClient(ZK.connectString(), 3_000, 10_000, new RetryOneTime(100))) {
            curator.start();
            CoordClient wrapped = CoordClient.wrap(curator);
            Zk.of(wrapped); // open: reachable
            wrapped.close();
            assertClosed(wrapped);
        }
    }

    private static void assertClosed(CoordClient client) {
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> Zk.of(client));
        assertEquals("CoordClient " + client + " is closed", e.getMessage());
    }

    /** The map this replaced kept every client until its close; no static field may hold one again. */
    @Test
    void noStaticFieldOfZkHoldsClientsOrTheirInternals() {
        for (Field f : Zk.class.getDeclaredFields()) {
            if (Modifier.isStatic(f.getModifiers())) {
                Class<?> type = f.getType();
                boolean holdsClients = Map.class.isAssignableFrom(type) || Collection.class.isAssignableFrom(type)
                        || type == CoordClient.class || type == Zk.class || type.isArray();
                assertFalse(holdsClients, "static field Zk." + f.getName() + " of type " + type.getName()
                        + ": only the way to read a client may be static, never clients or their Zk");
            }
        }
    }

    /** Nothing static or left running keeps a closed client's internals: they go with the client. */
    @Test
    void aClosedAndDroppedClientsInternalsAreCollected() throws Exception {
        WeakReference<Zk> internals = closedClientsInternals();
        Duration budget = SecurityFixtures.scaled(Duration.ofSeconds(20));
        CoreTestServer.await(budget, () -> {
            System.gc();
            return internals.get() == null;
        }, "the Zk of a closed, unreferenced client is collected");
        assertTrue(internals.refersTo(null));
    }

    private static WeakReference<Zk> closedClientsInternals() throws InterruptedException {
        CoordClient client = CoordClient.connect(ZK.settings().build()); // not ZK.client(): the extension would keep it
        WeakReference<Zk> internals = new WeakReference<>(Zk.of(client));
        client.close();
        return internals;
    }
}
