package io.coord.spring.boot;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the annotated method (typically a {@code @Scheduled} one) only while this application is
 * the leader of the Coord election {@link #election()}; on every other instance a run is skipped
 * (it returns at once, DEBUG log, counted as {@code coord.jobs.runs{outcome=skipped}}), never
 * blocked. Needs {@code coord-election} on the classpath (startup fails without it, since the job
 * would otherwise run everywhere).
 *
 * <p>The application takes part in each election named by its jobs with one candidacy, from
 * startup to shutdown, joining again after every lost leadership. Inside a run,
 * {@link CoordJob#token()} is the leadership's epoch (pass it to the downstream write) and
 * {@link CoordJob#checkValid()} throws once the leadership is not certain. A leadership LOST while
 * the job runs (session expired, node deleted) interrupts the job's thread; at shutdown a running
 * job is interrupted and waited for ({@code coord.jobs.stop-timeout}) before the leadership is
 * resigned. There is no {@code lockAtMostFor}: the leadership is an ephemeral node and ends with
 * the ZooKeeper session when the process dies or stalls.
 *
 * <p>The method must be non-private, non-final, non-static and return {@code void} (it is called
 * through a class proxy; a skipped run has no result); a bad value fails startup, naming it.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface LeaderOnly {
    /** The election, one path segment ({@code /elections/{election}}); the same name on every instance. */
    String election();
}
