package io.coord.internal;

import io.coord.CoordException;
import io.coord.LeaseState;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The current state of one lease: one {@link AtomicReference} to a self-validating snapshot,
 * moved only by {@link #apply} along {@link LeaseRule}'s table. Thread-safe and lock-free.
 */
public final class LeaseStateMachine {
    /** One state, with its cause exactly when LOST, and the monotonic time it was entered. */
    public record Snapshot(LeaseState state, CoordException cause, long sinceNanos) {
        public Snapshot {
            if (state == null) {
                throw new IllegalArgumentException("state is null");
            }
            if ((state == LeaseState.LOST) != (cause != null)) {
                throw new IllegalArgumentException("a cause is required exactly when the state is LOST; state="
                        + state + ", cause=" + cause);
            }
        }
    }

    /** A move that happened: from which snapshot to which. */
    public record Transition(Snapshot from, Snapshot to) {
    }

    private final AtomicReference<Snapshot> current;

    public LeaseStateMachine() {
        current = new AtomicReference<>(new Snapshot(LeaseState.ACQUIRED, null, System.nanoTime()));
    }

    public Snapshot snapshot() {
        return current.get();
    }

    public LeaseState state() {
        return current.get().state();
    }

    /**
     * Applies {@code event}; returns the transition if the state changed, empty if the table
     * says the event changes nothing here. {@code cause} is required for {@link LeaseEvent#LOSE}.
     */
    public Optional<Transition> apply(LeaseEvent event, CoordException cause) {
        if (event == LeaseEvent.LOSE && cause == null) {
            throw new IllegalArgumentException("LOSE needs a cause");
        }
        while (true) {
            Snapshot from = current.get();
            Optional<LeaseState> to = LeaseRule.next(from.state(), event);
            if (to.isEmpty()) {
                return Optional.empty();
            }
            Snapshot next = new Snapshot(to.get(), to.get() == LeaseState.LOST ? cause : null, System.nanoTime());
            if (transition(from, next)) {
                return Optional.of(new Transition(from, next));
            }
        }
    }

    /** The one place the state moves; an illegal move is a bug and fails loudly. */
    private boolean transition(Snapshot expectedFrom, Snapshot to) {
        if (!LeaseRule.isLegal(expectedFrom.state(), to.state())) {
            throw new IllegalStateException("illegal lease transition " + expectedFrom.state() + " -> " + to.state());
        }
        return current.compareAndSet(expectedFrom, to);
    }

    @Override
    public String toString() {
        return "LeaseStateMachine[" + current.get().state() + "]";
    }
}
