package io.coord.internal;

import static io.coord.SessionState.CLOSED;
import static io.coord.SessionState.CONNECTED;
import static io.coord.SessionState.EXPIRED;
import static io.coord.SessionState.SUSPENDED;
import static io.coord.internal.SessionEvent.CLOSE;
import static io.coord.internal.SessionEvent.EXPIRE;
import static io.coord.internal.SessionEvent.RECONNECT;
import static io.coord.internal.SessionEvent.SUSPEND;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.SessionState;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Walks every (state, event) pair of the session machine against the graph drawn on {@link SessionState}. */
class SessionRuleTest {
    /** The expected table; null = the event changes nothing. */
    private static final Map<SessionState, Map<SessionEvent, SessionState>> TABLE = new EnumMap<>(SessionState.class);

    static {
        put(CONNECTED, SUSPEND, SUSPENDED);
        put(CONNECTED, RECONNECT, null);
        put(CONNECTED, EXPIRE, EXPIRED);
        put(CONNECTED, CLOSE, CLOSED);
        put(SUSPENDED, SUSPEND, null);
        put(SUSPENDED, RECONNECT, CONNECTED);
        put(SUSPENDED, EXPIRE, EXPIRED);
        put(SUSPENDED, CLOSE, CLOSED);
        for (SessionEvent e : SessionEvent.values()) {
            put(EXPIRED, e, null);
            put(CLOSED, e, null);
        }
    }

    private static void put(SessionState s, SessionEvent e, SessionState to) {
        TABLE.computeIfAbsent(s, k -> new EnumMap<>(SessionEvent.class)).put(e, to);
    }

    @Test
    void everyStateEventPairFollowsTheTable() {
        int pairs = 0;
        for (SessionState s : SessionState.values()) {
            for (SessionEvent e : SessionEvent.values()) {
                assertTrue(TABLE.get(s).containsKey(e), "table misses " + s + "/" + e);
                assertEquals(Optional.ofNullable(TABLE.get(s).get(e)), SessionRule.next(s, e), s + " on " + e);
                pairs++;
            }
        }
        assertEquals(SessionState.values().length * SessionEvent.values().length, pairs);
    }

    @Test
    void aSessionObjectMovesAlongTheTableFromEveryReachableState() {
        // Every pair again, on a real ZkSession driven into each state first.
        for (SessionState s : SessionState.values()) {
            for (SessionEvent e : SessionEvent.values()) {
                ZkSession session = new ZkSession(1);
                switch (s) {
                    case CONNECTED -> { }
                    case SUSPENDED -> session.apply(SUSPEND);
                    case EXPIRED -> session.apply(EXPIRE);
                    case CLOSED -> session.apply(CLOSE);
                }
                assertEquals(s, session.state());
                Optional<SessionState> expected = Optional.ofNullable(TABLE.get(s).get(e));
                assertEquals(expected.isPresent(), session.apply(e), s + " on " + e + ": moved");
                assertEquals(expected.orElse(s), session.state(), s + " on " + e);
                assertEquals(session.state().isTerminal(), session.ended().isDone(), s + " on " + e + ": ended()");
            }
        }
    }

    @Test
    void terminalStatesAreTheOnesNoEventLeaves() {
        for (SessionState s : SessionState.values()) {
            boolean leaves = false;
            for (SessionEvent e : SessionEvent.values()) {
                leaves |= SessionRule.next(s, e).isPresent();
            }
            assertEquals(!s.isTerminal(), leaves, s.toString());
        }
    }
}
