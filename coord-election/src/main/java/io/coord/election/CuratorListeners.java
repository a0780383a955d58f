package io.coord.election;

import io.coord.CoordException;
import io.coord.LeaseState;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.CancelLeadershipException;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.framework.recipes.leader.LeaderSelectorListener;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Curator's leader listeners as {@link LeaderTask}s, so that code typed against
 * {@code LeaderLatchListener} or {@code LeaderSelectorListener} runs on a Coord election
 * unchanged, with Coord's handover and interrupts underneath (the task is interrupted the moment
 * the leadership is UNCERTAIN, LOST or resigned).
 */
final class CuratorListeners {
    private static final Logger LOG = LoggerFactory.getLogger(CuratorListeners.class);

    private CuratorListeners() {
    }

    /**
     * LeaderLatch's shape: {@code isLeader()} when leading starts, {@code notLeader()} when it
     * ends, on {@code serial} (one at a time, in order, so {@code notLeader} never overtakes its
     * {@code isLeader}). The task holds on until it is interrupted.
     */
    static LeaderTask latch(LeaderLatchListener listener, Executor serial, AtomicReference<Leadership> current) {
        return l -> {
            current.set(l);
            tell(serial, listener::isLeader, "isLeader");
            try {
                new java.util.concurrent.CountDownLatch(1).await(); // until the leadership wavers, ends or is stopped
            } finally {
                current.compareAndSet(l, null);
                tell(serial, listener::notLeader, "notLeader");
            }
        };
    }

    private static void tell(Executor serial, Runnable call, String what) {
        try {
            serial.execute(() -> {
                try {
                    call.run();
                } catch (RuntimeException e) {
                    LOG.warn("LeaderLatchListener.{} threw", what, e);
                }
            });
        } catch (RejectedExecutionException e) {
            LOG.warn("the executor refused LeaderLatchListener.{}", what, e);
        }
    }

    /** The thread running {@code takeLeadership}, interruptible from the runner and from {@code stateChanged}. */
    static final class Taker {
        private Thread thread; // guarded by this
        private boolean cancelled; // guarded by this: an interrupt asked before the thread started

        synchronized boolean enter() {
            if (cancelled) {
                return false;
            }
            thread = Thread.currentThread();
            return true;
        }

        /** Leaves; clears an interrupt of ours so it does not leak into the caller's pool thread. */
        synchronized void exit() {
            thread = null;
            cancelled = false;
            Thread.interrupted();
        }

        synchronized void interrupt() {
            if (thread != null) {
                thread.interrupt();
            } else {
                cancelled = true;
            }
        }

        synchronized void reset() {
            cancelled = false;
        }
    }

    /**
     * LeaderSelector's shape: {@code takeLeadership(curator)} runs on {@code executor} while
     * leading; its end relinquishes (resigns), however it ended, as Curator's selector releases its
     * mutex; an interrupt of the task (the leadership wavered, or a stop) interrupts it, and the
     * task waits up to {@code stopWait} for it to return.
     */
    static LeaderTask selector(LeaderSelectorListener listener, CuratorFramework curator, Executor executor, Taker taker,
                               AtomicReference<Leadership> current, long stopWaitMs) {
        return l -> {
            current.set(l);
            taker.reset();
            CompletableFuture<Void> done = new CompletableFuture<>();
            boolean failed = false;
            try {
                executor.execute(() -> {
                    if (!taker.enter()) {
                        done.complete(null);
                        return;
                    }
                    try {
                        listener.takeLeadership(curator);
                        done.complete(null);
                    } catch (Throwable t) {
                        done.completeExceptionally(t);
                    } finally {
                        taker.exit();
                    }
                });
                done.get();
            } catch (RejectedExecutionException e) {
                throw new CoordException("the executor refused LeaderSelectorListener.takeLeadership", e);
            } catch (InterruptedException e) {
                taker.interrupt();
                try {
                    done.get(stopWaitMs, TimeUnit.MILLISECONDS);
                } catch (ExecutionException | TimeoutException | InterruptedException ignored) {
                    // it returned badly, or not in time: the leadership ends anyway, the fence covers the rest
                }
                throw e;
            } catch (ExecutionException e) {
                Throwable cause = e.getCause();
                if (cause instanceof InterruptedException ie) {
                    throw ie;
                }
                failed = true;
                if (cause instanceof RuntimeException re) {
                    throw re;
                }
                throw new CoordException("LeaderSelectorListener.takeLeadership threw " + cause, cause);
            } finally {
                current.compareAndSet(l, null);
                // Once takeLeadership is over, so is the leadership (Curator's selector releases its
                // mutex however it ended): a wavered one is not run again when it comes back. A
                // failure on a certain leadership is left to the runner, which pauses before a requeue.
                if (!failed || l.state() != LeaseState.ACQUIRED) {
                    l.resign();
                }
            }
        };
    }

    /**
     * Forwards the Coord client's connection states to {@code listener.stateChanged} on
     * {@code executor}; a {@link CancelLeadershipException} from it (what Curator's
     * {@code LeaderSelectorListenerAdapter} throws on SUSPENDED and LOST) interrupts a running
     * {@code takeLeadership}, as Curator's selector does.
     */
    static ConnectionStateListener states(LeaderSelectorListener listener, Taker taker) {
        return (client, state) -> {
            try {
                listener.stateChanged(client, state);
            } catch (CancelLeadershipException cancel) {
                taker.interrupt();
            } catch (RuntimeException e) {
                LOG.warn("LeaderSelectorListener.stateChanged({}) threw", state, e);
            }
        };
    }

    /** The registration handed to the caller. */
    static LeaderRegistration registration(io.coord.Registration runner, AtomicReference<Leadership> current, Runnable alsoOnClose) {
        return new LeaderRegistration() {
            @Override
            public Optional<Leadership> leadership() {
                return Optional.ofNullable(current.get());
            }

            @Override
            public void close() {
                alsoOnClose.run();
                runner.close();
            }
        };
    }
}
