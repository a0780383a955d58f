package io.coord.barrier;

import io.coord.internal.WakeSignal;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;

/**
 * One barrier call's root watch (the decision watch: every decision sets the root's data), on the
 * call's {@link WakeSignal}: it wakes the call like any watch, and it knows whether it is still in
 * place. A waiter whose root watch is armed re-reads without setting another watch, and one whose
 * root watch may be used up re-reads the root with the watch. Without that, every re-read set a
 * watch of its own, and those left over fired into the next phase's release, one more event per
 * member.
 *
 * <p>Used up: by any event delivered to it (a node event uses the registration up; so may a
 * connection event), and by any change of a session the signal follows (a session that ended took
 * its watches with it).
 */
final class RootWatch implements Watcher {
    private final WakeSignal signal;
    private final Object lock = new Object();
    /** Events delivered to this watch. Guarded by {@link #lock}. */
    private long events;
    /** Whether the watch is known to be registered, as of {@link #armedAt}. Guarded by {@link #lock}. */
    private boolean armed;
    /** The {@link #mark()} when the watch was known registered. Guarded by {@link #lock}. */
    private long armedAt;

    RootWatch(WakeSignal signal) {
        this.signal = signal;
    }

    @Override
    public void process(WatchedEvent event) {
        synchronized (lock) {
            events++;
            armed = false;
        }
        signal.fire();
    }

    /**
     * The count to pass to {@link #set} after a read of the root with this watch: it moves on every
     * event of this watch and every session change (both counts only grow, so their sum is
     * unchanged only if neither moved).
     */
    long mark() {
        synchronized (lock) {
            return events + signal.sessionChanges();
        }
    }

    /**
     * A read of the root with this watch, sent when the mark was {@code before}, was answered (so
     * the watch is registered): armed, unless an event or a session change came in between (then
     * it may be used up; the next re-read sets it again).
     */
    void set(long before) {
        synchronized (lock) {
            if (events + signal.sessionChanges() == before) {
                armed = true;
                armedAt = before;
            }
        }
    }

    /** Whether the watch is registered and neither fired nor saw a session change since. */
    boolean armed() {
        synchronized (lock) {
            return armed && events + signal.sessionChanges() == armedAt;
        }
    }
}
