package io.coord.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.CoordException;
import io.coord.Lease;
import io.coord.LeaseListener;
import io.coord.LeaseState;
import io.coord.test.Awaits;
import io.coord.test.ZooKeeperExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Claim timeouts (issue 17): a claim not extended within its timeout, judged by ZooKeeper's clock,
 * is taken over by another consumer; the stale claimer's endings are refused on the server and its
 * lease goes LOST saying "claim timed out"; a worker's extensions keep a long handler's claim.
 */
class ClaimTimeoutIT {
    @RegisterExtension
    @Order(1)
    static final ZooKeeperExtension ZOOKEEPER = ZooKeeperExtension.single();
    @RegisterExtension
    @Order(2)
    static final QueueServer ZK = QueueServer.on(ZOOKEEPER);

    private static final Duration TIMEOUT = Awaits.scaled(Duration.ofSeconds(2));
    /** For {@link QueueServer#await}, which scales it; latches and claims wait {@link #waitMillis()} or {@code scaled(WAIT)}. */
    private static final Duration WAIT = Duration.ofSeconds(30);

    private static long waitMillis() {
        return Awaits.scaled(WAIT).toMillis();
    }

    private static QueueOptions withTimeout(String consumer, Duration maxProcessing) {
        QueueOptions.Builder b = QueueOptions.builder().consumerName(consumer).claimTimeout(TIMEOUT);
        return (maxProcessing == null ? b : b.maxProcessing(maxProcessing)).build();
    }

    private TaskQueue<Job> queue(CoordClient client, QueueOptions options) {
        return ZK.queue(client, "jobs", Job.class, options);
    }

    /** A completion that also writes a record under /records: the record exists exactly when the completion committed. */
    private static void completeRecording(TaskClaim<Job> claim, CuratorFramework curator, String who) throws Exception {
        claim.completeWith(List.of(curator.transactionOp().create().withMode(CreateMode.PERSISTENT_SEQUENTIAL)
                .forPath("/records/" + claim.id().name() + "-" + who + "-", who.getBytes(StandardCharsets.UTF_8))));
    }

    private static CountDownLatch lostLatch(TaskClaim<Job> claim, AtomicReference<CoordException> cause) {
        CountDownLatch lost = new CountDownLatch(1);
        claim.addListener(new LeaseListener() {
            @Override
            public void onLost(Lease l, CoordException c) {
                cause.set(c);
                lost.countDown();
            }
        }, Runnable::run);
        return lost;
    }

    @Test
    void aHandlerThatBlocksForeverHasItsTaskRedeliveredAndItsLateCompleteIsRefused() throws Exception {
        CoordClient stuckClient = ZK.client();
        CoordClient otherClient = ZK.client();
        CuratorFramework curator = stuckClient.curator();
        curator.create().creatingParentsIfNeeded().forPath("/records");
        // The stuck consumer's worker extends for at most half a timeout, then takes its handler for hung.
        TaskQueue<Job> stuck = queue(stuckClient, withTimeout("stuck", TIMEOUT.dividedBy(2)));
        TaskQueue<Job> other = queue(otherClient, withTimeout("other", null));
        stuck.enqueue(new Job("hangs", 0));

        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch wake = new CountDownLatch(1);
        AtomicReference<TaskClaim<Job>> stuckClaim = new AtomicReference<>();
        AtomicReference<Exception> lateComplete = new AtomicReference<>();
        CountDownLatch lateDone = new CountDownLatch(1);
        ZK.track(stuck.work(1, claim -> {
            stuckClaim.set(claim);
            started.countDown();
            // "Forever": a deadlock, a call without a timeout. Only the test's end wakes it.
            wake.await(waitMillis() * 2, TimeUnit.MILLISECONDS);
            try {
                completeRecording(claim, curator, "stuck");
            } catch (Exception e) {
                lateComplete.set(e);
            } finally {
                lateDone.countDown();
            }
        }));
        assertTrue(started.await(waitMillis(), TimeUnit.MILLISECONDS), "the stuck consumer took the task");
        AtomicReference<CoordException> cause = new AtomicReference<>();
        CountDownLatch lost = lostLatch(stuckClaim.get(), cause);

        AtomicInteger redelivered = new AtomicInteger();
        AtomicInteger deliveries = new AtomicInteger();
        ZK.track(other.work(1, claim -> {
            redelivered.incrementAndGet();
            deliveries.set(claim.deliveries());
            completeRecording(claim, otherClient.curator(), "other");
        }));
        QueueServer.await("the task is redelivered to the other consumer and completed", WAIT, () -> redelivered.get() == 1
                && other.tasks().isEmpty());
        assertEquals(2, deliveries.get(), "the redelivery is the task's second delivery");

        assertTrue(lost.await(waitMillis(), TimeUnit.MILLISECONDS), "the stuck claim's lease goes LOST");
        assertTrue(cause.get().getMessage().contains("claim timed out"), cause.get().getMessage());
        assertEquals(LeaseState.LOST, stuckClaim.get().state());

        wake.countDown(); // the stuck handler wakes and tries to complete
        assertTrue(lateDone.await(waitMillis(), TimeUnit.MILLISECONDS));
        assertNotNull(lateComplete.get(), "the late complete was refused");
        assertInstanceOf(ClaimLostException.class, lateComplete.get());
        assertTrue(lateComplete.get().getMessage().contains("claim timed out"), lateComplete.get().getMessage());

        List<String> records = curator.getChildren().forPath("/records");
        assertEquals(1, records.size(), "exactly one completion record: " + records);
        assertTrue(records.get(0).contains("-other-"), records.toString());
        assertTrue(other.tasks().isEmpty());
        assertTrue(other.deadLetters().isEmpty(), "a timeout is not an attempt");
        assertEquals(1, redelivered.get(), "redelivered once");
    }

    @Test
    void aHandlerTakingFiveTimeoutsIsExtendedByItsWorkerAndNeverRedelivered() throws Exception {
        CoordClient slowClient = ZK.client();
        CoordClient otherClient = ZK.client();
        slowClient.curator().create().creatingParentsIfNeeded().forPath("/records");
        TaskQueue<Job> slow = queue(slowClient, withTimeout("slow", null));
        TaskQueue<Job> other = queue(otherClient, withTimeout("other", null));
        slow.enqueue(new Job("long", 0));

        CountDownLatch started = new CountDownLatch(1);
        AtomicInteger slowDeliveries = new AtomicInteger();
        AtomicReference<Exception> slowEnding = new AtomicReference<>();
        CountDownLatch slowDone = new CountDownLatch(1);
        ZK.track(slow.work(1, claim -> {
            started.countDown();
            slowDeliveries.set(claim.deliveries());
            Thread.sleep(TIMEOUT.multipliedBy(5).toMillis()); // the work itself: 5 claim timeouts
            try {
                completeRecording(claim, slowClient.curator(), "slow");
            } catch (Exception e) {
                slowEnding.set(e);
            } finally {
                slowDone.countDown();
            }
        }));
        assertTrue(started.await(waitMillis(), TimeUnit.MILLISECONDS));
        // A second consumer waits the whole time: it would take the task over if the claim timed out.
        AtomicInteger otherHandled = new AtomicInteger();
        ZK.track(other.work(1, claim -> otherHandled.incrementAndGet()));

        assertTrue(slowDone.await(waitMillis() + TIMEOUT.multipliedBy(5).toMillis(), TimeUnit.MILLISECONDS));
        assertEquals(null, slowEnding.get(), "the slow handler's complete commits");
        assertEquals(1, slowDeliveries.get());
        assertEquals(0, otherHandled.get(), "never redelivered");
        assertEquals(1, slowClient.curator().getChildren().forPath("/records").size());
        assertTrue(slow.tasks().isEmpty());
    }

    /** Consumer a claims a task by hand and never extends; consumer b's claim takes it over. */
    private record TakenOver(TaskClaim<Job> old, TaskClaim<Job> taken, TaskQueue<Job> b) {
    }

    private TakenOver takenOver() throws InterruptedException {
        TaskQueue<Job> a = queue(ZK.client(), withTimeout("a", null));
        TaskQueue<Job> b = queue(ZK.client(), withTimeout("b", null));
        a.enqueue(new Job("manual", 0));
        TaskClaim<Job> old = a.claim(Awaits.scaled(WAIT)).orElseThrow();
        TaskClaim<Job> taken = b.claim(Awaits.scaled(WAIT)).orElseThrow(() -> new AssertionError("not taken over within " + WAIT));
        return new TakenOver(old, taken, b);
    }

    @Test
    void aClaimNotExtendedIsTakenOverAndItsExtendAndFailAreRefused() throws Exception {
        TakenOver t = takenOver();
        TaskClaim<Job> old = t.old();
        TaskClaim<Job> taken = t.taken();
        TaskQueue<Job> b = t.b();
        assertEquals(old.id(), taken.id());
        assertTrue(taken.token().isNewerThan(old.token()));
        assertThrows(ClaimLostException.class, () -> old.extend(TIMEOUT), "a stale claim cannot extend");
        assertThrows(IllegalStateException.class, () -> old.fail("too late"), "and, once lost, cannot end");
        assertEquals(1, b.tasks().size(), "the stale claimer changed nothing");
        taken.extend(TIMEOUT.multipliedBy(3)); // the current claim can
        taken.complete();
        assertTrue(b.tasks().isEmpty());
        assertTrue(b.deadLetters().isEmpty());
    }

    @Test
    void aStaleFailIsRefusedOnTheServerAndChangesNothing() throws Exception {
        TakenOver t = takenOver();
        ClaimLostException refused = assertThrows(ClaimLostException.class, () -> t.old().fail("late"));
        assertTrue(refused.getMessage().contains("claim timed out"), refused.getMessage());
        Task<Job> task = t.b().tasks().get(0);
        assertEquals(0, task.attempts(), "the refused fail counted no attempt");
        assertEquals(Task.State.PROCESSING, task.state());
        t.taken().complete();
    }

    @Test
    void withoutATimeoutAnIdleClaimIsNeverTakenOver() throws Exception {
        TaskQueue<Job> a = queue(ZK.client(), QueueOptions.defaults());
        TaskQueue<Job> b = queue(ZK.client(), withTimeout("b", null)); // b would take over a claim that has a deadline
        a.enqueue(new Job("kept", 0));
        TaskClaim<Job> held = a.claim(Awaits.scaled(WAIT)).orElseThrow();
        assertTrue(b.claim(TIMEOUT.multipliedBy(3)).isEmpty(), "a claim made without a timeout has no deadline");
        held.extend(TIMEOUT); // only checks the claim on the server
        held.complete();
        assertTrue(a.tasks().isEmpty());
    }
}
