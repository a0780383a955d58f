package io.coord.spring.boot;

import io.coord.Lease;
import java.util.Set;

/**
 * Decides whether one run of a guarded job may start, and with which lease. One implementation per
 * {@link JobSpec.Mode}, each in its own class so that only the recipe module the application has
 * is ever loaded.
 */
interface JobGuard {
    JobSpec.Mode mode();

    /** The application started: take part in whatever the known {@code names} need (candidacies). */
    void start(Set<String> names);

    /**
     * The lease for one run of {@code spec}, or a refusal to skip it. Never blocks longer than
     * the spec's wait.
     *
     * @throws io.coord.CoordException on a ZooKeeper failure while asking (the run is skipped)
     */
    Admission enter(JobSpec spec) throws InterruptedException;

    /** The application stops: leave everything {@link #start} and {@link #enter} took part in. */
    void stop();

    /** The answer of {@link #enter}. */
    sealed interface Admission permits Admitted, Refused {
    }

    /** Run under {@code lease}; {@code releaseAfter}: the run owns it and closes it when done. */
    record Admitted(Lease lease, boolean releaseAfter) implements Admission {
    }

    /** Skip this run, for {@code reason} (logged at DEBUG). */
    record Refused(String reason) implements Admission {
    }
}
