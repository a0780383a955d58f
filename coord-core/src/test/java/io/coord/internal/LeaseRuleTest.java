package io.coord.internal;

import static io.coord.LeaseState.ACQUIRED;
import static io.coord.LeaseState.LOST;
import static io.coord.LeaseState.RELEASED;
import static io.coord.LeaseState.UNCERTAIN;
import static io.coord.internal.LeaseEvent.CONFIRM;
import static io.coord.internal.LeaseEvent.LOSE;
import static io.coord.internal.LeaseEvent.RELEASE;
import static io.coord.internal.LeaseEvent.SUSPECT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.LeaseState;
import io.coord.LockLostException;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Walks every (state, event) pair of the lease machine against the table in ARCHITECTURE.md. */
class LeaseRuleTest {
    /** The expected table; null = the event changes nothing. */
    private static final Map<LeaseState, Map<LeaseEvent, LeaseState>> TABLE = new EnumMap<>(LeaseState.class);

    static {
        put(ACQUIRED, SUSPECT, UNCERTAIN);
        put(ACQUIRED, CONFIRM, null);
        put(ACQUIRED, LOSE, LOST);
        put(ACQUIRED, RELEASE, RELEASED);
        put(UNCERTAIN, SUSPECT, null);
        put(UNCERTAIN, CONFIRM, ACQUIRED);
        put(UNCERTAIN, LOSE, LOST);
        put(UNCERTAIN, RELEASE, RELEASED);
        for (LeaseEvent e : LeaseEvent.values()) {
            put(LOST, e, null);
            put(RELEASED, e, null);
        }
    }

    private static void put(LeaseState s, LeaseEvent e, LeaseState to) {
        TABLE.computeIfAbsent(s, k -> new EnumMap<>(LeaseEvent.class)).put(e, to);
    }

    @Test
    void everyStateEventPairFollowsTheTable() {
        int pairs = 0;
        for (LeaseState s : LeaseState.values()) {
            for (LeaseEvent e : LeaseEvent.values()) {
                assertTrue(TABLE.get(s).containsKey(e), "table misses " + s + "/" + e);
                assertEquals(Optional.ofNullable(TABLE.get(s).get(e)), LeaseRule.next(s, e), s + " on " + e);
                pairs++;
            }
        }
        assertEquals(LeaseState.values().length * LeaseEvent.values().length, pairs);
    }

    @Test
    void terminalStatesNeverMove() {
        for (LeaseState s : LeaseState.values()) {
            if (s.isTerminal()) {
                for (LeaseState to : LeaseState.values()) {
                    assertFalse(LeaseRule.isLegal(s, to), s + " -> " + to);
                }
            }
        }
    }

    @Test
    void machineFollowsTheTableFromEveryReachableState() {
        for (LeaseState start : LeaseState.values()) {
            for (LeaseEvent e : LeaseEvent.values()) {
                LeaseStateMachine m = reach(start);
                var moved = m.apply(e, e == LOSE ? new LockLostException("test") : null);
                LeaseState expected = TABLE.get(start).get(e);
                assertEquals(expected != null, moved.isPresent(), start + " on " + e);
                assertEquals(expected == null ? start : expected, m.state(), start + " on " + e);
                assertEquals(m.state() == LOST, m.snapshot().cause() != null, "cause present exactly when LOST");
            }
        }
    }

    @Test
    void snapshotRefusesACauseOutsideLostAndLostWithoutCause() {
        assertThrows(IllegalArgumentException.class, () -> new LeaseStateMachine.Snapshot(LOST, null, 0));
        assertThrows(IllegalArgumentException.class,
                () -> new LeaseStateMachine.Snapshot(ACQUIRED, new LockLostException("x"), 0));
    }

    @Test
    void loseWithoutACauseIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new LeaseStateMachine().apply(LOSE, null));
    }

    private static LeaseStateMachine reach(LeaseState state) {
        LeaseStateMachine m = new LeaseStateMachine();
        switch (state) {
            case ACQUIRED -> { }
            case UNCERTAIN -> m.apply(SUSPECT, null);
            case LOST -> m.apply(LOSE, new LockLostException("reach"));
            case RELEASED -> m.apply(RELEASE, null);
        }
        assertEquals(state, m.state());
        return m;
    }
}
