package io.coord.spring.boot;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The {@code coord.jobs.*} properties of {@link LeaderOnly @LeaderOnly} and
 * {@link CoordLocked @CoordLocked} jobs.
 *
 * @param enabled     {@code coord.jobs.enabled}: true unless set. False makes this instance skip
 *                    every guarded run and take part in no election: the safe way to take an
 *                    instance out of the jobs (the guards are never bypassed, so a job never runs
 *                    unguarded)
 * @param stopTimeout {@code coord.jobs.stop-timeout}: at shutdown, how long to wait for the
 *                    interrupted running jobs to return before leaving the elections anyway
 *                    (default 10s)
 */
@ConfigurationProperties("coord.jobs")
public record CoordJobsProperties(@DefaultValue("true") boolean enabled, @DefaultValue("10s") Duration stopTimeout) {
}
