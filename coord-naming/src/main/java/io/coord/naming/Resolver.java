package io.coord.naming;

import java.util.List;
import java.util.Optional;

/**
 * Resolves one service to an instance from a watched cache (curator-x-discovery's
 * {@code ServiceCache}): {@link #resolve()} makes no round trip. Instances appear and disappear as
 * ZooKeeper tells the cache; while the connection is down the cache keeps its last view.
 *
 * <p>Thread-safe. {@link #close()} stops the cache.
 */
public interface Resolver extends AutoCloseable {
    String service();

    Strategy strategy();

    /** One available instance by the {@link #strategy()}, or empty if none is available. No I/O. */
    Optional<Endpoint> resolve();

    /** The instances resolve() chooses from: in service and not reported failing. */
    List<Endpoint> available();

    /** Every instance in the cache, in and out of service, sorted by id. */
    List<Endpoint> all();

    /**
     * Reports a failed call to {@code endpoint}: after
     * {@link DiscoveryOptions#downErrorThreshold()} reports it is skipped until
     * {@link DiscoveryOptions#downTimeout()} after the first, then comes back on its own.
     */
    void reportFailing(Endpoint endpoint);

    @Override
    void close();
}
