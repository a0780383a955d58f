/**
 * Spring Boot auto-configuration for Coord (Spring Boot 4.0.x; add {@code coord-spring-boot-starter}).
 *
 * <ul>
 *   <li>A {@link io.coord.CoordClient} bean from {@code coord.*} properties
 *       ({@link io.coord.spring.boot.CoordProperties}): {@code coord.connect-string} (required),
 *       {@code coord.namespace}, {@code coord.session-timeout}, {@code coord.connection-timeout},
 *       {@code coord.digest.user}/{@code coord.digest.password}, {@code coord.acl-policy}
 *       ({@code open}, {@code creator}, {@code creator-world-read}) and {@code coord.tls.*}.
 *       The client connects while the context starts and is closed on shutdown after every bean
 *       that depends on it. An application's own {@code CoordClient} bean replaces it.</li>
 *   <li>A bad property fails startup with an
 *       {@link io.coord.spring.boot.InvalidCoordPropertyException}, which Spring Boot's failure
 *       analysis reports with the property's name, the value and the reason; so does a session
 *       timeout the server clamps.</li>
 *   <li>Coord's metrics ({@code coord.*}) go into the application's Micrometer
 *       {@code MeterRegistry} when it has one (or into the application's own
 *       {@link io.coord.CoordMetrics} bean).</li>
 *   <li>With Actuator's health on the classpath, the {@code coord} health indicator: UP when the
 *       session is CONNECTED, OUT_OF_SERVICE when SUSPENDED (it may come back intact: out of
 *       rotation, not restarted), DOWN when it EXPIRED (everything bound to it is gone) until the
 *       client runs on a new session; details {@code state}, {@code sessionId},
 *       {@code requestedSessionTimeout}, {@code negotiatedSessionTimeout} and {@code stalls}.</li>
 *   <li>Leader-only and lock-guarded jobs ({@link io.coord.spring.boot.CoordJobsAutoConfiguration}),
 *       ShedLock's {@code @SchedulerLock} on Coord's leases:
 *       {@link io.coord.spring.boot.LeaderOnly @LeaderOnly(election = "name")} (needs {@code coord-election}) runs a {@code @Scheduled}
 *       method only on the instance that leads {@code /elections/{name}}; the application keeps one
 *       candidacy per name from startup to shutdown and joins again after each lost leadership.
 *       {@link io.coord.spring.boot.CoordLocked @CoordLocked(lock = "name", waitFor = "0s")} (needs
 *       {@code coord-lock}) runs it only while holding {@code /locks/jobs/{name}}, asked for run by
 *       run and released after it. A run that may not start is <b>skipped</b> (returns at once, DEBUG
 *       log), never queued. Inside a run {@link io.coord.spring.boot.CoordJob#token()} is the fencing
 *       token to pass to every downstream write, {@link io.coord.spring.boot.CoordJob#checkValid()}
 *       throws {@code LockLostException} once the lease is not certain; both are bound to the job's
 *       thread and throw {@code IllegalStateException} elsewhere. A lease LOST during a run (session
 *       expired, node deleted) interrupts the job's thread; UNCERTAIN does not (it may come back;
 *       {@code checkValid()} throws meanwhile). There is no {@code lockAtMostFor}: the lease is an
 *       ephemeral node and ends with the session. At shutdown the running jobs are interrupted and
 *       waited for ({@code coord.jobs.stop-timeout}, 10s) before the leaderships are resigned;
 *       {@code coord.jobs.enabled=false} skips every guarded run. Runs are counted in
 *       {@code coord.jobs.runs} (tags {@code job}, {@code mode}, {@code outcome}: {@code ran},
 *       {@code failed}, {@code skipped}, {@code interrupted}). Guarding is a class proxy made by a
 *       bean post-processor (Spring's {@code ProxyFactory}, no AspectJ), so the method must be
 *       non-private, non-final, non-static and {@code void}; an annotation that could not be honoured
 *       fails startup naming the method and the value.</li>
 * </ul>
 *
 * Spring reaches only this module and the starter (coord-election and coord-lock are optional
 * dependencies here: the jobs' guards exist only where the application has them): Coord's other modules keep their own
 * versions of Curator, Jackson 2 and SLF4J, and Jackson 2 (Coord's codecs) sits beside Boot 4's
 * Jackson 3 without conflict (different packages).
 */
package io.coord.spring.boot;
