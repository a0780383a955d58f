package io.coord.naming;

import io.coord.ConfigurationException;
import io.coord.CoordPath;
import io.coord.InvalidNameException;
import io.coord.internal.ForeignNodeWarnings;
import io.coord.internal.Zk;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.x.discovery.DiscoveryPathConstructor;
import org.apache.curator.x.discovery.ServiceDiscovery;
import org.apache.curator.x.discovery.ServiceDiscoveryBuilder;
import org.apache.curator.x.discovery.ServiceInstance;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link Discovery} on one curator-x-discovery {@code ServiceDiscovery} whose path constructor maps
 * DNS-style names to the service tree ({@link ServiceNames}). Curator keeps the registered
 * instances and re-registers them after a new session; this class adds validation, duplicate-id
 * refusal, maintenance and health checks, and resolvers over Curator's watched cache.
 */
final class ZkDiscovery implements Discovery {
    private static final Logger LOG = LoggerFactory.getLogger(ZkDiscovery.class);
    private static final AtomicInteger IDS = new AtomicInteger();
    /** One WARN per undecodable instance node in this JVM, whichever Discovery or resolver finds it. */
    private static final ForeignNodeWarnings UNDECODABLE = new ForeignNodeWarnings(LOG, "coord-naming discovery");

    private final Zk zk;
    private final DiscoveryOptions options;
    private final ServiceDiscovery<InstanceCodec.Meta> curatorDiscovery;
    private final InstanceCodec codec = new InstanceCodec();
    private final LongSupplier nanoTime;
    private final ScheduledExecutorService healthChecks;
    private final ConcurrentHashMap<String, ZkAnnouncement> registered = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, ZkResolver> defaultResolvers = new ConcurrentHashMap<>();
    private final Set<ZkResolver> resolvers = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean closed = new AtomicBoolean();

    private ZkDiscovery(Zk zk, DiscoveryOptions options, LongSupplier nanoTime) {
        this.zk = zk;
        this.options = Objects.requireNonNull(options, "options");
        this.nanoTime = nanoTime;
        CoordPath root = options.root();
        this.curatorDiscovery = ServiceDiscoveryBuilder.builder(InstanceCodec.Meta.class)
                .client(zk.curator())
                .serializer(codec)
                .pathConstructor(new DiscoveryPathConstructor() {
                    @Override
                    public String getBasePath() {
                        return root.value();
                    }

                    @Override
                    public String getPathForInstances(String serviceName) {
                        return ServiceNames.instancesPath(root, serviceName).value();
                    }
                })
                .build();
        int id = IDS.incrementAndGet();
        this.healthChecks = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "coord-discovery-health-" + id);
            t.setDaemon(true);
            return t;
        });
    }

    static ZkDiscovery start(Zk zk, DiscoveryOptions options) {
        return start(zk, options, System::nanoTime);
    }

    /** {@code nanoTime} drives the down-instance timeouts; tests pass their own clock. */
    static ZkDiscovery start(Zk zk, DiscoveryOptions options, LongSupplier nanoTime) {
        ZkDiscovery discovery = new ZkDiscovery(zk, options, nanoTime);
        try {
            discovery.curatorDiscovery.start(); // nothing registered yet: only adds Curator's reconnect listener
        } catch (Exception e) {
            discovery.close();
            throw zk.translate(e, options.root());
        }
        return discovery;
    }

    @Override
    public DiscoveryOptions options() {
        return options;
    }

    @Override
    public Announcement register(Endpoint endpoint) throws InterruptedException {
        return register(endpoint, null);
    }

    @Override
    public Announcement register(Endpoint endpoint, BooleanSupplier healthCheck) throws InterruptedException {
        Objects.requireNonNull(endpoint, "endpoint");
        checkOpen();
        String key = key(endpoint);
        ZkAnnouncement announcement = new ZkAnnouncement(this, endpoint, healthCheck);
        if (registered.putIfAbsent(key, announcement) != null) {
            throw new InvalidInstanceException("duplicate id: instance \"" + endpoint.id() + "\" of " + endpoint.service()
                    + " is already registered through this Discovery");
        }
        boolean ok = false;
        try {
            CoordPath path = instancePath(endpoint);
            CuratorFramework curator = zk.curator();
            Stat existing = zk.call(path, () -> curator.checkExists().forPath(path.value()));
            if (existing != null) {
                throw new InvalidInstanceException("duplicate id: instance \"" + endpoint.id() + "\" of " + endpoint.service()
                        + " is already registered (" + path + ", session 0x" + Long.toHexString(existing.getEphemeralOwner())
                        + "); registering it again would replace that instance");
            }
            announcement.start();
            if (healthCheck != null) {
                long every = options.healthCheckInterval().toNanos();
                announcement.scheduled(healthChecks.scheduleWithFixedDelay(announcement::runHealthCheck, every, every,
                        TimeUnit.NANOSECONDS));
            }
            ok = true;
            return announcement;
        } finally {
            if (!ok) {
                registered.remove(key, announcement);
            }
        }
    }

    @Override
    public Resolver resolver(String service, Strategy strategy) throws InterruptedException {
        checkOpen();
        checkName(service);
        Objects.requireNonNull(strategy, "strategy");
        if (strategy == Strategy.ZONE_PREFERRING && options.localZone() == null) {
            throw new ConfigurationException("strategy ZONE_PREFERRING needs DiscoveryOptions.localZone to be set");
        }
        ZkResolver resolver = new ZkResolver(this, service, strategy,
                new PickRule(strategy, bound -> ThreadLocalRandom.current().nextInt(bound)));
        resolvers.add(resolver);
        boolean ok = false;
        try {
            resolver.start();
            ok = true;
            return resolver;
        } finally {
            if (!ok) {
                resolver.close();
            }
        }
    }

    @Override
    public Optional<Endpoint> resolve(String service) throws InterruptedException {
        ZkResolver resolver = defaultResolvers.get(service);
        if (resolver == null) {
            synchronized (defaultResolvers) {
                resolver = defaultResolvers.get(service);
                if (resolver == null) {
                    resolver = (ZkResolver) resolver(service, options.strategy());
                    defaultResolvers.put(service, resolver);
                }
            }
        }
        return resolver.resolve();
    }

    @Override
    public void reportFailing(Endpoint endpoint) {
        ZkResolver resolver = defaultResolvers.get(endpoint.service());
        if (resolver != null) {
            resolver.reportFailing(endpoint);
        }
    }

    @Override
    public List<String> services(String domain) throws InterruptedException {
        CoordPath start = options.root();
        if (domain != null) {
            checkName(domain);
            start = ServiceNames.servicePath(options.root(), domain);
        }
        Set<String> found = new TreeSet<>();
        List<CoordPath> todo = new ArrayList<>(List.of(start));
        CuratorFramework curator = zk.curator();
        while (!todo.isEmpty()) {
            CoordPath node = todo.remove(todo.size() - 1);
            List<String> children = zk.call(node, () -> {
                try {
                    return curator.getChildren().forPath(node.value());
                } catch (KeeperException.NoNodeException e) {
                    return List.<String>of();
                }
            });
            for (String child : children) {
                if (child.equals(Layout.INSTANCES)) {
                    String name = ServiceNames.nameOf(options.root(), node);
                    if (name != null) {
                        found.add(name);
                    }
                } else if (ServiceNames.labelProblem(child) == null) {
                    todo.add(node.child(child));
                }
            }
        }
        return List.copyOf(found);
    }

    @Override
    public List<Endpoint> instances(String service) throws InterruptedException {
        return read(service).endpoints();
    }

    @Override
    public SortedMap<String, String> undecodable(String service) throws InterruptedException {
        return read(service).undecodable();
    }

    /** The instance nodes of one service as read now: those Coord decodes, and the others by node name with why. */
    private record Read(List<Endpoint> endpoints, SortedMap<String, String> undecodable) {
    }

    /**
     * Reads every instance node of {@code service} (one round trip per node) and decodes it; a node
     * Coord cannot decode is logged at WARN once and returned by name, never dropped in silence.
     */
    private Read read(String service) throws InterruptedException {
        checkName(service);
        CoordPath path = ServiceNames.instancesPath(options.root(), service);
        CuratorFramework curator = zk.curator();
        List<String> ids = zk.call(path, () -> {
            try {
                return curator.getChildren().forPath(path.value());
            } catch (KeeperException.NoNodeException e) {
                return List.<String>of();
            }
        });
        List<Endpoint> endpoints = new ArrayList<>();
        SortedMap<String, String> undecodable = new TreeMap<>();
        for (String id : ids) {
            String node = path.value() + "/" + id; // not path.child(id): a foreign id need not be a valid Coord name
            byte[] data = zk.call(path, () -> {
                try {
                    return curator.getData().forPath(node);
                } catch (KeeperException.NoNodeException gone) {
                    return null;
                }
            });
            if (data == null) {
                continue; // its session ended between the two reads
            }
            try {
                endpoints.add(codec.decode(service, data));
            } catch (InvalidInstanceException e) {
                undecodable.put(id, e.getMessage());
            }
        }
        warnOnce(path, undecodable);
        endpoints.sort((a, b) -> a.id().compareTo(b.id()));
        return new Read(List.copyOf(endpoints), Collections.unmodifiableSortedMap(undecodable));
    }

    /** Logs each of {@code undecodable} (node name to why) under {@code path} at WARN, once per node in this JVM. */
    private static void warnOnce(CoordPath path, Map<String, String> undecodable) {
        undecodable.forEach((id, why) -> UNDECODABLE.check(path, List.of(id), any -> false,
                "curator-x-discovery instance JSON of a valid endpoint; this one: " + why));
    }

    /**
     * Called off the event thread by a resolver whose cache holds instances it cannot decode
     * (Curator's cache does not say which nodes): reads them by name, which warns once per node.
     */
    void reportUndecodable(String service) {
        try {
            read(service);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            LOG.debug("could not read the instances of {} to name the undecodable ones", service, e);
        }
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        healthChecks.shutdownNow();
        resolvers.forEach(ZkResolver::close);
        registered.values().forEach(ZkAnnouncement::close);
        try {
            curatorDiscovery.close();
        } catch (Exception e) {
            LOG.warn("closing service discovery under {} failed", options.root(), e);
        }
    }

    // --- for the announcement and resolver classes -------------------------------------------

    Zk zk() {
        return zk;
    }

    ServiceDiscovery<InstanceCodec.Meta> curatorDiscovery() {
        return curatorDiscovery;
    }

    InstanceCodec codec() {
        return codec;
    }

    LongSupplier nanoTime() {
        return nanoTime;
    }

    CoordPath instancePath(Endpoint e) {
        return ServiceNames.instancesPath(options.root(), e.service()).child(e.id());
    }

    void forget(ZkAnnouncement announcement) {
        registered.remove(key(announcement.endpoint()), announcement);
    }

    void forget(ZkResolver resolver) {
        resolvers.remove(resolver);
        defaultResolvers.remove(resolver.service(), resolver);
    }

    private static String key(Endpoint e) {
        return e.service() + " " + e.id();
    }

    private static void checkName(String service) {
        String problem = ServiceNames.problem(service);
        if (problem != null) {
            throw new InvalidNameException(problem);
        }
    }

    private void checkOpen() {
        if (closed.get()) {
            throw new IllegalStateException("this Discovery is closed");
        }
    }
}
