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
 *       that depends on it. An application's own {@code CoordClient} bean replaces it. An ensemble
 *       that gives no session within {@code coord.connection-timeout} fails startup; the failure
 *       analysis names the connect string and {@code coord.config.snapshot-dir} (see below). With
 *       that property set the client is {@linkplain io.coord.CoordClient#start started} instead,
 *       without waiting for a session.</li>
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
 *   <li>Hot-reloaded config beans ({@link io.coord.spring.boot.CoordConfigAutoConfiguration}, needs
 *       {@code coord-config}, which the starter brings): {@link io.coord.spring.boot.CoordConfig
 *       &#64;CoordConfig("app/key")} on a record or class binds it to {@code /config/{app}/{key}};
 *       {@link io.coord.spring.boot.EnableCoordConfig @EnableCoordConfig(Type.class)} registers a
 *       {@link io.coord.spring.boot.CoordConfigValue CoordConfigValue&lt;Type&gt;} bean (a holder:
 *       records are final and immutable, so neither the record nor a proxy of it could change).
 *       {@code get()} is the last good value: strictly decoded and, where the application has a
 *       {@code jakarta.validation.Validator} bean, valid by Bean Validation. A refused update keeps
 *       the value and shows in {@code lastRejection()}, in the {@code coordConfig} health indicator
 *       (always UP; per key {@code version}, {@code origin}, {@code stale}, {@code lastRejected})
 *       and in {@code coord.config.rejected}. Each applied change publishes a
 *       {@link io.coord.spring.boot.CoordConfigChangedEvent CoordConfigChangedEvent&lt;Type&gt;}
 *       (key, old value, new value, version) from the {@code coord-config-events} thread, one at a
 *       time in the order applied. Properties ({@link io.coord.spring.boot.CoordConfigProperties}):
 *       {@code coord.config.init-timeout} (10s: how long startup waits for each key's value, then
 *       fails naming the key and the type), {@code coord.config.instance-id} (canary membership and
 *       {@code coord config who}; default {@code <hostname>-<pid>}),
 *       {@code coord.config.report-applied} (true) and {@code coord.config.snapshot-dir} (unset).
 *       <b>ZooKeeper unreachable at startup</b>: without {@code coord.config.snapshot-dir} startup
 *       fails (the client bean, analysed as above). With it, each config bean keeps the last value
 *       it read while connected in {@code {dir}/{app}/{key}.json}, and the application starts
 *       during an outage: the client does not wait for a session, each config bean starts from its
 *       snapshot ({@code current().origin()} {@code SNAPSHOT}, {@code isStale()} true, after at most
 *       3s of trying to read live), the {@code coord} health is DOWN ({@code state}
 *       {@code NO_SESSION}; with an {@code error} detail if the server refused the client's
 *       authentication or TLS, which is also logged), and once the ensemble answers the live
 *       value replaces the snapshot's, publishing a {@code CoordConfigChangedEvent} when it
 *       differs. A key with no usable snapshot still waits {@code coord.config.init-timeout} and
 *       fails startup naming it; a directory that cannot be created or written fails startup
 *       naming the property. In this mode a session timeout the server clamps is logged, not
 *       fatal. Config beans close before the client.</li>
 *   <li>Task handlers ({@link io.coord.spring.boot.CoordTasksAutoConfiguration}, needs
 *       {@code coord-queue}): {@link io.coord.spring.boot.CoordTaskHandler @CoordTaskHandler(queue,
 *       concurrency, type)} on a bean method runs a {@code TaskWorker} on {@code /queues/{queue}};
 *       the one parameter is the payload or the {@code TaskClaim}; return completes, throw fails.
 *       Started by a lifecycle bean once the context has refreshed, stopped draining when it closes
 *       (before any bean is destroyed, so before the client): {@code coord.tasks.shutdown-grace}
 *       (30s) for in-flight handlers, then interrupted and released. A method that cannot be
 *       served, or the annotation without {@code coord-queue}, fails startup naming the method.</li>
 *   <li>Discovery registration ({@link io.coord.spring.boot.CoordDiscoveryAutoConfiguration}, needs
 *       {@code coord-naming} and {@code coord.discovery.register=true};
 *       {@link io.coord.spring.boot.CoordDiscoveryProperties}): the application is an instance of
 *       {@code coord.discovery.service} (default {@code spring.application.name}) at
 *       {@code coord.discovery.address} (default this host's address) and {@code coord.discovery.port}
 *       (default the web server's {@code local.server.port}; required without a web server), id
 *       {@code coord.discovery.instance-id} (default {@code <hostname>-<port>}), zone
 *       {@code coord.discovery.zone}. A lifecycle bean of the last phase: it registers after the
 *       web server listens and unregisters before it stops. A missing port or a name discovery
 *       refuses fails startup naming the property.</li>
 *   <li>A Spring Integration {@code LockRegistry} ({@link io.coord.spring.boot.CoordIntegrationAutoConfiguration},
 *       needs {@code spring-integration-core} 7.0.x and {@code coord-lock}), bean
 *       {@code coordLockRegistry} unless the application has a {@code LockRegistry}:
 *       {@code obtain(key)} is {@code DistributedLock.asLock()} of
 *       {@code /locks/{coord.integration.lock-domain}/{key}} (domain {@code integration} by default),
 *       one object per key; a key that is not one path segment is refused naming it. It is an
 *       {@code ExpirableLockRegistry}: {@code expireUnusedOlderThan(ms)} drops the object of each
 *       key obtained longer ago and held by no thread of this process (the application calls it,
 *       on a schedule, when keys are many).</li>
 * </ul>
 *
 * Beans: {@code coordClient}, {@code coordMetrics} (with Micrometer), {@code coordHealthIndicator}
 * and {@code coordConfigHealthIndicator} (with Actuator's health), {@code coordJobs} with its
 * post-processor and one guard per recipe module present, {@code coordConfigs} and one
 * {@code CoordConfigValue} per {@code @EnableCoordConfig} type (named {@code <type name>-coordConfig}),
 * {@code coordTaskHandlerPostProcessor} and {@code coordTaskWorkers}, {@code coordDiscoveryRegistration},
 * {@code coordLockRegistry}.
 *
 * <p>Spring reaches only this module and the starter (coord-election, coord-lock, coord-config,
 * coord-queue, coord-naming, jakarta.validation-api and spring-integration-core are optional dependencies here: each feature exists only where the
 * application has its module): Coord's other modules keep their own
 * versions of Curator, Jackson 2 and SLF4J, and Jackson 2 (Coord's codecs) sits beside Boot 4's
 * Jackson 3 without conflict (different packages).
 */
package io.coord.spring.boot;
