package io.coord.internal;

import static io.coord.CoreTestSupport.await;
import static io.coord.CoreTestSupport.scaled;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** A client's timer keeps a single-threaded scheduler's contract while the JVM's clients share the thread that waits. */
class ClientTimerTest {

    @Test
    void tasksRunOneAtATimeInDueOrderOnTheClientsOwnThreadNeverOnTheSharedOne() throws Exception {
        ClientTimer timer = ClientTimer.open("coord-timer-test");
        try {
            List<String> ran = new CopyOnWriteArrayList<>();
            CountDownLatch done = new CountDownLatch(3);
            for (int delay : new int[] {60, 20, 40}) {
                timer.schedule(() -> {
                    ran.add(delay + "@" + Thread.currentThread().getName());
                    done.countDown();
                }, delay, TimeUnit.MILLISECONDS);
            }
            assertTrue(done.await(scaled(Duration.ofSeconds(10)).toMillis(), TimeUnit.MILLISECONDS), "ran: " + ran);
            assertEquals(List.of("20@coord-timer-test", "40@coord-timer-test", "60@coord-timer-test"), ran);
            assertEquals("coord-timer-test", timer.schedule(() -> Thread.currentThread().getName(), 0, TimeUnit.NANOSECONDS)
                    .get(10, TimeUnit.SECONDS));
        } finally {
            timer.shutdownNow();
        }
    }

    @Test
    void aCancelledTaskNeverRunsAndAPeriodicOneStopsWhenCancelled() throws Exception {
        ClientTimer timer = ClientTimer.open("coord-timer-test");
        try {
            AtomicInteger cancelledRuns = new AtomicInteger();
            ScheduledFuture<?> cancelled = timer.schedule(cancelledRuns::incrementAndGet, 50, TimeUnit.MILLISECONDS);
            assertTrue(cancelled.cancel(false));
            AtomicInteger ticks = new AtomicInteger();
            ScheduledFuture<?> periodic = timer.scheduleWithFixedDelay(ticks::incrementAndGet, 0, 5, TimeUnit.MILLISECONDS);
            await(Duration.ofSeconds(10), () -> ticks.get() >= 3, () -> "the periodic task ran three times: " + ticks);
            periodic.cancel(false);
            int afterCancel = ticks.get();
            // what was due at the cancel may still finish; after it, nothing more
            timer.schedule(() -> { }, 100, TimeUnit.MILLISECONDS).get(10, TimeUnit.SECONDS);
            assertTrue(ticks.get() <= afterCancel + 1, "stopped at " + afterCancel + ", now " + ticks);
            assertEquals(0, cancelledRuns.get(), "the cancelled task never ran");
            assertTrue(cancelled.isCancelled() && periodic.isCancelled());
        } finally {
            timer.shutdownNow();
        }
    }

    @Test
    void shutdownCancelsWhatIsScheduledRefusesNewWorkAndTheLastTimerEndsTheSharedThread() throws Exception {
        boolean sharedBefore = schedulerAlive();
        ClientTimer first = ClientTimer.open("coord-timer-test-1");
        ClientTimer second = ClientTimer.open("coord-timer-test-2");
        AtomicInteger ran = new AtomicInteger();
        ScheduledFuture<?> pending = first.schedule(ran::incrementAndGet, 1, TimeUnit.HOURS);
        first.tickOnSharedThread(ran::incrementAndGet, 1, TimeUnit.HOURS);
        first.shutdownNow();
        assertTrue(pending.isCancelled(), "a task not yet due is cancelled");
        assertThrows(RejectedExecutionException.class, () -> first.schedule(() -> { }, 1, TimeUnit.MILLISECONDS));
        assertThrows(RejectedExecutionException.class, () -> first.execute(() -> { }));
        assertTrue(first.awaitTermination(10, TimeUnit.SECONDS) && first.isTerminated());
        assertEquals("coord-timer-test-2", second.submit(() -> Thread.currentThread().getName()).get(10, TimeUnit.SECONDS),
                "the other timer goes on");
        assertTrue(schedulerAlive(), "the shared thread serves the timer still open");
        second.shutdown();
        assertEquals(0, ran.get());
        Assumptions.assumeFalse(sharedBefore, "another client of this JVM holds the shared thread");
        await(Duration.ofSeconds(10), () -> !schedulerAlive(), () -> "the shared thread ends with the last timer");
    }

    private static boolean schedulerAlive() {
        return Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.isAlive() && t.getName().equals(SharedScheduler.THREAD_NAME));
    }
}
