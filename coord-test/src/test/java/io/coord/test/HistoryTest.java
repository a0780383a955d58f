package io.coord.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.ConflictException;
import io.coord.ConnectionLostException;
import io.coord.CoordTimeoutException;
import io.coord.SessionExpiredException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.Test;

class HistoryTest {
    @Test
    void connectionLossAndTimeoutsAreIndeterminateNeverFailures() {
        assertEquals(History.Outcome.INFO, History.classify(new ConnectionLostException("x")));
        assertEquals(History.Outcome.INFO, History.classify(new KeeperException.ConnectionLossException()));
        assertEquals(History.Outcome.INFO, History.classify(new KeeperException.OperationTimeoutException()));
        assertEquals(History.Outcome.INFO, History.classify(new KeeperException.RequestTimeoutException()));
        assertEquals(History.Outcome.INFO, History.classify(new CoordTimeoutException("x")));
        assertEquals(History.Outcome.INFO, History.classify(new TimeoutException()));
        // wrapped somewhere down the cause chain
        assertEquals(History.Outcome.INFO, History.classify(new RuntimeException(new IllegalStateException(new KeeperException.ConnectionLossException()))));
    }

    @Test
    void definiteErrorsAreFailures() {
        assertEquals(History.Outcome.FAIL, History.classify(new ConflictException("bad version", null)));
        assertEquals(History.Outcome.FAIL, History.classify(new KeeperException.BadVersionException("/x")));
        assertEquals(History.Outcome.FAIL, History.classify(new SessionExpiredException("gone")));
        assertEquals(History.Outcome.FAIL, History.classify(new IllegalArgumentException()));
    }

    @Test
    void failedClassifiesAndCountsEachOutcome() {
        History h = new History();
        h.invoke("p1", "add", 1).ok(null);
        h.invoke("p1", "add", 2).failed(new ConnectionLostException("lost"));
        h.invoke("p2", "add", 3).failed(new KeeperException.BadVersionException("/x"));
        h.invoke("p2", "add", 4); // never completes
        assertEquals(new History.Counts(1, 1, 1, 1), h.counts());
        assertEquals(4, h.ops().size());
    }

    @Test
    void anOperationCompletesOnlyOnce() {
        History h = new History();
        History.Handle op = h.invoke("p", "w", 1);
        op.ok("done");
        assertThrows(IllegalStateException.class, () -> op.info(new TimeoutException()));
    }

    @Test
    void invokeAndCompleteTimesComeFromTheControllersClock() {
        AtomicLong now = new AtomicLong(100);
        History h = new History(now::get);
        History.Handle op = h.invoke("p", "w", 1);
        now.set(250);
        op.ok(null);
        History.Op recorded = h.ops().get(0);
        assertEquals(100, recorded.invokeNanos());
        assertEquals(250, recorded.completeNanos());
    }

    @Test
    void counterMustEndBetweenAcknowledgedAndAcknowledgedPlusIndeterminate() {
        History h = new History();
        for (int i = 0; i < 5; i++) {
            h.invoke("p", "incr", 1).ok(null);
        }
        h.invoke("p", "incr", 1).info(new ConnectionLostException("?"));
        h.invoke("p", "incr", 1).info(new ConnectionLostException("?"));
        h.invoke("p", "incr", 1).fail(new IllegalStateException("refused"));
        assertTrue(h.checkCounter("incr", 5).valid());
        assertTrue(h.checkCounter("incr", 7).valid()); // both indeterminate ones committed
        History.CounterCheck lost = h.checkCounter("incr", 4);
        assertFalse(lost.valid());
        assertEquals(1, lost.lost());
        assertThrows(AssertionError.class, lost::assertValid);
        assertFalse(h.checkCounter("incr", 8).valid()); // more than could have happened
    }

    @Test
    void setCheckFindsLostInventedAndFailedButPresentValues() {
        History h = new History();
        h.invoke("p", "put", "a").ok(null);
        h.invoke("p", "put", "b").ok(null);
        h.invoke("p", "put", "c").info(new ConnectionLostException("?"));
        h.invoke("p", "put", "d").fail(new IllegalStateException("no"));
        History.SetCheck good = h.checkSet("put", List.of("a", "b", "c"));
        assertTrue(good.valid());
        assertEquals(1, good.indeterminatePresent());
        assertTrue(h.checkSet("put", List.of("a", "b")).valid()); // indeterminate may be absent

        History.SetCheck bad = h.checkSet("put", List.of("a", "z", "d"));
        assertFalse(bad.valid());
        assertEquals(Set.of("b"), bad.lost());
        assertEquals(Set.of("z"), bad.invented());
        assertEquals(Set.of("d"), bad.failedButPresent());
    }

    @Test
    void throughputIsMeasuredBeforeDuringAndAfterFaultWindows() {
        AtomicLong now = new AtomicLong(0);
        History h = new History(now::get);
        long second = 1_000_000_000L;
        // 10 acks in the first second, then a fault window of 1 s with 1 ack, then 10 acks in 1 s
        for (int i = 0; i < 10; i++) {
            History.Handle op = h.invoke("p", "w", i);
            now.addAndGet(second / 10);
            op.ok(null);
        }
        History.FaultWindow w = h.fault("freeze");
        History.Handle slow = h.invoke("p", "w", 10);
        now.addAndGet(second);
        slow.ok(null);
        w.close();
        for (int i = 11; i < 21; i++) {
            History.Handle op = h.invoke("p", "w", i);
            now.addAndGet(second / 10);
            op.ok(null);
        }
        History.Throughput t = h.throughput("w");
        assertEquals(10.0, t.before(), 0.01);
        assertEquals(1.0, t.during(), 0.01);
        assertEquals(10.0, t.after(), 0.01);
        assertEquals(1, t.faults());
        t.assertAtLeast(5, 0.5, 5);
        assertThrows(AssertionError.class, () -> t.assertAtLeast(5, 2, 5));
    }

    @Test
    void aRunThatMadeNoProgressFailsTheThroughputCheck() {
        History h = new History();
        h.invoke("p", "w", 1).info(new TimeoutException());
        h.fault("partition").close();
        assertThrows(AssertionError.class, () -> h.throughput("w").assertAtLeast(1, 0, 0));
    }

    @Test
    void recordingIsThreadSafe() throws InterruptedException {
        History h = new History();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            for (int i = 0; i < 4000; i++) {
                int v = i;
                pool.execute(() -> h.invoke("p" + (v % 4), "incr", v).ok(null));
            }
        } finally {
            pool.shutdown();
            assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
        }
        assertEquals(4000, h.counts().ok());
        assertTrue(h.checkCounter("incr", 4000).valid());
    }

    @Test
    void unfencedControlShowsAStaleWriteThatTheFencedResourceRejects() {
        // The schedule: A holds token 1, pauses; B gets token 2 and writes; A resumes and writes.
        GuardedResource unfenced = GuardedResource.unfenced();
        GuardedResource fenced = GuardedResource.fenced();
        for (GuardedResource r : List.of(unfenced, fenced)) {
            r.enter("A");
            r.enter("B"); // A still believes it holds the lock
            assertTrue(r.write(2));
            boolean staleAccepted = r.write(1);
            assertEquals(r == unfenced, staleAccepted);
            r.exit("A");
            r.exit("B");
        }
        unfenced.violations().assertSomeInControl();
        assertEquals(1, unfenced.violations().staleWrites());
        assertEquals(1, fenced.violations().overlaps()); // overlap is still seen; fencing stops its damage
        assertEquals(0, fenced.violations().staleWrites());
        assertThrows(AssertionError.class, () -> unfenced.violations().assertNone());
        assertThrows(AssertionError.class, () -> Violations.NONE.assertSomeInControl());
        assertEquals(3, new Violations(1, 0, 2, 0).total());
    }
}
