package io.coord.internal;

/** What can happen to a session; {@link SessionRule} says what each does in each state. */
public enum SessionEvent {
    /** Curator reported the connection SUSPENDED (or READ_ONLY, which Coord never asks for). */
    SUSPEND,
    /** A connection came back with this session's id. */
    RECONNECT,
    /** Curator reported LOST, or a connection came back with another session id. */
    EXPIRE,
    /** The client is closing. */
    CLOSE
}
