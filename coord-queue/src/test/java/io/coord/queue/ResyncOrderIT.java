package io.coord.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.SessionState;
import io.coord.test.Awaits;
import io.coord.test.ClientProxy;
import io.coord.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Order across a reconnect (the chaos queue scenario's FIFO finding). After a reconnect the
 * consumer's watch lists the tasks and reads every one, and a consumer waiting in {@code claim()}
 * takes the first ready task it learns of; the reads go out oldest first (the listing comes in
 * the server's hash order), so one consumer still sees strict order, as documented.
 */
class ResyncOrderIT {
    @RegisterExtension
    @Order(1)
    static final ZooKeeperExtension ZOOKEEPER = ZooKeeperExtension.single();
    @RegisterExtension
    @Order(2)
    static final QueueServer ZK = QueueServer.on(ZOOKEEPER);

    private static final int TASKS = 40;

    @Test
    void aConsumerWaitingAcrossADisconnectionTakesTheOldestTaskEnqueuedMeanwhileFirst() throws Exception {
        ExecutorService caller = Executors.newSingleThreadExecutor();
        try (ClientProxy proxy = ClientProxy.to(ZK.ensemble())) {
            // a session that outlives the disconnection however slow the machine: a reconnect, not a new session
            CoordClient consumer = ZK.client(b -> b.connectString(proxy.connectString()).sessionTimeout(Awaits.scaled(Duration.ofSeconds(20))));
            TaskQueue<Job> consumerQueue = ZK.queue(consumer, "jobs", Job.class, QueueOptions.defaults());
            TaskQueue<Job> producerQueue = ZK.queue(ZK.client(), "jobs", Job.class, QueueOptions.defaults());
            long session = consumer.session().id();
            Future<Optional<TaskClaim<Job>>> first = caller.submit(() -> consumerQueue.claim(Awaits.scaled(Duration.ofSeconds(60))));

            proxy.refuse();
            Awaits.until("the consumer noticed the disconnection", Duration.ofSeconds(10),
                    () -> consumer.session().state() != SessionState.CONNECTED);
            List<TaskId> ids = producerQueue.enqueueAll(IntStream.range(0, TASKS).mapToObj(i -> new Job("j", i)).toList());
            proxy.accept();

            TaskClaim<Job> claim = first.get(Awaits.scaled(Duration.ofSeconds(60)).toMillis(), TimeUnit.MILLISECONDS).orElseThrow();
            assertEquals(session, consumer.session().id(), "a reconnect on the same session, not a new one");
            assertEquals(ids.get(0), claim.id(), "the oldest of the " + TASKS + " tasks enqueued while the consumer was away comes first");
            claim.complete();
        } finally {
            caller.shutdownNow();
            assertTrue(caller.awaitTermination(Awaits.scaled(Duration.ofSeconds(10)).toMillis(), TimeUnit.MILLISECONDS));
        }
    }
}
