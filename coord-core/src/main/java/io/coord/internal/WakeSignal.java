package io.coord.internal;

import io.coord.CoordException;
import io.coord.CoordSession;
import io.coord.Lease;
import io.coord.LeaseListener;
import io.coord.Registration;
import io.coord.SessionListener;
import io.coord.SessionState;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.WatcherRemoveCuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;

/**
 * Wakes one waiting recipe call (a lock waiter, a candidate, a barrier member) when something it
 * decided on may have changed: a node it watches, a lease it follows, its session, or an explicit
 * {@link #fire()} from any thread. Every wake-up is only a hint to read again and decide: the
 * recipe never trusts an event alone.
 *
 * <p>The shape every caller follows: {@code seen = epoch()}, read ZooKeeper (setting watches
 * through {@link #watching()} with this signal as the {@link Watcher}), decide, then
 * {@code await(seen, deadline)}. The epoch counts wake-ups, so one that arrives between the read
 * and the wait is never lost: the wait returns at once.
 *
 * <p>What woke it is also recorded, for a caller that decides from it ({@link #take()}): the
 * watched nodes deleted or changed, and whether a followed session ended (a watch never fires
 * then). The listeners registered here only count and notify, so they run directly on whichever
 * thread delivers them (ZooKeeper's or Coord's event thread) without blocking it.
 *
 * <p>Closing ends the registrations and removes the watches still set (unless they were
 * {@linkplain #handOffWatches() handed off}).
 */
public final class WakeSignal implements Watcher, AutoCloseable {
    /**
     * What woke a waiter since the last {@link #take()}: the paths of watched nodes that went or
     * changed; and whether a followed session has ended (it stays true: an end is final).
     */
    public record Wakes(Set<String> gone, Set<String> changed, boolean sessionEnded) {
        public Wakes {
            gone = Set.copyOf(gone);
            changed = Set.copyOf(changed);
        }

        /** Whether nothing was recorded (a wake-up by a connection event, a lease, a fire, or none). */
        public boolean isEmpty() {
            return gone.isEmpty() && changed.isEmpty() && !sessionEnded;
        }
    }

    private final Zk zk;
    private final WatcherRemoveCuratorFramework watching;
    private final Object lock = new Object();
    private final Set<Registration> registrations = new LinkedHashSet<>(); // guarded by lock
    private long epoch; // guarded by lock
    private long sessionChanges; // guarded by lock
    private Set<String> gone = new HashSet<>(); // guarded by lock
    private Set<String> changed = new HashSet<>(); // guarded by lock
    private boolean sessionEnded; // guarded by lock
    private boolean watchesHandedOff; // guarded by lock
    private boolean closed; // guarded by lock
    private java.util.List<Runnable> onWake = new java.util.ArrayList<>(); // guarded by lock

    public WakeSignal(Zk zk) {
        this.zk = zk;
        this.watching = zk.curator().newWatcherRemoveCuratorFramework();
    }

    /** The client to set this waiter's watches through: {@link #close()} removes what is still set. */
    public WatcherRemoveCuratorFramework watching() {
        return watching;
    }

    /** A watch fired (or the connection changed, a {@code None} event): records the node and wakes. */
    @Override
    public void process(WatchedEvent event) {
        java.util.List<Runnable> woken;
        synchronized (lock) {
            if (event.getType() != Event.EventType.None && event.getPath() != null) {
                (event.getType() == Event.EventType.NodeDeleted ? gone : changed).add(event.getPath());
            }
            woken = wakeLocked();
        }
        woken.forEach(Runnable::run);
    }

    /** Also wakes on {@code session}'s suspension, reconnection and end (recorded: see {@link Wakes#sessionEnded()}). */
    public WakeSignal followSession(CoordSession session) {
        register(session.addListener(new SessionListener() {
            @Override
            public void onSuspended(CoordSession s) {
                sessionChanged(false);
            }

            @Override
            public void onReconnected(CoordSession s) {
                sessionChanged(false);
            }

            @Override
            public void onEnded(CoordSession s, SessionState finalState) {
                sessionChanged(true);
            }
        }, Runnable::run));
        return this;
    }

    /**
     * Also wakes on every change of the client's sessions: the current one's (if it has one now)
     * and each new session after an expiry.
     */
    public WakeSignal followSessions() {
        register(zk.client().onNewSession(s -> sessionChanged(false), Runnable::run));
        CoordSession current;
        try {
            current = zk.client().session();
        } catch (CoordException noSessionNow) {
            return this; // between sessions: the new-session registration above wakes us when one comes
        }
        return followSession(current);
    }

    /**
     * Also wakes on every state change of {@code lease}. The registration may be closed early (a
     * caller that moves on to another lease); {@link #close()} closes it otherwise.
     */
    public Registration follow(Lease lease) {
        Registration listening = lease.addListener(new LeaseListener() {
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

            @Override
            public void onReleased(Lease l) {
                fire();
            }
        }, Runnable::run);
        Registration own = new Registration() {
            @Override
            public void close() {
                synchronized (lock) {
                    registrations.remove(this);
                }
                listening.close();
            }
        };
        register(own);
        return own;
    }

    /** Wakes the waiter; any thread. */
    public void fire() {
        java.util.List<Runnable> woken;
        synchronized (lock) {
            woken = wakeLocked();
        }
        woken.forEach(Runnable::run);
    }

    /**
     * Runs {@code action} once, on the first wake-up after {@code seen} (here and now if there was
     * one already): for a waiter that waits without a thread (an async call). It runs on the
     * waking thread, often ZooKeeper's or Coord's event thread, so it must not block: hand the work
     * on. Never runs after {@link #close()}.
     */
    public void onWake(long seen, Runnable action) {
        synchronized (lock) {
            if (closed) {
                return;
            }
            if (epoch == seen) {
                onWake.add(action);
                return;
            }
        }
        action.run();
    }

    /** The count of wake-ups so far: read it before reading ZooKeeper, pass it to {@link #await}. */
    public long epoch() {
        synchronized (lock) {
            return epoch;
        }
    }

    /**
     * How many changes of followed sessions (suspended, reconnected, ended, a new session) there
     * were so far: each may have taken the watches with it.
     */
    public long sessionChanges() {
        synchronized (lock) {
            return sessionChanges;
        }
    }

    /** The nodes recorded since the last call (cleared now), and whether a followed session has ended. */
    public Wakes take() {
        synchronized (lock) {
            Wakes wakes = new Wakes(gone, changed, sessionEnded);
            gone = new HashSet<>();
            changed = new HashSet<>();
            return wakes;
        }
    }

    /**
     * Waits until a wake-up after {@code seen} or until {@code deadlineNanos} (on
     * {@link System#nanoTime()}); false if the deadline came first.
     */
    public boolean await(long seen, long deadlineNanos) throws InterruptedException {
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

    /** Waits, without a deadline, until a wake-up after {@code seen}. */
    public void await(long seen) throws InterruptedException {
        synchronized (lock) {
            while (epoch == seen) {
                lock.wait();
            }
        }
    }

    /**
     * Hands the watches still set to the caller, to be removed later (with
     * {@link WatcherRemoveCuratorFramework#removeWatchers()}): {@link #close()} leaves them.
     */
    public WatcherRemoveCuratorFramework handOffWatches() {
        synchronized (lock) {
            watchesHandedOff = true;
        }
        return watching;
    }

    /**
     * Closes every registration and removes the watches still set. Not on a closed client nor
     * without a live session: Curator would log an ERROR per watch it cannot remove, and a session
     * that ended took its watches with it. Idempotent.
     */
    @Override
    public void close() {
        Set<Registration> toClose;
        boolean removeWatches;
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            onWake = new java.util.ArrayList<>();
            toClose = new LinkedHashSet<>(registrations);
            registrations.clear();
            removeWatches = !watchesHandedOff;
        }
        toClose.forEach(Registration::close);
        if (removeWatches && zk.curator().getState() == CuratorFrameworkState.STARTED && hasLiveSession()) {
            watching.removeWatchers();
        }
    }

    private boolean hasLiveSession() {
        ZkSession current = zk.sessions().current();
        return current != null && !current.state().isTerminal();
    }

    private void register(Registration registration) {
        boolean late;
        synchronized (lock) {
            late = closed;
            if (!late) {
                registrations.add(registration);
            }
        }
        if (late) {
            registration.close();
        }
    }

    private void sessionChanged(boolean ended) {
        java.util.List<Runnable> woken;
        synchronized (lock) {
            sessionChanges++;
            sessionEnded |= ended;
            woken = wakeLocked();
        }
        woken.forEach(Runnable::run);
    }

    /** Counts a wake-up; returns the {@link #onWake} actions to run, outside the lock. */
    private java.util.List<Runnable> wakeLocked() {
        epoch++;
        lock.notifyAll();
        if (onWake.isEmpty()) {
            return java.util.List.of();
        }
        java.util.List<Runnable> woken = onWake;
        onWake = new java.util.ArrayList<>();
        return woken;
    }

    @Override
    public String toString() {
        synchronized (lock) {
            return "WakeSignal[epoch " + epoch + (closed ? ", closed" : "") + "]";
        }
    }
}
