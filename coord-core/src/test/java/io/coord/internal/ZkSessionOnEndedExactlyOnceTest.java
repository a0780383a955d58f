package io.coord.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.coord.CoordSession;
import io.coord.SessionListener;
import io.coord.SessionState;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Regression (found while building coord-test): {@link ZkSession#addListener} adds the listener, then reads the state and, if terminal, calls
 * {@code onEnded} itself. If the move to EXPIRED runs between the two steps, its
 * {@code listeners.forEach} already includes the new listener, so {@code onEnded} is delivered
 * twice — against {@link SessionListener}'s "onEnded is the last call, exactly once" — and the
 * second call bypasses the registration's sequential executor.
 * Fixed first by making "add, or deliver the final event to a late listener" one step with the
 * move to a terminal state under a lock; now, since listeners are never told under a lock, by
 * handing the final event to whichever of the two comes first ({@code ZkSession.FinalOnce}).
 * Races many adds against the end of many sessions.
 */
class ZkSessionOnEndedExactlyOnceTest {
    @Test
    void everyListenerGetsOnEndedExactlyOnceEvenWhenAddedWhileTheSessionEnds() throws InterruptedException {
        Executor direct = Runnable::run;
        AtomicInteger duplicates = new AtomicInteger();
        List<Integer> seen = new ArrayList<>();
        for (int round = 0; round < 20_000 && duplicates.get() == 0; round++) {
            ZkSession session = new ZkSession(round + 1);
            List<AtomicInteger> ends = new ArrayList<>();
            CountDownLatch go = new CountDownLatch(1);
            Thread adder = new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                for (int i = 0; i < 20; i++) {
                    AtomicInteger count = new AtomicInteger();
                    synchronized (ends) {
                        ends.add(count);
                    }
                    session.addListener(new SessionListener() {
                        @Override
                        public void onEnded(CoordSession s, SessionState finalState) {
                            count.incrementAndGet();
                        }
                    }, direct);
                }
            });
            adder.start();
            go.countDown();
            session.apply(SessionEvent.EXPIRE);
            adder.join();
            synchronized (ends) {
                for (AtomicInteger c : ends) {
                    if (c.get() != 1) {
                        duplicates.incrementAndGet();
                        seen.add(c.get());
                    }
                }
            }
        }
        assertEquals(0, duplicates.get(), "listeners whose onEnded was not delivered exactly once (deliveries: " + seen + ")");
    }
}
