package io.coord.naming;

import io.coord.ConnectionLostException;
import io.coord.CoordException;
import io.coord.CoordPath;
import io.coord.SessionExpiredException;
import io.coord.internal.Zk;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.apache.curator.x.discovery.ServiceInstance;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One registered instance: the endpoint as given, the maintenance flag, the health result, and
 * what is published (in service = not in maintenance and healthy). Publishing is serialized by
 * this object's monitor, so a health check and a manual change never interleave.
 */
final class ZkAnnouncement implements Announcement {
    private static final Logger LOG = LoggerFactory.getLogger(ZkAnnouncement.class);

    private final ZkDiscovery discovery;
    private final BooleanSupplier healthCheck;
    private final long registeredAt = System.currentTimeMillis(); // Curator's registrationTimeUTC: wall clock by definition
    private final AtomicBoolean closed = new AtomicBoolean();
    private Endpoint base;          // guarded by this
    private boolean maintenance;    // guarded by this
    private volatile boolean healthy = true;
    private volatile Endpoint published;
    private volatile ServiceInstance<InstanceCodec.Meta> publishedInstance;
    private volatile ScheduledFuture<?> checkTask;

    ZkAnnouncement(ZkDiscovery discovery, Endpoint endpoint, BooleanSupplier healthCheck) {
        this.discovery = discovery;
        this.base = endpoint;
        this.maintenance = !endpoint.inService();
        this.healthCheck = healthCheck;
        this.published = endpoint;
    }

    /** Runs the health check once (if any), then registers. */
    synchronized void start() throws InterruptedException {
        if (healthCheck != null) {
            healthy = check();
        }
        publish(true);
    }

    void scheduled(ScheduledFuture<?> task) {
        this.checkTask = task;
        if (closed.get()) {
            task.cancel(false);
        }
    }

    @Override
    public Endpoint endpoint() {
        return published;
    }

    @Override
    public void update(Endpoint changed) throws InterruptedException {
        if (!changed.service().equals(base.service()) || !changed.id().equals(base.id())) {
            throw new InvalidInstanceException("update of instance \"" + base.id() + "\" of " + base.service() + " names instance \""
                    + changed.id() + "\" of " + changed.service() + "; register that one instead");
        }
        synchronized (this) {
            checkOpen();
            base = changed;
            maintenance = !changed.inService();
            publish(false);
        }
    }

    @Override
    public synchronized void outOfService() throws InterruptedException {
        checkOpen();
        maintenance = true;
        publish(false);
    }

    @Override
    public synchronized void inService() throws InterruptedException {
        checkOpen();
        maintenance = false;
        publish(false);
    }

    @Override
    public boolean healthy() {
        return healthy;
    }

    /** The scheduled check: publishes only when the result changes. */
    void runHealthCheck() {
        if (closed.get()) {
            return;
        }
        boolean ok = check();
        synchronized (this) {
            if (ok == healthy || closed.get()) {
                return;
            }
            healthy = ok;
            LOG.info("instance {} of {} is {} its health check: {}", base.id(), base.service(), ok ? "passing" : "failing",
                    ok ? "back in service" : "out of service");
            try {
                publish(false);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (CoordException e) {
                LOG.warn("could not publish the health of instance {} of {}: {}", base.id(), base.service(), e.getMessage());
            }
        }
    }

    private boolean check() {
        try {
            return healthCheck.getAsBoolean();
        } catch (RuntimeException e) {
            LOG.debug("health check of {} threw; counted as failing", base.id(), e);
            return false;
        }
    }

    /** Publishes {@code base} with the current in-service state. Caller holds the monitor. */
    private void publish(boolean first) throws InterruptedException {
        Endpoint e = base.toBuilder().inService(!maintenance && healthy).build();
        ServiceInstance<InstanceCodec.Meta> instance = InstanceCodec.toInstance(e, registeredAt);
        Zk zk = discovery.zk();
        CoordPath path = discovery.instancePath(e);
        byte[] bytes = zk.callUninterruptibly(path, () -> discovery.codec().serialize(instance));
        zk.checkSize(path, bytes.length);
        try {
            zk.call(path, () -> {
                if (first) {
                    discovery.curatorDiscovery().registerService(instance);
                } else {
                    try {
                        discovery.curatorDiscovery().updateService(instance);
                    } catch (KeeperException.NoNodeException gone) {
                        // The session ended; Curator registers the updated instance on the next one.
                        LOG.debug("instance {} is not registered right now; Curator re-registers it with this update", path);
                    }
                }
                return null;
            });
        } catch (ConnectionLostException | SessionExpiredException e2) {
            if (!first) {
                throw e2;
            }
            // Curator holds the registration and writes it when the connection (or a new session)
            // comes back, as its own start() does: the registration stands, so return the handle.
            LOG.warn("instance {} could not be written now ({}); it is registered when the connection comes back", path,
                    e2.getMessage());
        }
        published = e;
        publishedInstance = instance;
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        ScheduledFuture<?> task = checkTask;
        if (task != null) {
            task.cancel(false);
        }
        ServiceInstance<InstanceCodec.Meta> instance = publishedInstance;
        if (instance != null && !discovery.zk().client().isClosed()) { // a closed client's session already took the node
            CoordPath path = discovery.instancePath(published);
            try {
                discovery.zk().call(path, () -> {
                    discovery.curatorDiscovery().unregisterService(instance);
                    return null;
                });
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (CoordException e) {
                LOG.warn("could not unregister {} now ({}); Curator's guaranteed delete keeps trying, and the node is"
                        + " ephemeral", path, e.getMessage());
            }
        }
        discovery.forget(this);
    }

    private void checkOpen() {
        if (closed.get()) {
            throw new IllegalStateException("instance " + base.id() + " of " + base.service() + " was unregistered");
        }
    }

    @Override
    public String toString() {
        Endpoint e = published;
        return "Announcement[" + e.service() + "/" + e.id() + " " + (e.inService() ? "in service" : "out of service") + "]";
    }
}
