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
 * </ul>
 *
 * Spring reaches only this module and the starter: Coord's other modules keep their own
 * versions of Curator, Jackson 2 and SLF4J, and Jackson 2 (Coord's codecs) sits beside Boot 4's
 * Jackson 3 without conflict (different packages).
 */
package io.coord.spring.boot;
