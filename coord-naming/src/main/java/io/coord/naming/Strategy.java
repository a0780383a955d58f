package io.coord.naming;

/**
 * How a {@link Resolver} picks one instance among those available (in service and not reported
 * failing). Every strategy picks from the resolver's cache: no round trip.
 */
public enum Strategy {
    /** Each instance in turn, in instance-id order. */
    ROUND_ROBIN,
    /** Uniformly at random. */
    RANDOM,
    /** The same instance as last time while it stays available; otherwise the next in turn. */
    STICKY,
    /** At random, in proportion to {@link Endpoint#weight()}. */
    WEIGHTED,
    /**
     * Round robin among the instances in {@link DiscoveryOptions#localZone()}; when none of those is
     * available, round robin among all the others (fallback to other zones).
     */
    ZONE_PREFERRING
}
