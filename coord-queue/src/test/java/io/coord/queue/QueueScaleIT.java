package io.coord.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.test.Awaits;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import io.coord.test.ZooKeeperExtension;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The tested queue size: a queue filled to its default depth cap (10 000 tasks) still lists,
 * reports stats, hands out tasks in order to a consumer that starts cold, and refuses the next
 * put with QueueFullException.
 */
@Tag("fault")
class QueueScaleIT {
    @RegisterExtension
    @Order(1)
    static final ZooKeeperExtension ZOOKEEPER = ZooKeeperExtension.single();
    @RegisterExtension
    @Order(2)
    static final QueueServer ZK = QueueServer.on(ZOOKEEPER);

    @Test
    void aQueueAtTheDefaultCapOfTenThousandStillServesInOrderAndRefusesOneMore() throws Exception {
        CoordClient client = ZK.client();
        TaskQueue<Job> producer = ZK.queue(client, "big", Job.class, QueueOptions.defaults());
        int cap = QueueOptions.DEFAULT_DEPTH_CAP;
        List<Job> batch = new ArrayList<>();
        for (int i = 0; i < cap; i++) {
            batch.add(new Job("b", i));
            if (batch.size() == 500) {
                producer.enqueueAll(batch);
                batch.clear();
            }
        }
        assertThrows(QueueFullException.class, () -> producer.enqueue(new Job("one-more", 0)));

        long start = System.nanoTime();
        QueueStats stats = producer.stats();
        long statsMs = (System.nanoTime() - start) / 1_000_000;
        assertEquals(cap, stats.pending());
        assertEquals(cap, producer.tasks().size());

        TaskQueue<Job> consumer = ZK.queue(ZK.client(), "big", Job.class, QueueOptions.defaults());
        start = System.nanoTime();
        TaskClaim<Job> first = consumer.claim(Awaits.scaled(Duration.ofSeconds(60))).orElseThrow();
        long firstClaimMs = (System.nanoTime() - start) / 1_000_000;
        assertEquals(0, first.payload().n(), "a cold consumer starts at the head");
        first.complete();
        for (int i = 1; i <= 20; i++) {
            TaskClaim<Job> c = consumer.claim(Awaits.scaled(Duration.ofSeconds(10))).orElseThrow();
            assertEquals(i, c.payload().n());
            c.complete();
        }
        producer.enqueue(new Job("room again", 0));
        assertTrue(producer.stats().depth() == cap - 20);
        System.out.printf("queue at cap %d: stats in %d ms, cold consumer's first claim in %d ms%n", cap, statsMs, firstClaimMs);
    }
}
