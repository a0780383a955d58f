package io.coord.naming;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.test.ZooKeeperExtension;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link SequenceIds#nextAsync}: the sync guarantees with many calls in flight, the executor rule, cancellation. */
class SequenceIdsAsyncIT {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.single();

    @RegisterExtension
    final NamingThreadsCheck threads = new NamingThreadsCheck();

    private static final int IN_FLIGHT = 64;

    @Test
    void sixtyFourInFlightGetUniqueIdsInRealTimeOrderAndInSendingOrder() throws Exception {
        SequenceIds ids = SequenceIds.open(zk.newClient(), "async-orders");
        Set<Long> all = new HashSet<>();
        long highestBefore = ids.nextAsync().get(30, TimeUnit.SECONDS);
        for (int round = 0; round < 20; round++) {
            List<CompletableFuture<Long>> inFlight = new ArrayList<>();
            for (int i = 0; i < IN_FLIGHT; i++) {
                inFlight.add(ids.nextAsync());
            }
            long previous = highestBefore;
            for (CompletableFuture<Long> f : inFlight) {
                long id = f.get(30, TimeUnit.SECONDS);
                assertTrue(all.add(id), "ID " + id + " handed out twice");
                // sent one after another on one session: answered (and numbered) in that order
                assertTrue(id > previous, "round " + round + ": " + id + " after " + previous + " in sending order");
                previous = id;
            }
            // every call of this round was made after every call of the last round completed
            long lowest = inFlight.stream().mapToLong(CompletableFuture::join).min().orElseThrow();
            assertTrue(lowest > highestBefore, "real-time order: " + lowest + " after " + highestBefore);
            highestBefore = previous;
        }
        assertEquals(20 * IN_FLIGHT, all.size());
    }

    @Test
    void completionsRunOnTheCallersExecutorNeverOnAnEventThread() throws Exception {
        SequenceIds ids = SequenceIds.open(zk.newClient(), "async-executor");
        ids.next(); // checked and created: the next call's write goes out at once
        CountDownLatch hold = new CountDownLatch(1);
        ExecutorService caller = Executors.newSingleThreadExecutor(r -> new Thread(r, "caller-executor"));
        try {
            caller.execute(() -> awaitQuietly(hold)); // completions queue behind this until released
            List<CompletableFuture<String>> ran = new ArrayList<>();
            for (int i = 0; i < IN_FLIGHT; i++) {
                ran.add(ids.nextAsync(caller).thenApply(id -> Thread.currentThread().getName()));
            }
            hold.countDown();
            for (CompletableFuture<String> f : ran) {
                assertEquals("caller-executor", f.get(30, TimeUnit.SECONDS));
            }
            AtomicReference<String> byDefault = new AtomicReference<>();
            CompletableFuture<Long> f = new CompletableFuture<>();
            ids.nextAsync().whenComplete((id, e) -> {
                byDefault.set(Thread.currentThread().getName());
                f.complete(id);
            });
            f.get(30, TimeUnit.SECONDS);
            String thread = byDefault.get();
            assertTrue(thread.startsWith("ForkJoinPool.commonPool") || thread.equals(Thread.currentThread().getName()),
                    "the default executor is the common pool (or the caller, if it was already done): " + thread);
        } finally {
            caller.shutdownNow();
            assertTrue(caller.awaitTermination(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void aCallCancelledBeforeItsWriteWasSentSendsNothingAndLeavesNoNode() throws Exception {
        CoordClient client = zk.newClient();
        SequenceIds first = SequenceIds.open(client, "async-cancel");
        long before = first.next();
        String counter = Layout.sequenceNode("async-cancel").value();
        int version = client.curator().checkExists().forPath(counter).getVersion();
        CountDownLatch hold = new CountDownLatch(1);
        ExecutorService caller = Executors.newSingleThreadExecutor(r -> new Thread(r, "caller-cancel"));
        try {
            caller.execute(() -> awaitQuietly(hold)); // a new generator's first check waits behind this
            SequenceIds fresh = SequenceIds.open(client, "async-cancel");
            List<CompletableFuture<Long>> cancelled = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                CompletableFuture<Long> f = fresh.nextAsync(caller);
                assertTrue(f.cancel(false), "cancelled while queued");
                cancelled.add(f);
            }
            hold.countDown();
            long after = fresh.nextAsync(caller).get(30, TimeUnit.SECONDS);
            assertTrue(cancelled.stream().allMatch(CompletableFuture::isCancelled));
            assertEquals(version + 1, client.curator().checkExists().forPath(counter).getVersion(),
                    "only the call that was not cancelled wrote the counter");
            assertEquals(before + 1, after, "no ID was taken by a cancelled call");
            assertEquals(List.of(Layout.SEQUENCE), client.curator().getChildren().forPath(Layout.IDS.child("async-cancel").value()),
                    "no node left behind");
        } finally {
            caller.shutdownNow();
            assertTrue(caller.awaitTermination(10, TimeUnit.SECONDS));
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
