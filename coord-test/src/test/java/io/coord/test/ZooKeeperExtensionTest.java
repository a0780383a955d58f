package io.coord.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.ConfigurationException;
import io.coord.CoordClient;
import java.time.Duration;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ZooKeeperExtensionTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.single();

    private static CoordClient fromFirstTest;
    private static String firstNamespace;
    private static String firstConnectString;

    @Test
    @Order(1)
    void aTestWritesIntoItsOwnNamespace() throws Exception {
        CoordClient client = zk.newClient();
        client.curator().create().forPath("/shared", "one".getBytes());
        assertEquals(zk.namespace(), client.curator().getNamespace());
        try (CoordClient raw = CoordClient.connect(io.coord.CoordSettings.builder().connectString(zk.connectString()).build())) {
            assertNotNull(raw.curator().checkExists().forPath("/" + zk.namespace() + "/shared"));
        }
        fromFirstTest = client;
        firstNamespace = zk.namespace();
        firstConnectString = zk.connectString();
    }

    @Test
    @Order(2)
    void theNextTestSeesNoneOfItsNodesAndItsClientsWereClosed() throws Exception {
        assertNotNull(fromFirstTest, "the first test ran");
        assertTrue(fromFirstTest.isClosed(), "clients are closed after each test");
        assertNotEquals(firstNamespace, zk.namespace());
        assertEquals(firstConnectString, zk.connectString(), "the server is started once per class");
        CoordClient client = zk.newClient();
        assertNull(client.curator().checkExists().forPath("/shared"));
    }

    @Test
    void defaultClientsGetFourSecondSessions() {
        CoordClient client = zk.newClient();
        assertEquals(ZooKeeperExtension.DEFAULT_SESSION_TIMEOUT, client.negotiatedSessionTimeout());
        assertEquals(zk.namespace(), client.settings().namespace());
    }

    @Test
    void customizedClientsKeepTheTestsChoicesAndDefaultTheRest() {
        CoordClient client = zk.newClient(b -> b.sessionTimeout(Duration.ofSeconds(2)));
        assertEquals(Duration.ofSeconds(2), client.negotiatedSessionTimeout(), "tickTime 500 ms allows 1..10 s");
        assertEquals(zk.namespace(), client.settings().namespace());
        assertEquals(ZooKeeperExtension.DEFAULT_CONNECTION_TIMEOUT, client.settings().connectionTimeout());
        CoordClient other = zk.newClient(b -> b.namespace("elsewhere"));
        assertEquals("elsewhere", other.settings().namespace());
    }

    @Test
    void aSessionTimeoutOutsideTheServersRangeIsClamped() {
        CoordClient client = zk.newClient(b -> b.sessionTimeout(Duration.ofSeconds(60)));
        assertEquals(Duration.ofSeconds(10), client.negotiatedSessionTimeout(), "20 x tickTime");
    }

    @Test
    void anInvalidCustomizationFailsWithTheBuildersError() {
        assertThrows(ConfigurationException.class, () -> zk.newClient(b -> b.requestTimeout(Duration.ofSeconds(8))));
    }
}
