package io.coord.membership;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.coord.membership.Membership.State;
import io.coord.membership.MembershipRule.Event;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Walks every (state, event) pair against the table of legal moves drawn on {@link State}. */
class MembershipRuleTest {
    private static final Map<State, Map<Event, State>> TABLE = new EnumMap<>(State.class);

    static {
        put(State.JOINED, Event.SUSPEND, State.SUSPENDED);
        put(State.JOINED, Event.NODE_GONE, State.REJOINING);
        put(State.JOINED, Event.GIVE_UP, State.LOST);
        put(State.JOINED, Event.LEAVE, State.LEFT);
        put(State.SUSPENDED, Event.RESTORE, State.JOINED);
        put(State.SUSPENDED, Event.NODE_GONE, State.REJOINING);
        put(State.SUSPENDED, Event.GIVE_UP, State.LOST);
        put(State.SUSPENDED, Event.LEAVE, State.LEFT);
        put(State.REJOINING, Event.REJOINED, State.JOINED);
        put(State.REJOINING, Event.GIVE_UP, State.LOST);
        put(State.REJOINING, Event.LEAVE, State.LEFT);
    }

    private static void put(State from, Event event, State to) {
        TABLE.computeIfAbsent(from, s -> new EnumMap<>(Event.class)).put(event, to);
    }

    @Test
    void everyStateAndEventPairMovesExactlyAsTheTableSays() {
        for (State from : State.values()) {
            for (Event event : Event.values()) {
                Optional<State> expected = Optional.ofNullable(TABLE.getOrDefault(from, Map.of()).get(event));
                assertEquals(expected, MembershipRule.next(from, event), from + " on " + event);
            }
        }
    }

    @Test
    void terminalStatesNeverMove() {
        for (State from : State.values()) {
            if (from.isTerminal()) {
                for (State to : State.values()) {
                    assertEquals(false, MembershipRule.isLegal(from, to), from + " -> " + to);
                }
            }
        }
    }

    @Test
    void legalMovesAreExactlyTheTableEdges() {
        for (State from : State.values()) {
            for (State to : State.values()) {
                boolean edge = TABLE.getOrDefault(from, Map.of()).containsValue(to);
                assertEquals(edge, MembershipRule.isLegal(from, to), from + " -> " + to);
            }
        }
    }
}
