package io.coord.naming;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.test.Awaits;
import io.coord.test.ZooKeeperExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.x.discovery.ServiceCache;
import org.apache.curator.x.discovery.ServiceDiscovery;
import org.apache.curator.x.discovery.ServiceDiscoveryBuilder;
import org.apache.curator.x.discovery.ServiceInstance;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * curator-x-discovery 5.9's {@code ServiceDiscovery} and Coord's {@code Discovery} registering
 * instances of one service on one path: each side resolves the other's, and an instance node Coord
 * cannot decode is reported by name (inspection, and WARN once), never dropped in silence.
 */
class CuratorDiscoveryBesideIT {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.single();

    @RegisterExtension
    final NamingThreadsCheck threads = new NamingThreadsCheck();

    private static final String SERVICE = "orders.payments.prod";
    /** Where a plain Curator client puts Coord's service: this base path, and the service name {@code _instances}. */
    private static final String CURATOR_BASE = "/services/prod/payments/orders";
    private static final String CURATOR_NAME = "_instances";
    private static final Duration WAIT = Duration.ofSeconds(10);

    private final CuratorClients curators = new CuratorClients(zk);
    private final List<AutoCloseable> opened = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        for (int i = opened.size() - 1; i >= 0; i--) {
            opened.get(i).close();
        }
        curators.close();
    }

    private ServiceDiscovery<Object> curatorDiscovery(CuratorFramework client) throws Exception {
        ServiceDiscovery<Object> d = ServiceDiscoveryBuilder.builder(Object.class).client(client).basePath(CURATOR_BASE).build();
        opened.add(d);
        d.start();
        return d;
    }

    private static Set<String> ids(Resolver r) {
        return r.available().stream().map(Endpoint::id).collect(Collectors.toSet());
    }

    private static Set<String> ids(ServiceCache<Object> cache) {
        return cache.getInstances().stream().map(ServiceInstance::getId).collect(Collectors.toSet());
    }

    @Test
    void curatorAndCoordInstancesOfOneServiceResolveEachOther() throws Exception {
        CuratorFramework curatorClient = curators.connect();
        ServiceDiscovery<Object> curatorSide = curatorDiscovery(curatorClient);
        curatorSide.registerService(ServiceInstance.builder().name(CURATOR_NAME).id("curator-1").address("10.2.0.1").port(9090).build());
        ServiceCache<Object> curatorCache = curatorSide.serviceCacheBuilder().name(CURATOR_NAME).build();
        opened.add(curatorCache);
        curatorCache.start();

        Discovery coordSide = Discovery.open(zk.newClient());
        opened.add(coordSide);
        coordSide.register(Endpoint.builder(SERVICE, "coord-1").address("10.1.0.1").port(8080).zone("eu-1").build());
        Resolver resolver = coordSide.resolver(SERVICE, Strategy.ROUND_ROBIN);
        opened.add(resolver);

        Awaits.until("Coord resolves both (has " + ids(resolver) + ")", WAIT, () -> ids(resolver).equals(Set.of("curator-1", "coord-1")));
        Endpoint fromCurator = resolver.available().stream().filter(e -> e.id().equals("curator-1")).findFirst().orElseThrow();
        assertEquals(SERVICE, fromCurator.service(), "an instance is of the service its node is under");
        assertEquals("10.2.0.1:9090", fromCurator.hostAndPort());
        assertEquals(List.of("coord-1", "curator-1"), coordSide.instances(SERVICE).stream().map(Endpoint::id).toList());

        Awaits.until("Curator's cache has both (has " + ids(curatorCache) + ")", WAIT,
                () -> ids(curatorCache).equals(Set.of("curator-1", "coord-1")));
        ServiceInstance<Object> fromCoord = curatorSide.queryForInstance(CURATOR_NAME, "coord-1");
        assertEquals("10.1.0.1", fromCoord.getAddress());
        assertEquals(8080, fromCoord.getPort());

        opened.remove(curatorCache);
        curatorCache.close();
        opened.remove(curatorSide);
        curatorClient.close(); // its session ends, and with it the ephemeral instance (no unregister: a crash)
        Awaits.until("Coord stops resolving the Curator instance whose session ended (has " + ids(resolver) + ")", WAIT,
                () -> ids(resolver).equals(Set.of("coord-1")));
    }

    @Test
    void anInstanceCoordCannotDecodeIsReportedByNameOnceAndTheOthersStillResolve() throws Exception {
        CuratorFramework writer = curators.connect();
        String dir = CURATOR_BASE + "/" + CURATOR_NAME;
        ServiceDiscovery<Object> curatorSide = curatorDiscovery(writer);
        curatorSide.registerService(ServiceInstance.builder().name(CURATOR_NAME).id("curator-ok").address("10.2.0.2").port(9091).build());

        try (LogCapture log = new LogCapture()) {
            Discovery coordSide = Discovery.open(zk.newClient());
            opened.add(coordSide);
            Resolver resolver = coordSide.resolver(SERVICE, Strategy.ROUND_ROBIN);
            opened.add(resolver);
            writer.create().forPath(dir + "/garbled-x1", "not json {".getBytes(StandardCharsets.UTF_8));
            writer.create().forPath(dir + "/portless-x1",
                    "{\"name\":\"_instances\",\"id\":\"portless-x1\",\"address\":\"10.9.9.9\",\"sslPort\":8443}".getBytes(StandardCharsets.UTF_8));
            coordSide.register(Endpoint.builder(SERVICE, "coord-ok").address("10.1.0.2").port(8081).build());

            Awaits.until("Coord resolves the two decodable instances (has " + ids(resolver) + ")", WAIT,
                    () -> ids(resolver).equals(Set.of("curator-ok", "coord-ok")));
            var undecodable = coordSide.undecodable(SERVICE);
            assertEquals(List.of("garbled-x1", "portless-x1"), List.copyOf(undecodable.keySet()), "named by node: " + undecodable);
            assertTrue(undecodable.get("garbled-x1").contains("not curator-x-discovery instance JSON"), undecodable.toString());
            assertTrue(undecodable.get("portless-x1").contains("port"), undecodable.toString());
            assertEquals(List.of("coord-ok", "curator-ok"), coordSide.instances(SERVICE).stream().map(Endpoint::id).toList(),
                    "inspection lists the decodable ones and does not fail on the others");
            Awaits.until("each undecodable node is logged at WARN", WAIT,
                    () -> log.warnings(dir + "/garbled-x1") == 1 && log.warnings(dir + "/portless-x1") == 1);
            coordSide.undecodable(SERVICE);
            coordSide.instances(SERVICE);
            writer.setData().forPath(dir + "/garbled-x1", "still not json".getBytes(StandardCharsets.UTF_8)); // the cache reloads it
            Awaits.until("the resolver saw the change", WAIT, () -> ids(resolver).equals(Set.of("curator-ok", "coord-ok")));
            assertEquals(1, log.warnings(dir + "/garbled-x1"), "logged once, not per read or per cache change:\n" + log.text());
            assertEquals(1, log.warnings(dir + "/portless-x1"), "logged once:\n" + log.text());
        }
    }
}
