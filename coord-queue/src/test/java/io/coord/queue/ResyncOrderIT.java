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
import java.util.concurrent.atomic.AtomicBoolean;
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

    /**
     * Watch events flow again the moment the connection is back, several round trips before the
     * resync has listed and read what was enqueued meanwhile. A task enqueued just after the
     * reconnect was read first and taken ahead of every older one (the chaos queue scenario: a first
     * claim passed over 61 waiting tasks right after a ZooKeeper leader kill, when the producers'
     * backlog lands). A consumer back from a disconnection claims nothing until its resync is done.
     */
    @Test
    void aTaskEnqueuedJustAfterTheReconnectDoesNotOvertakeTheOlderOnesTheConsumerHasNotReadYet() throws Exception {
        ExecutorService caller = Executors.newFixedThreadPool(2);
        AtomicBoolean claimed = new AtomicBoolean();
        try (ClientProxy proxy = ClientProxy.to(ZK.ensemble())) {
            CoordClient consumer = ZK.client(b -> b.connectString(proxy.connectString()).sessionTimeout(Awaits.scaled(Duration.ofSeconds(20))));
            TaskQueue<Job> consumerQueue = ZK.queue(consumer, "late", Job.class, QueueOptions.defaults());
            TaskQueue<Job> producerQueue = ZK.queue(ZK.client(), "late", Job.class, QueueOptions.defaults());
            Future<Optional<TaskClaim<Job>>> first = caller.submit(() -> {
                try {
                    return consumerQueue.claim(Awaits.scaled(Duration.ofSeconds(60)));
                } finally {
                    claimed.set(true);
                }
            });

            proxy.refuse();
            Awaits.until("the consumer noticed the disconnection", Duration.ofSeconds(10),
                    () -> consumer.session().state() != SessionState.CONNECTED);
            // enough older tasks that reading them all takes the resync a while
            List<TaskId> away = producerQueue.enqueueAll(IntStream.range(0, 500).mapToObj(i -> new Job("away", i)).toList());
            proxy.accept();
            // and new ones from the moment the connection is back, as a producer's backlog lands
            Future<Integer> later = caller.submit(() -> {
                int n = 0;
                long end = System.nanoTime() + Awaits.scaled(Duration.ofSeconds(60)).toNanos();
                while (!claimed.get() && System.nanoTime() < end) {
                    producerQueue.enqueue(new Job("later", n++));
                    TimeUnit.MILLISECONDS.sleep(2);
                }
                return n;
            });

            TaskClaim<Job> claim = first.get(Awaits.scaled(Duration.ofSeconds(60)).toMillis(), TimeUnit.MILLISECONDS).orElseThrow();
            int enqueuedLater = later.get(Awaits.scaled(Duration.ofSeconds(60)).toMillis(), TimeUnit.MILLISECONDS);
            assertEquals(away.get(0), claim.id(), "the oldest of the 500 tasks enqueued while the consumer was away comes first, not "
                    + claim.payload() + " (" + enqueuedLater + " enqueued after the reconnect)");
            claim.complete();
        } finally {
            caller.shutdownNow();
            assertTrue(caller.awaitTermination(Awaits.scaled(Duration.ofSeconds(10)).toMillis(), TimeUnit.MILLISECONDS));
        }
    }
}
