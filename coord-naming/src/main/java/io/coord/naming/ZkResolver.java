package io.coord.naming;

import io.coord.CoordException;
import io.coord.CoordPath;
import io.coord.CoordTimeoutException;
import io.coord.internal.Zk;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.x.discovery.ServiceCache;
import org.apache.curator.x.discovery.ServiceInstance;
import org.apache.curator.x.discovery.details.ServiceCacheListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link Resolver} over curator-x-discovery's {@code ServiceCache}. An instance it cannot decode
 * is not resolved; it is logged at WARN once by node name ({@link ZkDiscovery#reportUndecodable})
 * and listed by {@link Discovery#undecodable}. On every cache change the
 * instances are converted once into a {@link View} (sorted, in-service subset, pick candidates);
 * {@link #resolve()} reads the current view and asks {@link PickRule}, so a call costs no I/O and,
 * while nobody is reported failing, no allocation beyond the {@code Optional}.
 */
final class ZkResolver implements Resolver {
    private static final Logger LOG = LoggerFactory.getLogger(ZkResolver.class);

    /** One converted state of the cache. */
    private record View(List<Endpoint> all, List<Endpoint> inService, PickRule.Candidates candidates) {
        static final View EMPTY = new View(List.of(), List.of(), PickRule.Candidates.NONE);
    }

    private final ZkDiscovery discovery;
    private final String service;
    private final Strategy strategy;
    private final String localZone;
    private final PickRule rule;
    private final DownInstances down;
    private final ServiceCache<InstanceCodec.Meta> cache;
    private final AtomicBoolean started = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile View view = View.EMPTY;
    /** How many instances of the last view could not be decoded: more than before makes the discovery name them. */
    private int undecodable;

    private final ServiceCacheListener listener = new ServiceCacheListener() {
        @Override
        public void cacheChanged() {
            rebuild();
        }

        @Override
        public void stateChanged(CuratorFramework client, ConnectionState newState) {
            // The cache keeps its last view while disconnected and refreshes itself after.
        }
    };

    ZkResolver(ZkDiscovery discovery, String service, Strategy strategy, PickRule rule) {
        this.discovery = discovery;
        this.service = service;
        this.strategy = strategy;
        this.localZone = discovery.options().localZone();
        this.rule = rule;
        this.down = new DownInstances(discovery.options().downErrorThreshold(), discovery.options().downTimeout(),
                discovery.nanoTime());
        this.cache = discovery.curatorDiscovery().serviceCacheBuilder().name(service).build();
    }

    /** Starts the cache and waits (at most the connection timeout) for its first load. */
    void start() throws InterruptedException {
        Zk zk = discovery.zk();
        CoordPath path = ServiceNames.instancesPath(discovery.options().root(), service);
        cache.addListener(listener, zk.events());
        CountDownLatch loaded = zk.call(path, () -> {
            CountDownLatch latch = cache.startImmediate();
            started.set(true);
            return latch;
        });
        var timeout = zk.client().settings().connectionTimeout();
        if (!loaded.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new CoordTimeoutException("the instance cache of " + service + " (" + path + ") did not load within " + timeout);
        }
        rebuild();
    }

    private void rebuild() {
        if (closed.get()) {
            return;
        }
        List<Endpoint> all = new ArrayList<>();
        int bad = 0;
        for (ServiceInstance<InstanceCodec.Meta> instance : cache.getInstances()) {
            try {
                all.add(InstanceCodec.toEndpoint(service, instance));
            } catch (CoordException e) {
                bad++;
            }
        }
        boolean more;
        synchronized (this) {
            more = bad > undecodable;
            undecodable = bad;
        }
        if (more) {
            // Curator's cache keeps instances by node but hands out only their data: read the
            // nodes (off the event thread, outside the lock) to log each undecodable one by name, once.
            discovery.zk().offEventThread(() -> discovery.reportUndecodable(service));
        }
        all.sort(Comparator.comparing(Endpoint::id));
        List<Endpoint> inService = all.stream().filter(Endpoint::inService).toList();
        view = new View(List.copyOf(all), inService, PickRule.Candidates.of(inService, localZone));
    }

    @Override
    public String service() {
        return service;
    }

    @Override
    public Strategy strategy() {
        return strategy;
    }

    @Override
    public Optional<Endpoint> resolve() {
        checkOpen();
        View v = view;
        PickRule.Candidates candidates = down.none() ? v.candidates() : PickRule.Candidates.of(notDown(v.inService()), localZone);
        return Optional.ofNullable(rule.pick(candidates));
    }

    @Override
    public List<Endpoint> available() {
        checkOpen();
        View v = view;
        return down.none() ? v.inService() : List.copyOf(notDown(v.inService()));
    }

    @Override
    public List<Endpoint> all() {
        checkOpen();
        return view.all();
    }

    @Override
    public void reportFailing(Endpoint endpoint) {
        if (endpoint.service().equals(service)) {
            down.noteError(endpoint.id());
        }
    }

    private List<Endpoint> notDown(List<Endpoint> endpoints) {
        List<Endpoint> out = new ArrayList<>(endpoints.size());
        for (Endpoint e : endpoints) {
            if (!down.isDown(e.id())) {
                out.add(e);
            }
        }
        return out;
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        cache.removeListener(listener);
        if (started.get()) {
            try {
                cache.close();
            } catch (Exception e) {
                LOG.debug("closing the instance cache of {} failed", service, e);
            }
        }
        discovery.forget(this);
    }

    private void checkOpen() {
        if (closed.get()) {
            throw new IllegalStateException("the resolver of " + service + " is closed");
        }
    }

    @Override
    public String toString() {
        return "Resolver[" + service + " " + strategy + ", " + view.inService().size() + " in service]";
    }
}
