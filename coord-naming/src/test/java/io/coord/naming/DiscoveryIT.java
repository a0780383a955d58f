package io.coord.naming;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.ConfigurationException;
import io.coord.CoordClient;
import io.coord.CoordPath;
import io.coord.InvalidNameException;
import io.coord.internal.Zk;
import io.coord.test.Awaits;
import io.coord.test.Faults;
import io.coord.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.apache.curator.x.discovery.ServiceDiscovery;
import org.apache.curator.x.discovery.ServiceDiscoveryBuilder;
import org.apache.curator.x.discovery.ServiceInstance;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class DiscoveryIT {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.single();

    @RegisterExtension
    final NamingThreadsCheck threads = new NamingThreadsCheck();

    private static final String SERVICE = "orders.payments.prod";
    private static final Duration VISIBLE = Duration.ofSeconds(5);

    private static Endpoint endpoint(String id, String zone, int weight) {
        return Endpoint.builder(SERVICE, id).address("10.0.0." + (id.hashCode() & 0x7f)).port(8080).zone(zone).weight(weight).build();
    }

    private Discovery open(DiscoveryOptions options) throws InterruptedException {
        return Discovery.open(zk.newClient(), options);
    }

    private static Set<String> ids(Resolver r) {
        return r.available().stream().map(Endpoint::id).collect(Collectors.toSet());
    }

    private static void awaitIds(Resolver r, Set<String> expected) throws InterruptedException {
        Awaits.until("resolver of " + r.service() + " to come to " + expected
                + " (has " + ids(r) + ")", VISIBLE, () -> ids(r).equals(expected));
    }

    @Test
    void registerAndUnregisterAreVisibleToResolvers() throws Exception {
        try (Discovery services = open(DiscoveryOptions.defaults()); Discovery callers = open(DiscoveryOptions.defaults());
             Resolver resolver = callers.resolver(SERVICE, Strategy.ROUND_ROBIN)) {
            assertEquals(Optional.empty(), resolver.resolve());
            Announcement a = services.register(endpoint("a", null, 1));
            Announcement b = services.register(endpoint("b", null, 1));
            awaitIds(resolver, Set.of("a", "b"));
            assertTrue(Set.of(a.endpoint(), b.endpoint()).contains(callers.resolve(SERVICE).orElseThrow()),
                    "Discovery.resolve answers from its own cache");
            a.close();
            awaitIds(resolver, Set.of("b"));
            b.close();
            awaitIds(resolver, Set.of());
            assertEquals(Optional.empty(), resolver.resolve());
        }
    }

    @Test
    void aCrashedInstanceDisappearsFromResolvers() throws Exception {
        CoordClient crashing = zk.newClient();
        Discovery services = Discovery.open(crashing);
        try (Discovery callers = open(DiscoveryOptions.defaults()); Resolver resolver = callers.resolver(SERVICE, Strategy.RANDOM)) {
            services.register(endpoint("doomed", null, 1));
            awaitIds(resolver, Set.of("doomed"));
            crashing.close(); // the process goes away without unregistering: its session ends
            awaitIds(resolver, Set.of());
        } finally {
            services.close();
        }
    }

    @Test
    void anInstanceComesBackByItselfAfterItsSessionExpires() throws Exception {
        CoordClient victim = zk.newClient();
        try (Discovery services = Discovery.open(victim); Discovery callers = open(DiscoveryOptions.defaults());
             Resolver resolver = callers.resolver(SERVICE, Strategy.ROUND_ROBIN)) {
            services.register(endpoint("phoenix", null, 1));
            awaitIds(resolver, Set.of("phoenix"));
            long before = victim.session().id();
            Faults.expireSession(victim, zk.ensemble());
            Awaits.until("a new session", Duration.ofSeconds(20), () -> victim.session().id() != before);
            awaitIds(resolver, Set.of("phoenix"));
            CoordPath node = ServiceNames.instancesPath(Layout.SERVICES, SERVICE).child("phoenix");
            Awaits.until("the instance to be re-registered on the new session", VISIBLE, () -> ownerOf(victim, node) == victim.session().id());
        }
    }

    @Test
    void roundRobinTakesEachInstanceInTurn() throws Exception {
        try (Discovery d = open(DiscoveryOptions.defaults()); Resolver r = d.resolver(SERVICE, Strategy.ROUND_ROBIN)) {
            for (String id : List.of("a", "b", "c")) {
                d.register(endpoint(id, null, 1));
            }
            awaitIds(r, Set.of("a", "b", "c"));
            String first = r.resolve().orElseThrow().id();
            List<String> order = List.of("a", "b", "c");
            int at = order.indexOf(first);
            for (int i = 1; i < 9; i++) {
                assertEquals(order.get((at + i) % 3), r.resolve().orElseThrow().id());
            }
        }
    }

    @Test
    void randomReachesEveryInstanceAboutEqually() throws Exception {
        try (Discovery d = open(DiscoveryOptions.defaults()); Resolver r = d.resolver(SERVICE, Strategy.RANDOM)) {
            for (String id : List.of("a", "b", "c")) {
                d.register(endpoint(id, null, 1));
            }
            awaitIds(r, Set.of("a", "b", "c"));
            Map<String, Integer> counts = picks(r, 30_000);
            counts.values().forEach(n -> assertEquals(1.0 / 3, n / 30_000.0, 0.03, counts.toString()));
        }
    }

    @Test
    void weightedPicksInProportionToTheRegisteredWeights() throws Exception {
        try (Discovery d = open(DiscoveryOptions.defaults()); Resolver r = d.resolver(SERVICE, Strategy.WEIGHTED)) {
            d.register(endpoint("light", null, 1));
            d.register(endpoint("medium", null, 3));
            d.register(endpoint("heavy", null, 6));
            awaitIds(r, Set.of("light", "medium", "heavy"));
            Map<String, Integer> counts = picks(r, 50_000);
            assertEquals(0.1, counts.get("light") / 50_000.0, 0.02, counts.toString());
            assertEquals(0.3, counts.get("medium") / 50_000.0, 0.02, counts.toString());
            assertEquals(0.6, counts.get("heavy") / 50_000.0, 0.02, counts.toString());
        }
    }

    @Test
    void stickyKeepsOneInstanceUntilItGoesAway() throws Exception {
        try (Discovery d = open(DiscoveryOptions.defaults()); Resolver r = d.resolver(SERVICE, Strategy.STICKY)) {
            Map<String, Announcement> registered = new HashMap<>();
            for (String id : List.of("a", "b", "c")) {
                registered.put(id, d.register(endpoint(id, null, 1)));
            }
            awaitIds(r, Set.of("a", "b", "c"));
            String stuck = r.resolve().orElseThrow().id();
            assertEquals(Map.of(stuck, 100), picks(r, 100));
            registered.get(stuck).close();
            Awaits.until("sticky to move on", VISIBLE, () -> !r.resolve().orElseThrow().id().equals(stuck));
            String next = r.resolve().orElseThrow().id();
            assertEquals(Map.of(next, 100), picks(r, 100));
        }
    }

    @Test
    void zonePreferringStaysLocalAndFallsBackToOtherZonesWhenTheLocalOneIsEmpty() throws Exception {
        DiscoveryOptions options = DiscoveryOptions.builder().localZone("eu-1").build();
        try (Discovery d = open(options); Resolver r = d.resolver(SERVICE, Strategy.ZONE_PREFERRING)) {
            Announcement local1 = d.register(endpoint("local-1", "eu-1", 1));
            Announcement local2 = d.register(endpoint("local-2", "eu-1", 1));
            d.register(endpoint("remote-1", "us-1", 1));
            d.register(endpoint("remote-2", "us-1", 1));
            awaitIds(r, Set.of("local-1", "local-2", "remote-1", "remote-2"));
            assertEquals(Map.of("local-1", 50, "local-2", 50), picks(r, 100));
            local1.outOfService();
            awaitIds(r, Set.of("local-2", "remote-1", "remote-2"));
            assertEquals(Map.of("local-2", 100), picks(r, 100));
            local2.close();
            awaitIds(r, Set.of("remote-1", "remote-2"));
            assertEquals(Map.of("remote-1", 50, "remote-2", 50), picks(r, 100), "fallback to the other zone");
            local1.inService();
            awaitIds(r, Set.of("local-1", "remote-1", "remote-2"));
            assertEquals(Map.of("local-1", 100), picks(r, 100), "back to the local zone");
        }
    }

    @Test
    void aReportedInstanceIsSkippedForAWhileAndComesBackOnItsOwn() throws Exception {
        AtomicLong clock = new AtomicLong(System.nanoTime());
        DiscoveryOptions options = DiscoveryOptions.builder().downInstancePolicy(Duration.ofSeconds(30), 2).build();
        try (ZkDiscovery d = ZkDiscovery.start(Zk.of(zk.newClient()), options, clock::get);
             Resolver r = d.resolver(SERVICE, Strategy.ROUND_ROBIN)) {
            d.register(endpoint("flaky", null, 1));
            d.register(endpoint("solid", null, 1));
            awaitIds(r, Set.of("flaky", "solid"));
            Endpoint flaky = r.all().stream().filter(e -> e.id().equals("flaky")).findFirst().orElseThrow();
            r.reportFailing(flaky);
            assertEquals(Set.of("flaky", "solid"), picks(r, 10).keySet(), "one report is under the threshold of 2");
            r.reportFailing(flaky);
            assertEquals(Map.of("solid", 10), picks(r, 10), "skipped after two reports");
            clock.addAndGet(Duration.ofSeconds(29).toNanos());
            assertEquals(Map.of("solid", 10), picks(r, 10));
            clock.addAndGet(Duration.ofSeconds(1).toNanos());
            assertEquals(Map.of("flaky", 5, "solid", 5), picks(r, 10), "back on its own after the timeout");
            assertEquals(2, r.all().size(), "reporting never unregisters anything");
        }
    }

    @Test
    void maintenanceTakesAnInstanceOutOfServiceWithoutUnregisteringIt() throws Exception {
        try (Discovery d = open(DiscoveryOptions.defaults()); Resolver r = d.resolver(SERVICE, Strategy.ROUND_ROBIN)) {
            Announcement a = d.register(endpoint("a", null, 1));
            d.register(endpoint("b", null, 1));
            awaitIds(r, Set.of("a", "b"));
            a.outOfService();
            awaitIds(r, Set.of("b"));
            assertEquals(2, r.all().size());
            assertFalse(r.all().stream().filter(e -> e.id().equals("a")).findFirst().orElseThrow().inService());
            assertEquals(2, d.instances(SERVICE).size(), "still registered");
            a.inService();
            awaitIds(r, Set.of("a", "b"));
        }
    }

    @Test
    void aFailingHealthCheckTakesTheInstanceOutOfServiceAndAPassingOneBringsItBack() throws Exception {
        DiscoveryOptions options = DiscoveryOptions.builder().healthCheckInterval(Duration.ofMillis(50)).build();
        AtomicBoolean healthy = new AtomicBoolean(true);
        try (Discovery d = open(options); Resolver r = d.resolver(SERVICE, Strategy.ROUND_ROBIN)) {
            Announcement a = d.register(endpoint("checked", null, 1), healthy::get);
            awaitIds(r, Set.of("checked"));
            healthy.set(false);
            awaitIds(r, Set.of());
            assertFalse(a.healthy());
            healthy.set(true);
            awaitIds(r, Set.of("checked"));
            a.outOfService(); // maintenance wins over a passing check
            awaitIds(r, Set.of());
        }
    }

    @Test
    void anInstanceThatStartsUnhealthyIsNeverResolved() throws Exception {
        DiscoveryOptions options = DiscoveryOptions.builder().healthCheckInterval(Duration.ofHours(1)).build();
        try (Discovery d = open(options); Resolver r = d.resolver(SERVICE, Strategy.ROUND_ROBIN)) {
            Announcement a = d.register(endpoint("sick", null, 1), () -> {
                throw new IllegalStateException("database down");
            });
            Awaits.until("the instance to be registered", VISIBLE, () -> r.all().size() == 1);
            assertEquals(Optional.empty(), r.resolve());
            assertFalse(a.endpoint().inService());
        }
    }

    @Test
    void anUpdateIsSeenByResolvers() throws Exception {
        try (Discovery d = open(DiscoveryOptions.defaults()); Resolver r = d.resolver(SERVICE, Strategy.ROUND_ROBIN)) {
            Announcement a = d.register(endpoint("a", null, 1));
            awaitIds(r, Set.of("a"));
            a.update(a.endpoint().toBuilder().port(9090).weight(7).payloadJson("{\"version\": \"2.1\"}").build());
            Awaits.until("the update to be seen", VISIBLE, () -> r.resolve().orElseThrow().port() == 9090);
            Endpoint seen = r.resolve().orElseThrow();
            assertEquals(7, seen.weight());
            assertEquals("2.1", seen.payload().get("version").asText());
            assertThrows(InvalidInstanceException.class, () -> a.update(endpoint("other", null, 1)));
        }
    }

    @Test
    void aDuplicateIdIsRefusedAndTheFirstInstanceKept() throws Exception {
        try (Discovery first = open(DiscoveryOptions.defaults()); Discovery second = open(DiscoveryOptions.defaults());
             Resolver r = first.resolver(SERVICE, Strategy.ROUND_ROBIN)) {
            Announcement a = first.register(endpoint("dup", null, 1));
            InvalidInstanceException here = assertThrows(InvalidInstanceException.class, () -> first.register(endpoint("dup", null, 2)));
            assertTrue(here.getMessage().contains("duplicate id"), here.getMessage());
            InvalidInstanceException there = assertThrows(InvalidInstanceException.class, () -> second.register(endpoint("dup", null, 2)));
            assertTrue(there.getMessage().contains("already registered"), there.getMessage());
            awaitIds(r, Set.of("dup"));
            assertEquals(1, r.resolve().orElseThrow().weight(), "the first registration was not replaced");
            a.close();
        }
    }

    @Test
    void badNamesAreRefusedBeforeAnythingIsSent() throws Exception {
        CoordClient client = zk.newClient();
        try (Discovery d = Discovery.open(client)) {
            assertThrows(InvalidNameException.class, () -> d.resolver("orders/payments", Strategy.ROUND_ROBIN));
            assertThrows(InvalidNameException.class, () -> d.resolve("Orders.prod"));
            assertThrows(InvalidNameException.class, () -> d.instances("a..b"));
            assertThrows(InvalidNameException.class, () -> d.services("-x"));
            assertThrows(ConfigurationException.class, () -> d.resolver(SERVICE, Strategy.ZONE_PREFERRING));
            assertEquals(null, client.curator().checkExists().forPath("/services/payments"));
        }
    }

    @Test
    void servicesAreListedByDomainAndInstancesReadDirectly() throws Exception {
        try (Discovery d = open(DiscoveryOptions.defaults())) {
            d.register(endpoint("o1", null, 1));
            d.register(Endpoint.builder("refunds.payments.prod", "r1").address("h").port(1).build());
            d.register(Endpoint.builder("search.prod", "s1").address("h").port(1).build());
            d.register(Endpoint.builder("payments.prod", "p1").address("h").port(1).build());
            d.register(Endpoint.builder("search.staging", "s1").address("h").port(1).build());
            assertEquals(List.of("orders.payments.prod", "payments.prod", "refunds.payments.prod", "search.prod"), d.services("prod"));
            assertEquals(List.of("orders.payments.prod", "payments.prod", "refunds.payments.prod"), d.services("payments.prod"));
            assertEquals(5, d.services(null).size());
            assertEquals(List.of(), d.services("nothing.here"));
            assertEquals(List.of("o1"), d.instances(SERVICE).stream().map(Endpoint::id).toList());
        }
    }

    @Test
    void plainCuratorClientsCanReadWhatCoordRegisters() throws Exception {
        CoordClient client = zk.newClient();
        try (Discovery d = Discovery.open(client)) {
            d.register(Endpoint.builder(SERVICE, "x").address("10.1.1.1").port(81).tlsPort(443).zone("eu-1").weight(4)
                    .payloadJson("{\"k\": 1}").build());
            ServiceDiscovery<Object> plain = ServiceDiscoveryBuilder.builder(Object.class).client(client.curator())
                    .basePath("/services/prod/payments/orders").build();
            plain.start();
            try {
                var instances = plain.queryForInstances("_instances");
                assertEquals(1, instances.size());
                ServiceInstance<Object> i = instances.iterator().next();
                assertEquals("10.1.1.1", i.getAddress());
                assertEquals(443, i.getSslPort());
                assertTrue(String.valueOf(i.getPayload()).contains("eu-1"), String.valueOf(i.getPayload()));
            } finally {
                plain.close();
            }
        }
    }

    private static Map<String, Integer> picks(Resolver r, int n) {
        Map<String, Integer> counts = new HashMap<>();
        for (int i = 0; i < n; i++) {
            counts.merge(r.resolve().orElseThrow().id(), 1, Integer::sum);
        }
        return counts;
    }

    private static long ownerOf(CoordClient client, CoordPath node) {
        try {
            var stat = client.curator().checkExists().forPath(node.value());
            return stat == null ? -1 : stat.getEphemeralOwner();
        } catch (Exception e) {
            return -1;
        }
    }
}
