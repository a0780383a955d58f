package io.coord.membership;

import io.coord.membership.Membership.State;
import java.util.Optional;

/**
 * The table of a membership's moves (drawn on {@link State}). Pure: the handle feeds it events and
 * applies what it answers. An event that does not apply in a state (a late SUSPEND while
 * REJOINING, anything after a terminal state) changes nothing.
 */
final class MembershipRule {
    enum Event {
        /** The connection was suspended or the process stalled. */
        SUSPEND,
        /** The same session is back and our node is confirmed. */
        RESTORE,
        /** Our node is gone (session ended, node deleted). */
        NODE_GONE,
        /** A new node was created. */
        REJOINED,
        /** Rejoining is impossible (or turned off). */
        GIVE_UP,
        /** The owner left. */
        LEAVE
    }

    private MembershipRule() {
    }

    static Optional<State> next(State from, Event event) {
        State to = switch (from) {
            case JOINED -> switch (event) {
                case SUSPEND -> State.SUSPENDED;
                case NODE_GONE -> State.REJOINING;
                case GIVE_UP -> State.LOST;
                case LEAVE -> State.LEFT;
                case RESTORE, REJOINED -> null;
            };
            case SUSPENDED -> switch (event) {
                case RESTORE -> State.JOINED;
                case NODE_GONE -> State.REJOINING;
                case GIVE_UP -> State.LOST;
                case LEAVE -> State.LEFT;
                case SUSPEND, REJOINED -> null;
            };
            case REJOINING -> switch (event) {
                case REJOINED -> State.JOINED;
                case GIVE_UP -> State.LOST;
                case LEAVE -> State.LEFT;
                case SUSPEND, RESTORE, NODE_GONE -> null;
            };
            case LOST, LEFT -> null;
        };
        return Optional.ofNullable(to);
    }

    /** Whether {@code from → to} is an edge of the graph. */
    static boolean isLegal(State from, State to) {
        for (Event e : Event.values()) {
            if (next(from, e).filter(to::equals).isPresent()) {
                return true;
            }
        }
        return false;
    }
}
