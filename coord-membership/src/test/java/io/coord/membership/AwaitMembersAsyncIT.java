package io.coord.membership;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordTimeoutException;
import io.coord.test.Awaits;
import io.coord.test.ZooKeeperExtension;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Group.awaitMembersAsync: no thread per pending call, the caller's executor, cancellation withdraws, nanoTime timeouts. */
class AwaitMembersAsyncIT {
    private static final Duration LONG = Duration.ofMinutes(5);
    private static final String CALLER_THREAD = "caller-executor";

    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.single();

    @RegisterExtension
    final Closer closer = new Closer();

    record Meta(int n) {
    }

    private ExecutorService callerExecutor() {
        ExecutorService e = Executors.newSingleThreadExecutor(r -> new Thread(r, CALLER_THREAD));
        closer.add(() -> {
            e.shutdownNow();
            e.awaitTermination(5, TimeUnit.SECONDS);
        });
        return e;
    }

    @Test
    void aThousandPendingCallsParkNoThread() throws Exception {
        Group<Meta> g = closer.add(Group.open(zk.newClient(), "async-threads", Meta.class));
        ExecutorService executor = callerExecutor();
        int before = ManagementFactory.getThreadMXBean().getThreadCount();
        List<CompletableFuture<GroupView<Meta>>> pending = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            pending.add(g.awaitMembersAsync(1, LONG, executor));
        }
        int during = ManagementFactory.getThreadMXBean().getThreadCount();
        assertTrue(during - before < 5, "1000 pending calls started " + (during - before) + " threads");
        assertEquals(1000, ((ZkGroup<Meta>) g).pendingAwaits());
        closer.add(g.join("m1", new Meta(1)));
        for (CompletableFuture<GroupView<Meta>> f : pending) {
            assertTrue(f.get(Awaits.scaled(Duration.ofSeconds(10)).toMillis(), TimeUnit.MILLISECONDS).contains("m1"));
        }
        assertEquals(0, ((ZkGroup<Meta>) g).pendingAwaits());
    }

    @Test
    void completionsAndTimeoutsRunOnTheCallersExecutor() throws Exception {
        Group<Meta> g = closer.add(Group.open(zk.newClient(), "async-executor", Meta.class));
        Group<Meta> joiner = closer.add(Group.open(zk.newClient(), "async-executor", Meta.class));
        ExecutorService executor = callerExecutor();
        AtomicReference<String> completedOn = new AtomicReference<>();
        CompletableFuture<GroupView<Meta>> met = g.awaitMembersAsync(2, LONG, executor);
        CompletableFuture<String> metThread = met.thenApply(v -> Thread.currentThread().getName());
        closer.add(joiner.join("a", new Meta(1)));
        assertEquals(1, ((ZkGroup<Meta>) g).pendingAwaits(), "one of two members must not complete it");
        closer.add(joiner.join("b", new Meta(2)));
        assertEquals(CALLER_THREAD, metThread.get(Awaits.scaled(Duration.ofSeconds(10)).toMillis(), TimeUnit.MILLISECONDS));
        assertEquals(2, met.get().size());

        CompletableFuture<GroupView<Meta>> late = g.awaitMembersAsync(3, Duration.ofMillis(200), executor);
        CompletableFuture<Void> lateThread = late.handle((v, e) -> {
            completedOn.set(Thread.currentThread().getName());
            return null;
        });
        lateThread.get(Awaits.scaled(Duration.ofSeconds(10)).toMillis(), TimeUnit.MILLISECONDS);
        assertEquals(CALLER_THREAD, completedOn.get());

        // Met at once: still completed on the executor, never on the calling thread.
        CountDownLatch hold = new CountDownLatch(1);
        executor.execute(() -> awaitQuietly(hold));
        CompletableFuture<GroupView<Meta>> already = g.awaitMembersAsync(2, LONG, executor);
        assertTrue(!already.isDone(), "completed on the calling thread while the caller's executor was busy");
        hold.countDown();
        assertEquals(2, already.get(Awaits.scaled(Duration.ofSeconds(10)).toMillis(), TimeUnit.MILLISECONDS).size());
        assertEquals(0, ((ZkGroup<Meta>) g).pendingAwaits());
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void aTimeoutFailsNoSoonerThanAskedNamingTheGroupAndWhoIsThere() throws Exception {
        Group<Meta> g = closer.add(Group.open(zk.newClient(), "async-timeout", Meta.class));
        closer.add(g.join("only", new Meta(1)));
        Awaits.until("the view holds 'only'", Duration.ofSeconds(10), () -> g.view().contains("only"));
        Duration timeout = Duration.ofMillis(300);
        long start = System.nanoTime();
        CompletableFuture<GroupView<Meta>> f = g.awaitMembersAsync(2, timeout, callerExecutor());
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> f.get(Awaits.scaled(Duration.ofSeconds(10)).toMillis(), TimeUnit.MILLISECONDS));
        long elapsed = System.nanoTime() - start;
        assertInstanceOf(CoordTimeoutException.class, e.getCause());
        assertTrue(elapsed >= timeout.toNanos(), "failed after " + elapsed + " ns, before the " + timeout + " timeout");
        String message = e.getCause().getMessage();
        assertTrue(message.contains("async-timeout") && message.contains("1 of the 2") && message.contains("only"), message);
        assertEquals(0, ((ZkGroup<Meta>) g).pendingAwaits());
    }

    @Test
    void cancellingWithdrawsTheCallAndNothingRunsForIt() throws Exception {
        Group<Meta> g = closer.add(Group.open(zk.newClient(), "async-cancel", Meta.class));
        AtomicInteger tasks = new AtomicInteger();
        ExecutorService real = callerExecutor();
        CompletableFuture<GroupView<Meta>> f = g.awaitMembersAsync(1, LONG, r -> {
            tasks.incrementAndGet();
            real.execute(r);
        });
        assertEquals(1, ((ZkGroup<Meta>) g).pendingAwaits());
        assertTrue(f.cancel(true));
        assertEquals(0, ((ZkGroup<Meta>) g).pendingAwaits(), "a cancelled call must be withdrawn");
        closer.add(g.join("m", new Meta(1)));
        Awaits.until("the view holds 'm'", Duration.ofSeconds(10), () -> g.view().contains("m"));
        assertEquals(0, tasks.get(), "nothing may run for a cancelled call");
        assertTrue(f.isCancelled());
    }

    @Test
    void closingTheGroupFailsPendingCallsAndBadInputIsRefusedNamingIt() throws Exception {
        Group<Meta> g = Group.open(zk.newClient(), "async-close", Meta.class);
        ExecutorService executor = callerExecutor();
        CompletableFuture<GroupView<Meta>> f = g.awaitMembersAsync(1, LONG, executor);
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class, () -> g.awaitMembersAsync(-1, LONG, executor));
        assertTrue(bad.getMessage().contains("-1"), bad.getMessage());
        bad = assertThrows(IllegalArgumentException.class, () -> g.awaitMembersAsync(1, Duration.ofSeconds(-2), executor));
        assertTrue(bad.getMessage().contains("PT-2S"), bad.getMessage());
        g.close();
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> f.get(Awaits.scaled(Duration.ofSeconds(10)).toMillis(), TimeUnit.MILLISECONDS));
        assertInstanceOf(IllegalStateException.class, e.getCause());
        assertTrue(e.getCause().getMessage().contains("async-close"), e.getCause().getMessage());
        assertThrows(IllegalStateException.class, () -> g.awaitMembersAsync(1, LONG, executor));
    }
}
