package io.coord.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.ConnectionLostException;
import io.coord.CoordClient;
import io.coord.CoordException;
import io.coord.test.Awaits;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import io.coord.test.ZooKeeperExtension;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A 3-node ensemble loses its leader while producers and consumers run: nothing is lost or done twice. */
@Tag("fault")
class QueueQuorumIT {
    @RegisterExtension
    @Order(1)
    static final ZooKeeperExtension ZOOKEEPER = ZooKeeperExtension.quorum();
    @RegisterExtension
    @Order(2)
    static final QueueServer ZK = QueueServer.on(ZOOKEEPER);

    private static final int TASKS = 600;

    @Test
    void leaderLossMidRunLosesNoTaskAndCompletesNoneTwice() throws Exception {
        CoordClient admin = ZK.client(b -> b.sessionTimeout(Duration.ofSeconds(8)));
        CuratorFramework curator = admin.curator();
        curator.create().creatingParentsIfNeeded().forPath("/records");
        List<TaskQueue<Job>> consumers = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            CoordClient c = ZK.client(b -> b.sessionTimeout(Duration.ofSeconds(8)));
            consumers.add(ZK.queue(c, "jobs", Job.class, QueueOptions.defaults()));
        }
        AtomicInteger completed = new AtomicInteger();
        for (TaskQueue<Job> q : consumers) {
            CuratorFramework cf = ((ZkTaskQueue<Job>) q).zk.curator();
            ZK.track(q.work(2, claim -> {
                claim.completeWith(List.of(cf.transactionOp().create().withMode(CreateMode.PERSISTENT_SEQUENTIAL)
                        .forPath("/records/" + claim.id().name() + "-",
                                Long.toString(claim.token().value()).getBytes(StandardCharsets.UTF_8))));
                completed.incrementAndGet();
            }));
        }

        CoordClient producerClient = ZK.client(b -> b.sessionTimeout(Duration.ofSeconds(8)));
        TaskQueue<Job> producer = ZK.queue(producerClient, "jobs", Job.class, QueueOptions.defaults());
        Map<String, TaskId> acknowledged = new TreeMap<>();
        AtomicReference<Integer> killedLeader = new AtomicReference<>();
        int indeterminate = 0;
        for (int i = 0; i < TASKS; i++) {
            if (i == TASKS / 3) {
                int leader = ZK.ensemble().awaitLeader(Awaits.scaled(Duration.ofSeconds(10)).toMillis());
                ZK.ensemble().kill(leader);
                killedLeader.set(leader);
            }
            String key = "job-" + i;
            long deadline = System.nanoTime() + Awaits.scaled(Duration.ofSeconds(60)).toNanos();
            while (true) {
                try {
                    acknowledged.put(key, producer.enqueue(new Job("q", i), key));
                    break;
                } catch (ConnectionLostException e) {
                    indeterminate++; // may or may not have been added: the same key makes the retry safe
                } catch (CoordException e) {
                    if (!e.retryable()) {
                        throw e;
                    }
                    indeterminate++;
                }
                assertTrue(System.nanoTime() < deadline, "the ensemble did not come back for " + key);
            }
        }
        assertTrue(killedLeader.get() != null);
        QueueServer.await("every task completed", Duration.ofSeconds(90), () -> {
            try {
                return curator.checkExists().forPath("/queues/jobs/tasks").getNumChildren() == 0
                        && curator.getChildren().forPath("/records").size() >= TASKS;
            } catch (Exception e) {
                return false;
            }
        });
        Map<String, Integer> records = new TreeMap<>();
        for (String r : curator.getChildren().forPath("/records")) {
            records.merge(r.substring(0, r.lastIndexOf('-')), 1, Integer::sum);
        }
        assertEquals(TASKS, acknowledged.size());
        for (Map.Entry<String, TaskId> e : acknowledged.entrySet()) {
            assertEquals(1, records.getOrDefault(e.getValue().name(), 0), "task " + e.getValue() + " for " + e.getKey()
                    + " completed exactly once");
        }
        assertEquals(TASKS, records.size(), "no task beyond the acknowledged ones (0 duplicates from retried enqueues)");
        assertTrue(consumers.get(0).deadLetters().isEmpty());
        System.out.printf("queue leader-loss run: %d tasks, leader %d killed, %d indeterminate enqueues retried, 0 lost, 0 duplicates%n",
                TASKS, killedLeader.get(), indeterminate);
    }
}
