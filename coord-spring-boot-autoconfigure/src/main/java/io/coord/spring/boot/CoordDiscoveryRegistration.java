package io.coord.spring.boot;

import io.coord.CoordClient;
import io.coord.naming.Announcement;
import io.coord.naming.Discovery;
import io.coord.naming.Endpoint;
import io.coord.naming.InvalidInstanceException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import org.springframework.context.SmartLifecycle;
import org.springframework.core.env.Environment;

/**
 * Registers the application in Coord discovery when the context has started, and unregisters it
 * when the context stops. A lifecycle bean of the last phase: it starts after the web server
 * listens (so its port is known, {@code local.server.port}) and stops before the web server stops,
 * so no caller resolves an instance that no longer answers.
 */
final class CoordDiscoveryRegistration implements SmartLifecycle, AutoCloseable {
    private final CoordClient client;
    private final CoordDiscoveryProperties properties;
    private final Environment environment;
    private Discovery discovery;
    private Announcement announcement;

    CoordDiscoveryRegistration(CoordClient client, CoordDiscoveryProperties properties, Environment environment) {
        this.client = client;
        this.properties = properties;
        this.environment = environment;
        service(); // a missing or bad name fails startup now, before anything listens
    }

    /** The endpoint to register, from the properties, the application's name and the web server's port. */
    Endpoint endpoint() {
        int port = port();
        String address = properties.address() != null ? properties.address() : localAddress();
        String id = properties.instanceId() != null ? properties.instanceId() : hostName() + "-" + port;
        Endpoint.Builder builder = Endpoint.builder(service(), id).address(address).port(port);
        if (properties.zone() != null) {
            builder.zone(properties.zone());
        }
        try {
            return builder.build();
        } catch (InvalidInstanceException e) {
            throw new InvalidCoordPropertyException("coord.discovery.*", null, e.getMessage(), e);
        }
    }

    private String service() {
        String service = properties.service() != null ? properties.service() : environment.getProperty("spring.application.name");
        String property = properties.service() != null ? "coord.discovery.service" : "spring.application.name";
        if (service == null || service.isBlank()) {
            throw new InvalidCoordPropertyException("coord.discovery.service", null,
                    "coord.discovery.register=true needs a service name: set coord.discovery.service or spring.application.name");
        }
        try {
            Endpoint.builder(service, "probe").address("localhost").port(1).build();
        } catch (InvalidInstanceException e) {
            throw new InvalidCoordPropertyException(property, service, e.getMessage()
                    + " (a discovery service name; set coord.discovery.service to one)", e);
        }
        return service;
    }

    private int port() {
        if (properties.port() != null) {
            return properties.port();
        }
        Integer local = environment.getProperty("local.server.port", Integer.class);
        if (local == null || local <= 0) {
            throw new InvalidCoordPropertyException("coord.discovery.port", null,
                    "the application has no web server listening, so its port is unknown: set coord.discovery.port");
        }
        return local;
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName().replaceAll("[^A-Za-z0-9._-]", "_");
        } catch (UnknownHostException e) {
            return "localhost";
        }
    }

    private static String localAddress() {
        try {
            return InetAddress.getLocalHost().getHostAddress();
        } catch (UnknownHostException e) {
            return InetAddress.getLoopbackAddress().getHostAddress();
        }
    }

    @Override
    public synchronized void start() {
        Endpoint endpoint = endpoint();
        discovery = Discovery.open(client);
        try {
            announcement = discovery.register(endpoint);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            discovery.close();
            throw new IllegalStateException("interrupted while registering " + endpoint.service() + "/" + endpoint.id(), e);
        } catch (RuntimeException e) {
            discovery.close();
            throw e;
        }
    }

    @Override
    public synchronized void stop() {
        if (discovery != null) {
            discovery.close(); // unregisters
            discovery = null;
            announcement = null;
        }
    }

    @Override
    public synchronized boolean isRunning() {
        return discovery != null;
    }

    /** The registered instance, or null when not running. */
    synchronized Announcement announcement() {
        return announcement;
    }

    @Override
    public void close() {
        stop();
    }
}
