package io.coord.internal;

import io.coord.LeaseState;
import java.util.Optional;

/**
 * The lease state machine's table, pure. {@code next(state, event)} is the state the event leads
 * to, or empty when the event changes nothing (a repeat, or anything after a terminal state:
 * events race with each other, so a late one is ignored, never an error).
 *
 * <pre>
 *              SUSPECT     CONFIRM    LOSE   RELEASE
 * ACQUIRED     UNCERTAIN   -          LOST   RELEASED
 * UNCERTAIN    -           ACQUIRED   LOST   RELEASED
 * LOST         -           -          -      -
 * RELEASED     -           -          -      -
 * </pre>
 */
public final class LeaseRule {
    private LeaseRule() {
    }

    public static Optional<LeaseState> next(LeaseState state, LeaseEvent event) {
        return Optional.ofNullable(switch (state) {
            case ACQUIRED -> switch (event) {
                case SUSPECT -> LeaseState.UNCERTAIN;
                case CONFIRM -> null;
                case LOSE -> LeaseState.LOST;
                case RELEASE -> LeaseState.RELEASED;
            };
            case UNCERTAIN -> switch (event) {
                case SUSPECT -> null;
                case CONFIRM -> LeaseState.ACQUIRED;
                case LOSE -> LeaseState.LOST;
                case RELEASE -> LeaseState.RELEASED;
            };
            case LOST, RELEASED -> null;
        });
    }

    /** Whether {@code from → to} is a move the table allows (used to reject illegal transitions). */
    public static boolean isLegal(LeaseState from, LeaseState to) {
        for (LeaseEvent e : LeaseEvent.values()) {
            if (next(from, e).filter(to::equals).isPresent()) {
                return true;
            }
        }
        return false;
    }
}
