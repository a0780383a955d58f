package io.coord.barrier;

import io.coord.CoordSession;
import io.coord.LeaseListener;
import io.coord.Lease;
import io.coord.CoordException;
import io.coord.Registration;
import io.coord.SessionListener;
import io.coord.SessionState;
import io.coord.internal.Zk;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;

/**
 * Wakes one waiting {@code enter}, {@code leave} or gate {@code await}: a {@link Watcher} for the
 * nodes it reads, and a listener for its session, its seat and new sessions. Every wake-up is only
 * a hint to read again; a counter makes sure that one arriving between the read and the wait is
 * never lost. Spurious wake-ups (a duplicated event, a connection flap, a stray notify) cost one
 * read and change nothing.
 *
 * <p>The root watch (the decision watch: every decision sets the root's data) has its own
 * {@link Watcher}, {@link #rootWatch()}, so that the signal knows whether it is still in place: a
 * waiter whose root watch is armed re-reads without setting another watch, and one whose root
 * watch may be used up re-reads the root with the watch. Without that, every re-read set a watch
 * of its own, and those left over fired into the next phase's release, one more event per member.
 */
final class Signal implements Watcher, AutoCloseable {
    private final Object lock = new Object();
    private final List<Registration> registrations = new ArrayList<>();
    private long epoch;
    /** Events delivered to the root watch (any kind: each may have used up its registration). Guarded by {@link #lock}. */
    private long rootEvents;
    /** Whether the root watch is known to be registered and not fired since. Guarded by {@link #lock}. */
    private boolean rootArmed;
    private final Watcher rootWatch = event -> {
        synchronized (lock) {
            // A node event uses the registration up; so may a connection event (a session that
            // ended takes its watches with it): either way, the next re-read sets it again.
            rootArmed = false;
            rootEvents++;
        }
        fire();
    };

    /** A signal that also wakes on every change of {@code zk}'s session (suspend, reconnect, end, new session). */
    static Signal open(Zk zk) {
        Signal signal = new Signal();
        SessionListener wake = new SessionListener() {
            @Override
            public void onSuspended(CoordSession s) {
                signal.sessionChanged();
            }

            @Override
            public void onReconnected(CoordSession s) {
                signal.sessionChanged();
            }

            @Override
            public void onEnded(CoordSession s, SessionState finalState) {
                signal.sessionChanged();
            }
        };
        signal.registrations.add(zk.client().onNewSession(s -> signal.sessionChanged(), zk.events()));
        try {
            CoordSession session = zk.client().session();
            signal.registrations.add(session.addListener(wake, zk.events()));
        } catch (CoordException noSessionNow) {
            // between sessions: the new-session registration above wakes us when one comes
        }
        return signal;
    }

    /** Also wakes on every state change of {@code lease} (uncertain, restored, lost). */
    void follow(Lease lease) {
        registrations.add(lease.addListener(new LeaseListener() {
            @Override
            public void onUncertain(Lease l) {
                fire();
            }

            @Override
            public void onRestored(Lease l) {
                fire();
            }

            @Override
            public void onLost(Lease l, CoordException cause) {
                fire();
            }
        }, Runnable::run));
    }

    @Override
    public void process(WatchedEvent event) {
        fire();
    }

    /** The watcher for every read of the root by this call; see {@link #rootArmed()}. */
    Watcher rootWatch() {
        return rootWatch;
    }

    /** The count to pass to {@link #rootWatchSet} after a read of the root with {@link #rootWatch()}. */
    long rootEvents() {
        synchronized (lock) {
            return rootEvents;
        }
    }

    /**
     * A read of the root with {@link #rootWatch()}, sent when the count was {@code eventsBefore},
     * was answered (so the watch is registered): armed, unless an event reached the root watch in
     * between (then it may be used up; the next re-read sets it again).
     */
    void rootWatchSet(long eventsBefore) {
        synchronized (lock) {
            if (rootEvents == eventsBefore) {
                rootArmed = true;
            }
        }
    }

    /** Whether the root watch is registered and has not fired (nor seen a connection change) since. */
    boolean rootArmed() {
        synchronized (lock) {
            return rootArmed;
        }
    }

    /** A change of the session (suspended, reconnected, ended, a new one): it may have taken the root watch with it. */
    void sessionChanged() {
        synchronized (lock) {
            rootArmed = false;
            rootEvents++;
        }
        fire();
    }

    void fire() {
        synchronized (lock) {
            epoch++;
            lock.notifyAll();
        }
    }

    /** The current count of wake-ups; pass it to {@link #await} after reading. */
    long epoch() {
        synchronized (lock) {
            return epoch;
        }
    }

    /**
     * Waits until a wake-up after {@code seen} or until {@code deadlineNanos} ({@link System#nanoTime()});
     * returns false if the deadline came first.
     */
    boolean await(long seen, long deadlineNanos) throws InterruptedException {
        synchronized (lock) {
            while (epoch == seen) {
                long remaining = deadlineNanos - System.nanoTime();
                if (remaining <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(lock, remaining);
            }
            return true;
        }
    }

    @Override
    public void close() {
        registrations.forEach(Registration::close);
        registrations.clear();
    }
}
