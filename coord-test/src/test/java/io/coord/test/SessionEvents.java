package io.coord.test;

import io.coord.CoordClient;
import io.coord.CoordSession;
import io.coord.SessionListener;
import io.coord.SessionState;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;

/** Records a client's session events with the controller's nanoTime, for assertions and figures. */
final class SessionEvents implements SessionListener {
    enum Kind { SUSPENDED, RECONNECTED, ENDED, NEW }

    record Event(Kind kind, long sessionId, SessionState finalState, long nanos) {
    }

    private final List<Event> events = new CopyOnWriteArrayList<>();
    private volatile long mark = System.nanoTime();

    static SessionEvents attach(CoordClient client) {
        SessionEvents rec = new SessionEvents();
        Executor direct = Runnable::run;
        client.session().addListener(rec, direct);
        client.onNewSession(s -> {
            rec.events.add(new Event(Kind.NEW, s.id(), null, System.nanoTime()));
            s.addListener(rec, direct);
        }, direct);
        return rec;
    }

    /** Starts the clock for {@link #await}'s elapsed figure (e.g. when a fault begins). */
    void mark() {
        mark = System.nanoTime();
    }

    List<Event> events() {
        return List.copyOf(events);
    }

    Optional<Event> first(Kind kind) {
        return events.stream().filter(e -> e.kind() == kind).findFirst();
    }

    /** Waits for the first event of {@code kind} after the mark; returns the time from the mark. */
    Duration await(Kind kind, Duration timeout) {
        long from = mark;
        Event e = Awaits.value(kind + " event", timeout,
                () -> events.stream().filter(x -> x.kind() == kind && x.nanos() >= from).findFirst());
        return Duration.ofNanos(e.nanos() - from);
    }

    @Override
    public void onSuspended(CoordSession session) {
        events.add(new Event(Kind.SUSPENDED, session.id(), null, System.nanoTime()));
    }

    @Override
    public void onReconnected(CoordSession session) {
        events.add(new Event(Kind.RECONNECTED, session.id(), null, System.nanoTime()));
    }

    @Override
    public void onEnded(CoordSession session, SessionState finalState) {
        events.add(new Event(Kind.ENDED, session.id(), finalState, System.nanoTime()));
    }
}
