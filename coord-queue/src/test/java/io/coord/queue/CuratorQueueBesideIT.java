package io.coord.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordPath;
import io.coord.ForeignNodesException;
import io.coord.test.Awaits;
import io.coord.test.ZooKeeperExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.queue.DistributedQueue;
import org.apache.curator.framework.recipes.queue.QueueBuilder;
import org.apache.curator.framework.recipes.queue.QueueConsumer;
import org.apache.curator.framework.recipes.queue.QueueSerializer;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A Curator 5.9 {@code DistributedQueue} and a Coord queue on one path (a rolling deploy that
 * forgot to rename the queue). Their layouts differ in kind: Curator puts {@code queue-{seq}} items
 * under the path, Coord keeps {@code tasks/}, {@code claims/}, {@code dead/} and {@code keys/}, so
 * neither would ever deliver the other's work. Coord refuses to open beside Curator's items, naming
 * them, and creates nothing; a Coord queue already open lists items that arrive later as foreign.
 */
class CuratorQueueBesideIT {
    @RegisterExtension
    @Order(1)
    static final ZooKeeperExtension ZOOKEEPER = ZooKeeperExtension.single();
    @RegisterExtension
    @Order(2)
    static final QueueServer ZK = QueueServer.on(ZOOKEEPER);

    private static final Duration WAIT = Duration.ofSeconds(5);
    private static final String PATH = "/queues/jobs";
    private static final QueueSerializer<String> TEXT = new QueueSerializer<>() {
        @Override
        public byte[] serialize(String item) {
            return item.getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public String deserialize(byte[] bytes) {
            return new String(bytes, StandardCharsets.UTF_8);
        }
    };

    private CuratorFramework curator;
    private DistributedQueue<String> curatorQueue;

    private CuratorFramework curator() throws InterruptedException {
        curator = CuratorFrameworkFactory.builder().connectString(ZOOKEEPER.connectString()).namespace(ZK.namespace())
                .sessionTimeoutMs(4_000).connectionTimeoutMs(10_000).retryPolicy(new ExponentialBackoffRetry(100, 5)).build();
        curator.start();
        assertTrue(curator.blockUntilConnected((int) Awaits.scaled(WAIT).toMillis(), TimeUnit.MILLISECONDS), "Curator connected");
        return curator;
    }

    /** A started Curator queue on {@link #PATH}; {@code consumer} null: a producer only. */
    private DistributedQueue<String> curatorQueue(QueueConsumer<String> consumer) throws Exception {
        curatorQueue = QueueBuilder.builder(curator(), consumer, TEXT, PATH).buildQueue();
        curatorQueue.start();
        return curatorQueue;
    }

    @AfterEach
    void closeCurator() throws Exception {
        if (curatorQueue != null) {
            curatorQueue.close();
        }
        if (curator != null) {
            curator.close();
        }
    }

    private List<String> children(String path) throws Exception {
        return ZK.client().curator().getChildren().forPath(path).stream().sorted().toList();
    }

    @Test
    void coordRefusesToOpenBesideCuratorsItemsNamingThemAndLeavesThemQueued() throws Exception {
        DistributedQueue<String> producer = curatorQueue(null);
        for (int i = 0; i < 3; i++) {
            producer.put("curator-" + i);
        }
        Awaits.until("Curator's 3 items stored", WAIT, () -> {
            try {
                return children(PATH).size() == 3;
            } catch (Exception notYet) {
                return false;
            }
        });
        List<String> items = children(PATH);

        ForeignNodesException e = assertThrows(ForeignNodesException.class,
                () -> ZK.queue(ZK.client(), "jobs", Job.class, QueueOptions.defaults()));

        assertEquals(CoordPath.of("queues", "jobs"), e.path(), e.getMessage());
        assertEquals(items, e.nodes(), e.getMessage());
        for (String item : items) {
            assertTrue(e.getMessage().contains(item), "the message names " + item + ": " + e.getMessage());
        }
        assertTrue(e.getMessage().contains(PATH) && e.getMessage().contains("DistributedQueue")
                && e.getMessage().contains("MIGRATING"), "the message names the path, the other recipe and what to do: " + e.getMessage());
        assertEquals(items, children(PATH), "the refused open created nothing beside Curator's items and removed none");
    }

    @Test
    void curatorItemsArrivingAfterCoordOpenedAreListedAsForeignAndNeverClaimed() throws Exception {
        TaskQueue<Job> coord = ZK.queue(ZK.client(), "jobs", Job.class, QueueOptions.defaults());
        TaskId ours = coord.enqueue(new Job("coord", 1));
        BlockingQueue<String> curatorGot = new LinkedBlockingQueue<>();
        DistributedQueue<String> curatorSide = curatorQueue(new QueueConsumer<>() {
            @Override
            public void consumeMessage(String message) {
                curatorGot.add(message);
            }

            @Override
            public void stateChanged(CuratorFramework client, ConnectionState newState) {
            }
        });
        curatorSide.put("curator-item");

        // Curator skips Coord's directories (it logs "Foreign node in queue path") and delivers only its own item.
        assertEquals("curator-item", curatorGot.poll(Awaits.scaled(WAIT).toMillis(), TimeUnit.MILLISECONDS));
        curatorSide.put("curator-item-2");

        try (TaskClaim<Job> c = coord.claim(WAIT).orElseThrow(() -> new AssertionError("Coord's own task was not claimed"))) {
            assertEquals(ours, c.id(), "Coord delivers only its own task");
            c.complete();
        }
        assertTrue(coord.claim(Duration.ofMillis(300)).isEmpty(), "no Curator item is ever a Coord task");
        assertNotNull(curatorGot.poll(Awaits.scaled(WAIT).toMillis(), TimeUnit.MILLISECONDS), "Curator delivered its second item");

        // While a Curator item sits under the path, inspection names it, and a new Coord open refuses.
        curatorQueue.close();
        curatorQueue = null;
        String left = ZK.client().curator().create().forPath(PATH + "/queue-0000000099", "x".getBytes(StandardCharsets.UTF_8));
        String name = left.substring(left.lastIndexOf('/') + 1);
        assertTrue(coord.stats().foreign().contains(name), "stats list the Curator item: " + coord.stats().foreign());
        assertThrows(ForeignNodesException.class, () -> ZK.queue(ZK.client(), "jobs", Job.class, QueueOptions.defaults()));
    }

    @Test
    void aTyposChildIsListedByStatsAndNeverTakenForATask() throws Exception {
        TaskQueue<Job> coord = ZK.queue(ZK.client(), "jobs", Job.class, QueueOptions.defaults());
        ZK.client().curator().create().forPath(PATH + "/task", new byte[0]);
        ZK.client().curator().create().forPath(PATH + "/tasks/task-oops", "{}".getBytes(StandardCharsets.UTF_8));
        ZK.client().curator().create().forPath(PATH + "/claims/not-a-claim", new byte[0]);
        TaskId ours = coord.enqueue(new Job("coord", 1));

        assertEquals(List.of("task", "tasks/task-oops", "claims/not-a-claim"), coord.stats().foreign(),
                "every node that is not the queue's, by path under the queue's root");
        try (TaskClaim<Job> c = coord.claim(WAIT).orElseThrow(() -> new AssertionError("the real task was not claimed"))) {
            assertEquals(ours, c.id());
            c.complete();
        }
        assertTrue(coord.claim(Duration.ofMillis(300)).isEmpty(), "a foreign node is never claimed");
        assertEquals(0, coord.stats().depth(), "foreign nodes are not counted as tasks");
        assertNull(ZK.client().curator().checkExists().forPath(PATH + "/tasks/" + ours.name()), "the real task completed");
    }
}
