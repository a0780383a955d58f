package io.coord.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.coord.CoordMetrics;
import io.coord.CoordSession;
import io.coord.SessionListener;
import io.coord.SessionState;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import org.junit.jupiter.api.Test;

/**
 * Regression (issue 15, "listeners are dispatched while ZkSession.endLock and SessionTracker.lock
 * are held"): with a direct executor, a session listener ran inside those locks, so a listener
 * that waited for anything needing them (another move of the session, the tracker seeing a new
 * connection) hung the client's event thread for good. Each test makes a listener wait, with a
 * bound, for another thread that needs the lock; before the fix the other thread could never get it.
 */
class SessionListenersOutsideLocksTest {
    private static final Executor DIRECT = Runnable::run;
    /** A bound for a hang, not a speed check: the other thread does no I/O. */
    private static final long JOIN_MS = 10_000;

    /** Runs {@code action} on another thread and waits for it (bounded); returns whether it finished. */
    private static boolean finishesOnAnotherThread(Runnable action) {
        Thread t = new Thread(action, "other-mover");
        t.start();
        try {
            t.join(JOIN_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        boolean done = !t.isAlive();
        if (!done) {
            t.interrupt();
        }
        return done;
    }

    @Test
    void aListenerOnADirectExecutorCanWaitForAnotherMoveOfItsSessionAndHearsBothInOrder() {
        ZkSession session = new ZkSession(7);
        List<String> heard = new CopyOnWriteArrayList<>();
        List<Boolean> otherFinished = new CopyOnWriteArrayList<>();
        session.addListener(new SessionListener() {
            @Override
            public void onSuspended(CoordSession s) {
                heard.add("suspended");
                otherFinished.add(finishesOnAnotherThread(() -> session.apply(SessionEvent.RECONNECT)));
            }

            @Override
            public void onReconnected(CoordSession s) {
                heard.add("reconnected");
            }
        }, DIRECT);

        session.apply(SessionEvent.SUSPEND);

        assertEquals(List.of(true), otherFinished, "the other thread's move waited for a lock the telling thread held");
        assertEquals(List.of("suspended", "reconnected"), heard, "told in the order of the moves, the second after the first returned");
        assertEquals(SessionState.CONNECTED, session.state());
    }

    @Test
    void anEndedListenerOnADirectExecutorCanWaitForTheTrackerToSeeANewConnection() {
        SessionTracker tracker = new SessionTracker(CoordMetrics.noop(), DIRECT);
        tracker.observeConnected(0x10);
        ZkSession first = tracker.current();
        List<Boolean> otherFinished = new CopyOnWriteArrayList<>();
        List<SessionState> ends = new CopyOnWriteArrayList<>();
        first.addListener(new SessionListener() {
            @Override
            public void onEnded(CoordSession s, SessionState finalState) {
                ends.add(finalState);
                otherFinished.add(finishesOnAnotherThread(() -> tracker.observeConnected(0x20)));
            }
        }, DIRECT);

        tracker.observeConnected(0x20); // a new session id: the first session EXPIRED

        assertEquals(List.of(SessionState.EXPIRED), ends, "onEnded exactly once");
        assertEquals(List.of(true), otherFinished, "the tracker was still locked while the old session's listeners ran");
        assertEquals(0x20, tracker.current().id());
        assertFalse(tracker.current().state().isTerminal());
        tracker.close();
    }
}
