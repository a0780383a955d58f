package io.coord.election;

import com.google.common.util.concurrent.MoreExecutors;
import io.coord.CoordException;
import io.coord.ForeignNodesException;
import io.coord.Lease;
import io.coord.LeaseListener;
import io.coord.LeaseState;
import io.coord.Registration;
import io.coord.SessionState;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leader-task loop of {@link Election#lead}: campaign, run the task while leading, interrupt it
 * the moment the leadership is no longer certain, resign when it returns, and join again if asked.
 *
 * <p>The task runs on the runner's own thread. A lease listener on the direct executor (so on
 * Coord's event thread, right inside the state change, never on Curator's) interrupts it: there is
 * no queue between "UNCERTAIN" and the interrupt.
 */
final class LeaderRunner {
    private static final Logger LOG = LoggerFactory.getLogger(LeaderRunner.class);

    private enum Outcome { RETURNED, FAILED, INTERRUPTED, INTERRUPTED_BY_LEASE }

    /** Pause before joining again after the task threw (a stop ends it early). */
    static final long FAILURE_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

    private final ZkElection election;
    private final LeaderTask task;
    private final Runnable onStopped;
    /** Join again after each leadership: the election's option, or always (a LeaderLatch's shape). */
    private final boolean requeue;
    /** The foreign nodes last warned about, so that a refusal repeated each second warns once. */
    private List<String> warnedForeign = List.of();
    private final CompletableFuture<Void> done = new CompletableFuture<>();
    private final Semaphore changed = new Semaphore(0);
    private final Object lock = new Object();
    private volatile boolean stopping;
    private Thread runnerThread; // guarded by lock
    private Thread taskThread; // guarded by lock: set while the task runs
    private boolean interruptedByLease; // guarded by lock
    private Candidacy candidacy; // guarded by lock
    private ZkLeadership current; // guarded by lock

    private final LeaseListener interrupter = new LeaseListener() {
        @Override
        public void onUncertain(Lease lease) {
            interruptTask();
        }

        @Override
        public void onRestored(Lease lease) {
            changed.release();
        }

        @Override
        public void onLost(Lease lease, CoordException cause) {
            interruptTask();
        }

        @Override
        public void onReleased(Lease lease) {
            interruptTask();
        }
    };

    LeaderRunner(ZkElection election, LeaderTask task, boolean requeue, Runnable onStopped) {
        this.election = election;
        this.task = task;
        this.requeue = requeue;
        this.onStopped = onStopped;
    }

    void run() {
        synchronized (lock) {
            runnerThread = Thread.currentThread();
        }
        try {
            while (!stopping) {
                ZkLeadership leadership = campaign();
                if (leadership == null) {
                    continue;
                }
                if (!lead(leadership)) {
                    break;
                }
            }
        } finally {
            synchronized (lock) {
                runnerThread = null;
            }
            Thread.interrupted(); // a stop's interrupt must not leak into the pool thread's next job
            onStopped.run();
            done.complete(null);
        }
    }

    /** One candidacy until elected; null if it ended without a leadership (stop, error). */
    private ZkLeadership campaign() {
        Candidacy c = election.newCandidacy(() -> { });
        synchronized (lock) {
            if (stopping) {
                election.forget(c);
                return null;
            }
            candidacy = c;
        }
        try {
            return c.await(System.nanoTime() + Long.MAX_VALUE / 4, null);
        } catch (CancellationException | InterruptedException e) {
            return null; // stopping, or a stray interrupt: the loop decides
        } catch (ForeignNodesException e) {
            // Not joining while they are there; looking again each second (a WARN per new set).
            if (!e.nodes().equals(warnedForeign)) {
                LOG.warn("election {}: not campaigning while foreign nodes are there, looking again each second: {}",
                        election.name(), e.getMessage());
                warnedForeign = e.nodes();
            }
            waitForChange(TimeUnit.SECONDS.toNanos(1));
            return null;
        } catch (CoordException e) {
            LOG.warn("campaign in election {} failed; trying again", election.name(), e);
            waitForChange(TimeUnit.SECONDS.toNanos(1));
            return null;
        } finally {
            election.forget(c);
            synchronized (lock) {
                candidacy = null;
            }
        }
    }

    /** Leads with {@code l} until it ends; returns whether to campaign again. */
    private boolean lead(ZkLeadership l) {
        synchronized (lock) {
            current = l;
        }
        Registration r = l.addListener(interrupter, MoreExecutors.directExecutor());
        try {
            while (true) {
                Outcome outcome = runOnce(l);
                if (stopping) {
                    l.resign();
                    return false;
                }
                if (certain(l) && outcome != Outcome.INTERRUPTED_BY_LEASE) {
                    l.resign(); // the task is done with this leadership: hand over at once
                    if (outcome == Outcome.FAILED && requeue) {
                        // A task that fails at once must not spin through create/delete cycles.
                        changed.drainPermits();
                        if (!stopping) {
                            waitForChange(FAILURE_PAUSE_NANOS);
                        }
                    }
                    return requeue;
                }
                // The task stopped because the leadership wavered (maybe its checkValid() saw the
                // session suspended before the lease did): wait until it is restored or lost.
                while (!stopping && !l.state().isTerminal() && !certain(l)) {
                    waitForChange(TimeUnit.SECONDS.toNanos(1));
                }
                if (stopping) {
                    l.resign();
                    return false;
                }
                if (l.state() != LeaseState.ACQUIRED) {
                    return requeue; // LOST, or resigned by the task
                }
                LOG.info("leadership {} restored; running the leader task again", l);
            }
        } finally {
            r.close();
            synchronized (lock) {
                current = null;
            }
        }
    }

    private static boolean certain(ZkLeadership l) {
        return l.state() == LeaseState.ACQUIRED && l.session().state() == SessionState.CONNECTED;
    }

    private Outcome runOnce(ZkLeadership l) {
        synchronized (lock) {
            interruptedByLease = false;
            if (stopping || l.state() != LeaseState.ACQUIRED) {
                return Outcome.INTERRUPTED_BY_LEASE; // wavered between election and start: do not start
            }
            taskThread = Thread.currentThread();
        }
        Outcome outcome;
        try {
            task.lead(l);
            outcome = Outcome.RETURNED;
        } catch (InterruptedException e) {
            outcome = Outcome.INTERRUPTED;
        } catch (RuntimeException e) {
            LOG.warn("leader task of {} failed; resigning", l, e);
            election.metric("coord.election.task.failures");
            outcome = Outcome.FAILED;
        } catch (Error e) {
            l.resign();
            throw e;
        } finally {
            synchronized (lock) {
                taskThread = null;
            }
            Thread.interrupted(); // the interrupt was ours, meant for the task
        }
        synchronized (lock) {
            return interruptedByLease ? Outcome.INTERRUPTED_BY_LEASE : outcome;
        }
    }

    private void interruptTask() {
        synchronized (lock) {
            if (taskThread != null) {
                interruptedByLease = true;
                taskThread.interrupt();
            }
        }
        changed.release();
    }

    private void waitForChange(long nanos) {
        try {
            changed.tryAcquire(nanos, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            // Outside the task only a shutdown interrupts this (the election's own) thread: honour it as a stop.
            stopping = true;
        }
    }

    /**
     * Stops: interrupts the task, withdraws the candidacy, waits up to the task stop timeout for
     * the loop to end (it resigns), then resigns anyway. From inside the task: only asks, since
     * the loop ends once the task returns.
     */
    void stop() {
        Thread runner;
        Candidacy c;
        synchronized (lock) {
            stopping = true;
            if (taskThread != null) {
                taskThread.interrupt();
            }
            c = candidacy;
            runner = runnerThread;
        }
        changed.release();
        if (c != null) {
            c.withdraw();
        }
        if (runner == Thread.currentThread()) {
            return;
        }
        long timeoutMs = election.options().taskStopTimeout().toMillis();
        try {
            done.get(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            LOG.warn("leader task of election {} did not stop within {} ms of its interrupt; resigning anyway"
                    + " (its writes are refused by the epoch fence)", election.name(), timeoutMs);
            resignCurrent();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            resignCurrent();
        } catch (ExecutionException e) {
            throw new IllegalStateException("cannot happen: the runner's future never fails", e);
        }
    }

    private void resignCurrent() {
        ZkLeadership l;
        synchronized (lock) {
            l = current;
        }
        if (l != null) {
            l.resign();
        }
    }
}
