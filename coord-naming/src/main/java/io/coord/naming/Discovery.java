package io.coord.naming;

import io.coord.CoordClient;
import io.coord.internal.Zk;
import java.util.List;
import java.util.Optional;
import java.util.SortedMap;
import java.util.function.BooleanSupplier;

/**
 * DNS-style service discovery on curator-x-discovery: services register instances (ephemeral:
 * they vanish with their session, and come back by themselves when the client gets a new one),
 * callers resolve a service name to one instance from a watched cache, with no round trip per call.
 *
 * <pre>{@code
 * try (Discovery discovery = Discovery.open(client, DiscoveryOptions.builder().localZone("eu-1").build())) {
 *     Announcement me = discovery.register(Endpoint.builder("orders.payments.prod", "orders-1")
 *             .address("10.0.0.5").port(8080).zone("eu-1").build(), () -> db.isHealthy());
 *     try (Resolver orders = discovery.resolver("orders.payments.prod", Strategy.ZONE_PREFERRING)) {
 *         Endpoint target = orders.resolve().orElseThrow();
 *         // ... on a failed call: orders.reportFailing(target);
 *     }
 * }
 * }</pre>
 *
 * <p>{@link #close()} unregisters every instance registered through this object, stops their
 * health checks and closes every resolver it made.
 */
public interface Discovery extends AutoCloseable {
    static Discovery open(CoordClient client) {
        return open(client, DiscoveryOptions.defaults());
    }

    static Discovery open(CoordClient client, DiscoveryOptions options) {
        return ZkDiscovery.start(Zk.of(client), options);
    }

    DiscoveryOptions options();

    /**
     * Registers {@code endpoint} as an ephemeral instance. The id is first checked against
     * ZooKeeper; if the connection drops after that check, the registration still stands: Curator
     * writes it when the connection (or a new session) comes back, and the returned handle
     * controls it.
     *
     * @throws InvalidInstanceException if its id is already registered (here or by another client)
     * @throws io.coord.ConnectionLostException if the id check could not reach ZooKeeper; nothing
     *         is registered
     * @throws io.coord.ValueTooLargeException if the instance data is over the client's value limit
     */
    Announcement register(Endpoint endpoint) throws InterruptedException;

    /**
     * Registers {@code endpoint} and runs {@code healthCheck} every
     * {@link DiscoveryOptions#healthCheckInterval()}: while it returns false (or throws), the
     * instance is out of service; when it passes again, back in service. The check runs once before
     * registering, so an instance that starts unhealthy is never resolved.
     */
    Announcement register(Endpoint endpoint, BooleanSupplier healthCheck) throws InterruptedException;

    /**
     * A resolver for {@code service} with its own watched cache, loaded before this returns (at most
     * the client's connection timeout). Close it when done.
     */
    Resolver resolver(String service, Strategy strategy) throws InterruptedException;

    /**
     * One available instance of {@code service} with {@link DiscoveryOptions#strategy()}, from a
     * cache this object keeps per service (started by the first call, which waits for its first
     * load); empty if none is available.
     */
    Optional<Endpoint> resolve(String service) throws InterruptedException;

    /** Reports a failed call to {@code endpoint} to the cache {@link #resolve(String)} uses. */
    void reportFailing(Endpoint endpoint);

    /**
     * The names of the services registered at or below {@code domain} ({@code payments.prod} finds
     * {@code orders.payments.prod}), or of all services if {@code domain} is null; sorted. Reads
     * ZooKeeper (one round trip per node of the subtree).
     */
    List<String> services(String domain) throws InterruptedException;

    /**
     * Every registered instance of {@code service}, in and out of service, read now from ZooKeeper.
     * An instance whose data Coord cannot decode is not among them: {@link #undecodable} names it.
     */
    List<Endpoint> instances(String service) throws InterruptedException;

    /**
     * The instance nodes of {@code service} whose data Coord cannot decode (not JSON, no id, or not
     * a valid endpoint: no address, a port outside 1–65535 ...), by node name with why, read now
     * from ZooKeeper; sorted, empty if none. Resolvers skip them; each is also logged at WARN once.
     */
    SortedMap<String, String> undecodable(String service) throws InterruptedException;

    @Override
    void close();
}
