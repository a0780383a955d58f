package io.coord.internal;

import io.coord.SessionState;
import java.util.Optional;

/**
 * The session state machine's table, pure, in the style of {@link LeaseRule}: {@code next(state,
 * event)} is the state the event leads to, or empty when it changes nothing (a repeat, or anything
 * after a terminal state: Curator's events and a closing caller race, so a late one is ignored).
 *
 * <pre>
 *              SUSPEND     RECONNECT   EXPIRE    CLOSE
 * CONNECTED    SUSPENDED   -           EXPIRED   CLOSED
 * SUSPENDED    -           CONNECTED   EXPIRED   CLOSED
 * EXPIRED      -           -           -         -
 * CLOSED       -           -           -         -
 * </pre>
 */
public final class SessionRule {
    private SessionRule() {
    }

    public static Optional<SessionState> next(SessionState state, SessionEvent event) {
        return Optional.ofNullable(switch (state) {
            case CONNECTED -> switch (event) {
                case SUSPEND -> SessionState.SUSPENDED;
                case RECONNECT -> null;
                case EXPIRE -> SessionState.EXPIRED;
                case CLOSE -> SessionState.CLOSED;
            };
            case SUSPENDED -> switch (event) {
                case SUSPEND -> null;
                case RECONNECT -> SessionState.CONNECTED;
                case EXPIRE -> SessionState.EXPIRED;
                case CLOSE -> SessionState.CLOSED;
            };
            case EXPIRED, CLOSED -> null;
        });
    }
}
