package io.coord.spring.boot;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the annotated method (typically a {@code @Scheduled} one) only while holding Coord's fair
 * mutex {@code /locks/jobs/{lock}}: each run tries the lock, waiting at most {@link #waitFor()}, runs,
 * and releases it. A run that does not get the lock is skipped (it returns at once, DEBUG log,
 * counted as {@code coord.jobs.runs{outcome=skipped}}). Needs {@code coord-lock} on the classpath
 * (startup fails without it, since the job would otherwise run unguarded).
 *
 * <p>Inside a run, {@link CoordJob#token()} is the lock lease's fencing token (strictly greater
 * than every earlier holder's: pass it to the downstream write) and {@link CoordJob#checkValid()}
 * throws once the lease is not certain. A lease LOST while the job runs (session expired, node
 * deleted) interrupts the job's thread. There is no {@code lockAtMostFor}: the lease is an
 * ephemeral node and ends with the ZooKeeper session when the process dies or stalls, and it is
 * released as soon as the run ends, so no {@code lockAtLeastFor} either: a run may start on
 * another instance as soon as this one is done.
 *
 * <p>The method must be non-private, non-final, non-static and return {@code void}; a bad value
 * fails startup, naming it.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface CoordLocked {
    /** The lock's name, one path segment: the lock is {@code /locks/jobs/{lock}}, shared by every instance. */
    String lock();

    /**
     * How long a run waits for the lock before it is skipped: a Spring Boot duration
     * ({@code 0s}, {@code 500ms}, {@code 5s}, {@code PT5S}). Default {@code 0s}: skip at once if
     * another instance holds it.
     */
    String waitFor() default "0s";
}
