package io.coord.naming;

/**
 * One registered instance, from {@link Discovery#register}. Its node is ephemeral: it vanishes when
 * the session ends, and Curator registers it again on the next session. {@link #close()}
 * unregisters it.
 *
 * <p>In service means: not put out of service by {@link #outOfService()} and, if it has a health
 * check, passing it. Out of service, the instance stays registered and listed, but no resolver
 * returns it.
 */
public interface Announcement extends AutoCloseable {
    /** The instance as last published. */
    Endpoint endpoint();

    /**
     * Publishes a changed instance (address, ports, zone, weight, payload; its {@code inService}
     * sets maintenance as {@link #outOfService()} / {@link #inService()} do).
     *
     * @throws InvalidInstanceException if the service or id differs from the registered one
     * @throws io.coord.ConnectionLostException if the connection dropped; the change is kept and
     *         written when Curator registers the instance again after the reconnect
     */
    void update(Endpoint changed) throws InterruptedException;

    /** Maintenance: stays registered, but resolvers skip it until {@link #inService()}. */
    void outOfService() throws InterruptedException;

    /** Ends maintenance; the instance is resolved again if its health check (if any) passes. */
    void inService() throws InterruptedException;

    /** The last health check result (true when there is no check). */
    boolean healthy();

    /** Unregisters the instance and stops its health check. Idempotent. */
    @Override
    void close();
}
