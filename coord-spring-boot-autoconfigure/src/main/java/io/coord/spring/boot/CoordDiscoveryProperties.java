package io.coord.spring.boot;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code coord.discovery.*} properties: registration of this application in Coord discovery
 * (needs {@code coord-naming}).
 *
 * @param register   {@code coord.discovery.register}: register this application (false unless set)
 * @param service    {@code coord.discovery.service}: the DNS-style service name; default
 *                   {@code spring.application.name}
 * @param instanceId {@code coord.discovery.instance-id}: unique within the service; default
 *                   {@code <hostname>-<port>}
 * @param address    {@code coord.discovery.address}: default this host's address
 * @param port       {@code coord.discovery.port}: default the web server's port once it listens
 *                   ({@code local.server.port}); required when the application has no web server
 * @param zone       {@code coord.discovery.zone}: availability zone, a DNS label; none unless set
 */
@ConfigurationProperties("coord.discovery")
public record CoordDiscoveryProperties(boolean register, String service, String instanceId, String address, Integer port,
                                       String zone) {
}
