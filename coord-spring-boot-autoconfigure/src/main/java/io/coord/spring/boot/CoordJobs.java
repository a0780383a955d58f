package io.coord.spring.boot;

import io.coord.CoordException;
import io.coord.CoordMetrics;
import io.coord.Lease;
import io.coord.LeaseListener;
import io.coord.LockLostException;
import io.coord.Registration;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.aopalliance.intercept.MethodInvocation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.SmartLifecycle;

/**
 * Runs guarded jobs: admits or skips each run through its {@link JobGuard}, binds the lease to the
 * running thread ({@link CoordJob}), interrupts the run when the lease is lost, releases what the
 * run owns and counts the outcome ({@value #RUNS}, tags {@code job}, {@code mode},
 * {@code outcome}: {@code ran}, {@code failed}, {@code skipped}, {@code interrupted}).
 *
 * <p>A lifecycle bean: it takes part in the elections when the application starts; when it stops,
 * it skips new runs, interrupts the running ones, waits for them (at most
 * {@code coord.jobs.stop-timeout}) and only then leaves the elections, so that the next leader
 * does not start while this one's job still runs (unless it outlives the timeout: the fence
 * covers that case).
 */
final class CoordJobs implements SmartLifecycle, DisposableBean {
    private static final Logger LOG = LoggerFactory.getLogger(CoordJobs.class);
    static final String RUNS = "coord.jobs.runs";

    private final CoordJobsProperties properties;
    private final CoordMetrics metrics;
    private final CoordJobsPostProcessor found;
    private final Map<JobSpec.Mode, JobGuard> guards = new EnumMap<>(JobSpec.Mode.class);
    private final Set<Run> active = new HashSet<>(); // guarded by this
    private boolean running; // guarded by this

    CoordJobs(CoordJobsProperties properties, CoordMetrics metrics, CoordJobsPostProcessor found, List<JobGuard> guards) {
        this.properties = properties;
        this.metrics = metrics;
        this.found = found;
        guards.forEach(g -> this.guards.put(g.mode(), g));
    }

    @Override
    public void start() {
        synchronized (this) {
            running = true;
        }
        if (!properties.enabled()) {
            LOG.info("coord.jobs.enabled=false: every @LeaderOnly and @CoordLocked run is skipped on this instance");
            return;
        }
        guards.forEach((mode, guard) -> guard.start(found.specs().stream()
                .filter(s -> s.mode() == mode).map(JobSpec::name).collect(Collectors.toSet())));
    }

    @Override
    public void stop() {
        List<Run> running;
        synchronized (this) {
            if (!this.running) {
                return;
            }
            this.running = false;
            running = List.copyOf(active);
        }
        running.forEach(r -> r.interrupt("the application is stopping"));
        long deadline = System.nanoTime() + properties.stopTimeout().toNanos();
        synchronized (this) {
            long left;
            while (!active.isEmpty() && (left = deadline - System.nanoTime()) > 0) {
                try {
                    TimeUnit.NANOSECONDS.timedWait(this, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            if (!active.isEmpty()) {
                LOG.warn("{} guarded job(s) still running {} after the stop began: leaving their elections anyway;"
                        + " their writes are refused by the fence once the next holder's token is used", active, properties.stopTimeout());
            }
        }
        guards.values().forEach(JobGuard::stop);
    }

    @Override
    public synchronized boolean isRunning() {
        return running;
    }

    @Override
    public void destroy() {
        stop(); // a context that failed after start still leaves its elections
    }

    /** One call of a guarded method through its proxy. */
    Object invoke(MethodInvocation invocation, JobSpec spec) throws Throwable {
        String skip = null;
        JobGuard guard = guards.get(spec.mode());
        if (!properties.enabled()) {
            skip = "coord.jobs.enabled=false";
        } else if (!isRunning()) {
            skip = "the application is not running";
        } else if (guard == null) {
            skip = "no " + spec.mode().label + " guard"; // refused at startup; kept for a context built oddly
        }
        JobGuard.Admission admission = null;
        if (skip == null) {
            try {
                admission = guard.enter(spec);
            } catch (CoordException e) {
                LOG.warn("job {} skipped: asking for its {} '{}' failed: {}", spec.job(), spec.mode().label, spec.name(), e.toString());
                count(spec, "skipped");
                return null;
            }
            if (admission instanceof JobGuard.Refused refused) {
                skip = refused.reason();
            }
        }
        if (skip != null) {
            LOG.debug("job {} skipped: {}", spec.job(), skip);
            count(spec, "skipped");
            return null;
        }
        JobGuard.Admitted admitted = (JobGuard.Admitted) admission;
        return run(invocation, spec, admitted.lease(), admitted.releaseAfter());
    }

    private Object run(MethodInvocation invocation, JobSpec spec, Lease lease, boolean releaseAfter) throws Throwable {
        Run run = new Run(spec, Thread.currentThread());
        synchronized (this) {
            active.add(run);
        }
        // The listener runs on Coord's event thread, in the state change: no queue between LOST and
        // the interrupt. It only interrupts, so it returns at once.
        Registration listening = lease.addListener(run, Runnable::run);
        String outcome = "ran";
        Lease previous = CoordJob.CURRENT.get();
        try {
            try {
                lease.checkValid(); // lost between the admission and the listener: the listener may never hear it
            } catch (LockLostException e) {
                LOG.debug("job {} skipped: its {} ended before the run started: {}", spec.job(), spec.mode().label, e.getMessage());
                outcome = "skipped";
                return null;
            }
            CoordJob.CURRENT.set(lease);
            try {
                return invocation.proceed();
            } catch (Throwable t) {
                outcome = run.interruptedBy() != null ? "interrupted" : "failed";
                if (run.interruptedBy() != null && (t instanceof InterruptedException || t instanceof LockLostException)) {
                    return null; // the loss itself, already reported below: not an error of the job
                }
                throw t;
            } finally {
                if (previous == null) {
                    CoordJob.CURRENT.remove();
                } else {
                    CoordJob.CURRENT.set(previous);
                }
            }
        } finally {
            String interruptedBy = run.finish();
            listening.close();
            if (releaseAfter) {
                lease.close();
            }
            if (interruptedBy != null && !outcome.equals("skipped")) {
                outcome = "interrupted";
                LOG.warn("job {} interrupted ({} token {}): {}", spec.job(), spec.mode().label, lease.token(), interruptedBy);
            }
            count(spec, outcome);
            synchronized (this) {
                active.remove(run);
                notifyAll();
            }
        }
    }

    private void count(JobSpec spec, String outcome) {
        metrics.increment(RUNS, "job", spec.job(), "mode", spec.mode().label, "outcome", outcome);
    }

    /** One run in progress: interrupts its thread on a loss or a stop, only while it runs. */
    private static final class Run implements LeaseListener {
        private final JobSpec spec;
        private final Thread thread;
        private boolean finished; // guarded by this
        private String interruptedBy; // guarded by this

        Run(JobSpec spec, Thread thread) {
            this.spec = spec;
            this.thread = thread;
        }

        synchronized void interrupt(String why) {
            if (!finished && interruptedBy == null) {
                interruptedBy = why;
                thread.interrupt();
            }
        }

        synchronized String interruptedBy() {
            return interruptedBy;
        }

        /**
         * Ends the run, on its own thread. An interrupt of ours is cleared: it was meant for this
         * run, and the scheduler's thread goes on to other work.
         */
        synchronized String finish() {
            finished = true;
            if (interruptedBy != null) {
                Thread.interrupted();
            }
            return interruptedBy;
        }

        @Override
        public void onLost(Lease lease, CoordException cause) {
            interrupt("its " + spec.mode().label + " '" + spec.name() + "' was lost: " + cause.getMessage());
        }

        @Override
        public void onReleased(Lease lease) {
            // A leadership resigned under a running job (a stop past its timeout, an election closed):
            // the next leader may start, so this run must stop. A lock run's own release comes after finish().
            interrupt("its " + spec.mode().label + " '" + spec.name() + "' was released");
        }

        @Override
        public String toString() {
            return spec.job() + " on " + thread.getName();
        }
    }
}
