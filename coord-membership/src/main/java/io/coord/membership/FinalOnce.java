package io.coord.membership;

import io.coord.CoordException;
import io.coord.CoordSession;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A membership listener that hears at most one final call, and nothing after it: a late
 * registration can race the end itself, and both the end and the replay for the late listener may
 * hand it the final call; the first one through its sequential executor wins.
 */
final class FinalOnce implements Membership.Listener {
    private final Membership.Listener delegate;
    private final AtomicBoolean ended = new AtomicBoolean();

    FinalOnce(Membership.Listener delegate) {
        this.delegate = delegate;
    }

    @Override
    public void onSuspended(Membership<?> membership) {
        if (!ended.get()) {
            delegate.onSuspended(membership);
        }
    }

    @Override
    public void onRestored(Membership<?> membership) {
        if (!ended.get()) {
            delegate.onRestored(membership);
        }
    }

    @Override
    public void onNodeLost(Membership<?> membership, CoordException cause) {
        if (!ended.get()) {
            delegate.onNodeLost(membership, cause);
        }
    }

    @Override
    public void onRejoined(Membership<?> membership, CoordSession session) {
        if (!ended.get()) {
            delegate.onRejoined(membership, session);
        }
    }

    @Override
    public void onLost(Membership<?> membership, CoordException cause) {
        if (ended.compareAndSet(false, true)) {
            delegate.onLost(membership, cause);
        }
    }

    @Override
    public void onLeft(Membership<?> membership) {
        if (ended.compareAndSet(false, true)) {
            delegate.onLeft(membership);
        }
    }

    @Override
    public String toString() {
        return delegate.toString();
    }
}
