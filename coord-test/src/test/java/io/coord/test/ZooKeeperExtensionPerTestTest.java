package io.coord.test;

import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/** On an instance field the extension starts a fresh server for every test. */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ZooKeeperExtensionPerTestTest {
    private static String firstConnectString;
    private static EmbeddedEnsemble firstEnsemble;

    @RegisterExtension
    final ZooKeeperExtension zk = ZooKeeperExtension.single();

    @Test
    @Order(1)
    void firstTestGetsAServer() throws Exception {
        firstConnectString = zk.connectString();
        firstEnsemble = zk.ensemble();
        zk.newClient().curator().create().forPath("/x");
    }

    @Test
    @Order(2)
    void secondTestGetsAnotherServerAndTheFirstWasStopped() {
        assertNotEquals(firstConnectString, zk.connectString());
        assertTrue(EmbeddedEnsemble.fourLetterWord(firstEnsemble.clientPort(0), "ruok").isEmpty(), "the first server is gone");
        assertTrue(zk.ensemble().mode(0).isPresent());
    }
}
