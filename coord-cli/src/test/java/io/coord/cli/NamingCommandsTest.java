package io.coord.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.coord.CoordClient;
import io.coord.CoordSettings;
import io.coord.naming.Discovery;
import io.coord.naming.Endpoint;
import io.coord.test.EmbeddedEnsemble;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class NamingCommandsTest {
    private static EmbeddedEnsemble server;

    @BeforeAll
    static void startServer() {
        server = EmbeddedEnsemble.start(EmbeddedEnsemble.Options.single());
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void idsNextPrintsCountIncreasingIdsOnePerLine() {
        Cli.Result r = Cli.run("ids", "next", "invoices", "--count", "5", "--connect", server.connectString());
        assertEquals(0, r.exitCode(), r.err());
        List<Long> ids = r.out().lines().map(Long::parseLong).toList();
        assertEquals(5, ids.size());
        for (int i = 1; i < ids.size(); i++) {
            assertEquals(ids.get(i - 1) + 1, ids.get(i), "consecutive while nobody else takes IDs: " + ids);
        }
        Cli.Result again = Cli.run("ids", "next", "invoices", "--connect", server.connectString());
        assertEquals(ids.get(4) + 1, Long.parseLong(again.out().trim()), "the sequence continues across runs");
    }

    @Test
    void idsNextJsonIsOneObject() throws Exception {
        Cli.Result r = Cli.run("ids", "next", "json-ids", "-n", "3", "--json", "--connect", server.connectString());
        assertEquals(0, r.exitCode(), r.err());
        JsonNode json = new ObjectMapper().readTree(r.out());
        assertEquals("json-ids", json.get("name").asText());
        assertEquals(3, json.get("ids").size());
    }

    @Test
    void badIdNamesAndCountsAreUsageErrors() {
        Cli.Result slash = Cli.run("ids", "next", "a/b", "--connect", server.connectString());
        assertEquals(CoordCommand.USAGE, slash.exitCode());
        assertTrue(slash.err().contains("\"a/b\" contains '/'"), slash.err());
        Cli.Result zero = Cli.run("ids", "next", "x", "--count", "0", "--connect", server.connectString());
        assertEquals(CoordCommand.USAGE, zero.exitCode());
        assertTrue(zero.err().contains("--count must be within 1..100000, got 0"), zero.err());
    }

    @Test
    void idsShowNamesACuratorCounterAndAForeignChildAndNothingForCoordsOwn() throws Exception {
        Cli.Result clean = Cli.run("ids", "next", "shown", "--connect", server.connectString());
        assertEquals(0, clean.exitCode(), clean.err());
        Cli.Result none = Cli.run("ids", "show", "shown", "--connect", server.connectString());
        assertEquals(0, none.exitCode(), none.err());
        assertEquals(List.of("ids         shown", "foreign     none"), none.out().lines().toList());

        try (CoordClient client = CoordClient.connect(CoordSettings.builder().connectString(server.connectString())
                .sessionTimeout(Duration.ofSeconds(10)).connectionTimeout(Duration.ofSeconds(10)).build())) {
            client.curator().create().forPath("/ids/shown/blocks", new byte[] {0, 0, 0, 0, 0, 0, 0, 9}); // a DistributedAtomicLong's 9
            client.curator().create().forPath("/ids/shown/notes", new byte[0]);
        }
        Cli.Result r = Cli.run("ids", "show", "shown", "--connect", server.connectString());
        assertEquals(0, r.exitCode(), r.err());
        assertEquals(List.of("ids         shown", "foreign     2 node(s) that are not Coord's:",
                "  /ids/shown/blocks: 8 bytes 00 00 00 00 00 00 00 09, as Curator's DistributedAtomicLong stores its value (it reads 9)",
                "  /ids/shown/notes: a node SequenceIds and BlockIds do not use"), r.out().lines().toList());
        JsonNode json = new ObjectMapper().readTree(Cli.run("ids", "show", "shown", "--json", "--connect", server.connectString()).out());
        assertEquals(2, json.get("foreign").size());
    }

    @Test
    void servicesLsNamesAnInstanceNodeCoordCannotDecode() throws Exception {
        try (CoordClient client = CoordClient.connect(CoordSettings.builder().connectString(server.connectString())
                .sessionTimeout(Duration.ofSeconds(10)).connectionTimeout(Duration.ofSeconds(10)).build());
             Discovery discovery = Discovery.open(client)) {
            discovery.register(Endpoint.builder("api.undecodable", "a-1").address("10.0.0.9").port(80).build());
            client.curator().create().forPath("/services/undecodable/api/_instances/junk-1", "junk".getBytes(java.nio.charset.StandardCharsets.UTF_8));

            Cli.Result r = Cli.run("services", "ls", "undecodable", "--connect", server.connectString());
            assertEquals(0, r.exitCode(), r.err());
            List<String> lines = r.out().lines().toList();
            assertEquals("api.undecodable  1 instance, 1 in service", lines.get(0));
            assertTrue(lines.get(2).startsWith("  junk-1  UNDECODABLE (not resolved): not curator-x-discovery instance JSON"), r.out());
            JsonNode json = new ObjectMapper().readTree(Cli.run("services", "ls", "undecodable", "--json", "--connect",
                    server.connectString()).out());
            assertTrue(json.get("services").get(0).get("undecodable").has("junk-1"), json.toString());
            discovery.close();
            client.curator().delete().deletingChildrenIfNeeded().forPath("/services/undecodable"); // the other tests list every service
        }
    }

    @Test
    void servicesLsShowsServicesAndTheirInstances() throws Exception {
        try (CoordClient client = CoordClient.connect(CoordSettings.builder().connectString(server.connectString())
                .sessionTimeout(Duration.ofSeconds(10)).connectionTimeout(Duration.ofSeconds(10)).build());
             Discovery discovery = Discovery.open(client)) {
            discovery.register(Endpoint.builder("orders.payments.prod", "o-1").address("10.0.0.5").port(8080).tlsPort(8443)
                    .zone("eu-1").weight(3).payloadJson("{\"v\": 1}").build());
            discovery.register(Endpoint.builder("orders.payments.prod", "o-2").address("10.0.0.6").port(8080)
                    .inService(false).build());
            discovery.register(Endpoint.builder("search.staging", "s-1").address("10.0.1.1").port(9200).build());

            Cli.Result r = Cli.run("services", "ls", "payments.prod", "--connect", server.connectString());
            assertEquals(0, r.exitCode(), r.err());
            assertEquals(List.of(
                    "orders.payments.prod  2 instances, 1 in service",
                    "  o-1  10.0.0.5:8080  tls 8443  zone eu-1  weight 3",
                    "  o-2  10.0.0.6:8080  weight 1  OUT OF SERVICE"), r.out().lines().toList());

            Cli.Result all = Cli.run("services", "ls", "--json", "--connect", server.connectString());
            assertEquals(0, all.exitCode(), all.err());
            JsonNode json = new ObjectMapper().readTree(all.out());
            assertEquals(2, json.get("services").size());
            JsonNode o1 = json.get("services").get(0).get("instances").get(0);
            assertEquals("o-1", o1.get("id").asText());
            assertEquals(8443, o1.get("tlsPort").asInt());
            assertEquals(1, o1.get("payload").get("v").asInt());

            Cli.Result none = Cli.run("services", "ls", "nothing.here", "--connect", server.connectString());
            assertEquals("no services at or below nothing.here", none.out().trim());

            Cli.Result bad = Cli.run("services", "ls", "Bad/Name", "--connect", server.connectString());
            assertEquals(CoordCommand.USAGE, bad.exitCode());
            assertTrue(bad.err().contains("contains '/'"), bad.err());
        }
    }
}
