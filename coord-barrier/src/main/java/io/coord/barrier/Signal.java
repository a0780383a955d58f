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
 */
final class Signal implements Watcher, AutoCloseable {
    private final Object lock = new Object();
    private final List<Registration> registrations = new ArrayList<>();
    private long epoch;

    /** A signal that also wakes on every change of {@code zk}'s session (suspend, reconnect, end, new session). */
    static Signal open(Zk zk) {
        Signal signal = new Signal();
        SessionListener wake = new SessionListener() {
            @Override
            public void onSuspended(CoordSession s) {
                signal.fire();
            }

            @Override
            public void onReconnected(CoordSession s) {
                signal.fire();
            }

            @Override
            public void onEnded(CoordSession s, SessionState finalState) {
                signal.fire();
            }
        };
        signal.registrations.add(zk.client().onNewSession(s -> signal.fire(), zk.events()));
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
