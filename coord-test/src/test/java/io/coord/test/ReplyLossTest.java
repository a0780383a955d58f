package io.coord.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.CoordSettings;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** F10: create applied, reply lost. Also shows LeakCheckExtension used on its own. */
@Tag("fault")
class ReplyLossTest {
    @RegisterExtension
    final LeakCheckExtension leaks = LeakCheckExtension.threads();

    private static ReplyLossServer server;

    @BeforeAll
    static void start() {
        server = ReplyLossServer.start();
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    private static CoordClient connect(String namespace) throws InterruptedException {
        return CoordClient.connect(CoordSettings.builder().connectString(server.connectString()).namespace(namespace)
                .sessionTimeout(Duration.ofSeconds(4)).connectionTimeout(Duration.ofSeconds(10)).build());
    }

    @Test
    void aLostReplyIsIndeterminateTheCreateHappenedAlthoughTheCallerSawConnectionLoss() throws Exception {
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper raw = new ZooKeeper(server.connectString(), 4000, e -> {
            if (e.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        });
        try {
            assertTrue(connected.await(10, TimeUnit.SECONDS));
            History history = new History();
            server.dropNextCreateReply("/raw-lost");
            History.Handle op = history.invoke("raw", "create", "/raw-lost");
            KeeperException e = assertThrows(KeeperException.class,
                    () -> raw.create("/raw-lost", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT));
            op.failed(e);
            assertEquals(KeeperException.Code.CONNECTIONLOSS, e.code());
            assertEquals(1, server.droppedReplies());

            // The handle may still say CONNECTED for a moment after failing the create (ZooKeeper
            // fails pending calls before it moves the state), so the read is retried, not the state polled.
            Awaits.until("the create to be visible once the raw handle reconnected (it was applied)", Duration.ofSeconds(10),
                    () -> existsAfterReconnect(raw, "/raw-lost"));
            assertEquals(new History.Counts(0, 0, 1, 0), history.counts(), "classified indeterminate, not failed");
            History.SetCheck check = history.checkSet("create", List.of("/raw-lost"));
            check.assertValid();
            assertEquals(1, check.indeterminatePresent());
            raw.delete("/raw-lost", -1);
        } finally {
            raw.close();
        }
    }

    private static boolean existsAfterReconnect(ZooKeeper raw, String path) {
        try {
            return raw.exists(path, false) != null;
        } catch (KeeperException.ConnectionLossException e) {
            return false; // not reconnected yet
        } catch (KeeperException | InterruptedException e) {
            throw new AssertionError("reading " + path + " after the reconnect failed", e);
        }
    }

    @Test
    void curatorsRetryOfAnUnprotectedCreateReportsNodeExistsForItsOwnNode() throws Exception {
        try (CoordClient client = connect("plain")) {
            int before = server.droppedReplies();
            server.dropNextCreateReply("/plain/mine");
            assertThrows(KeeperException.NodeExistsException.class, () -> client.curator().create().forPath("/mine"));
            assertEquals(before + 1, server.droppedReplies());
            assertNotNull(client.curator().checkExists().forPath("/mine"), "the caller's own create is there");
        }
    }

    @Test
    void protectedModeFindsTheSequentialNodeWhoseReplyWasLost() throws Exception {
        try (CoordClient client = connect("protected")) {
            client.curator().create().forPath("/lock");
            int before = server.droppedReplies();
            server.dropNextCreateReply("/protected/lock/");
            String path = client.curator().create().withProtection().withMode(CreateMode.EPHEMERAL_SEQUENTIAL).forPath("/lock/lease-");
            assertEquals(before + 1, server.droppedReplies(), "the reply was lost");
            assertFalse(server.isArmed());
            List<String> children = client.curator().getChildren().forPath("/lock");
            assertEquals(1, children.size(), "no duplicate: " + children);
            assertEquals("/lock/" + children.get(0), path, "the caller learned the name of the node that was created");
        }
    }
}
