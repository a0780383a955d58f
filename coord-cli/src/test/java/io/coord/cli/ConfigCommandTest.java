package io.coord.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.coord.CoordClient;
import io.coord.CoordSettings;
import io.coord.config.ConfigKey;
import io.coord.config.ConfigOptions;
import io.coord.config.LiveConfig;
import io.coord.test.EmbeddedEnsemble;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class ConfigCommandTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final AtomicInteger APPS = new AtomicInteger();
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

    private static Cli.Result config(String... args) {
        String[] all = new String[args.length + 3];
        all[0] = "config";
        System.arraycopy(args, 0, all, 1, args.length);
        all[args.length + 1] = "--connect";
        all[args.length + 2] = server.connectString();
        return Cli.run(all);
    }

    @Test
    void lsListsTheKeysAndEveryForeignNodeByNameWithWhy() throws Exception {
        String app = "cli" + APPS.incrementAndGet();
        assertEquals(0, config("set", app, "limits", "{\"max\": 1}").exitCode());
        assertEquals(0, config("set", app, "banner", "\"hi\"").exitCode());
        try (CoordClient client = CoordClient.connect(CoordSettings.builder().connectString(server.connectString()).build())) {
            // What another tool leaves: a Curator SharedValue's raw bytes, a directory, an unknown dot-name.
            client.curator().create().forPath("/config/" + app + "/timeout", "30s".getBytes(java.nio.charset.StandardCharsets.UTF_8));
            client.curator().create().creatingParentsIfNeeded().forPath("/config/" + app + "/old/limits", new byte[0]);
            client.curator().create().forPath("/config/" + app + "/.backup", new byte[0]);
        }

        Cli.Result text = config("ls", app);
        assertEquals(0, text.exitCode(), text.err());
        assertTrue(text.out().startsWith("config " + app + "  2 keys  3 foreign\n"), text.out());
        assertTrue(text.out().contains("  banner  v0  \"hi\"\n  limits  v0  {\"max\":1}\n"), text.out());
        assertTrue(text.out().contains("  timeout  v0 holds raw payload \"30s\" (3 bytes), not JSON"), text.out());
        assertTrue(text.out().contains("  old  has 1 children"), text.out());
        assertTrue(text.out().contains("  .backup  names starting with '.'"), text.out());
        assertTrue(!text.out().contains("\n  .history") && !text.out().contains("\n  .canary"), "Coord's own directories are not listed: " + text.out());

        JsonNode json = JSON.readTree(config("ls", app, "--json").out());
        assertEquals(2, json.get("keys").size());
        assertEquals(1, json.get("keys").get(1).get("value").get("max").asInt());
        assertEquals(3, json.get("foreign").size());
        assertEquals(".backup", json.get("foreign").get(0).get("node").asText());
    }

    @Test
    void setGetHistoryAndRollbackRoundTripWithVersions() throws Exception {
        String app = "cli" + APPS.incrementAndGet();
        Cli.Result first = config("set", app, "limits", "{\"max\": 1}");
        assertEquals(0, first.exitCode(), first.err());
        assertEquals("published /config/" + app + "/limits version 0\n", first.out());
        assertEquals(0, config("set", app, "limits", "{\"max\": 2}").exitCode());

        Cli.Result conflict = config("set", app, "limits", "{\"max\": 3}", "--expect-version", "0");
        assertEquals(1, conflict.exitCode());
        assertTrue(conflict.err().startsWith("coord config set: compare-and-set of /config/" + app + "/limits expected version 0 but the current version is 1"),
                conflict.err());

        JsonNode got = JSON.readTree(config("get", app, "limits", "--json").out());
        assertEquals(1, got.get("version").asLong());
        assertEquals(2, got.get("value").get("max").asInt());

        Cli.Result history = config("history", app, "limits");
        assertEquals(2, history.out().lines().count(), history.out());
        assertTrue(history.out().lines().findFirst().orElseThrow().startsWith("v1  "), history.out());

        Cli.Result rollback = config("rollback", app, "limits", "0", "--json");
        assertEquals(0, rollback.exitCode(), rollback.err());
        assertEquals(2, JSON.readTree(rollback.out()).get("version").asLong());
        Cli.Result text = config("get", app, "limits");
        assertTrue(text.out().startsWith("/config/" + app + "/limits  version 2  modified "), text.out());
        assertTrue(text.out().contains("\"max\" : 1"), text.out());
    }

    @Test
    void malformedJsonIsRefusedNamingLineAndColumnAndNothingIsWritten() {
        String app = "cli" + APPS.incrementAndGet();
        Cli.Result bad = config("set", app, "limits", "{\"max\": 1,\n \"mode\": }");
        assertEquals(1, bad.exitCode());
        assertTrue(bad.err().contains("/config/" + app + "/limits") && bad.err().contains("line 2"), bad.err());
        Cli.Result get = config("get", app, "limits");
        assertEquals(1, get.exitCode());
        assertEquals("coord config get: no key /config/" + app + "/limits\n", get.err());
        assertEquals(2, config("get", app, "a/b").exitCode(), "a key with '/' is a usage error");
    }

    @Test
    void watchPrintsTheValueThenEachChangeAndWhoShowsTheReaders() throws Exception {
        String app = "cli" + APPS.incrementAndGet();
        assertEquals(0, config("set", app, "flags", "{\"on\": false}").exitCode());
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try (CoordClient client = CoordClient.connect(CoordSettings.builder().connectString(server.connectString()).build());
             LiveConfig<JsonNode> reader = LiveConfig.watch(client, ConfigKey.json(app, "flags"),
                     ConfigOptions.builder().instanceId("svc-1").build())) {
            reader.awaitInitialized(Duration.ofSeconds(10));
            Future<Cli.Result> watch = pool.submit(() -> config("watch", app, "flags", "--count", "2", "--timeout", "30s"));
            // Keep publishing until the watch has seen two changes after its first value, whenever it started.
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            int n = 0;
            while (!watch.isDone() && System.nanoTime() < until) {
                assertEquals(0, config("set", app, "flags", "{\"on\": true, \"n\": " + ++n + "}").exitCode());
            }
            Cli.Result watched = watch.get(40, TimeUnit.SECONDS);
            assertEquals(0, watched.exitCode(), watched.err());
            var lines = watched.out().lines().toList();
            assertEquals(3, lines.size(), watched.out());
            long previous = -1;
            for (String line : lines) {
                long v = Long.parseLong(line.substring(1, line.indexOf(' ')));
                assertTrue(v > previous, "versions only increase: " + watched.out());
                previous = v;
            }
            assertTrue(lines.get(2).endsWith("{\"on\":true,\"n\":" + previous + "}"), lines.get(2));
            long last = n;

            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            JsonNode who;
            do {
                who = JSON.readTree(config("who", app, "flags", "--json").out());
            } while (!(who.get("instances").size() == 1 && who.get("instances").get(0).get("version").asLong() == last)
                    && System.nanoTime() < deadline && sleep());
            assertEquals("svc-1", who.get("instances").get(0).get("instance").asText(), who.toString());
            assertEquals(last, who.get("instances").get(0).get("version").asLong(), who.toString());
            assertTrue(config("who", app, "flags").out().contains("  svc-1  v" + last + "  "));
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void canaryPromoteAndAbort() throws Exception {
        String app = "cli" + APPS.incrementAndGet();
        assertEquals(0, config("set", app, "k", "1").exitCode());
        Cli.Result canary = config("canary", app, "k", "2", "--percent", "25");
        assertEquals(0, canary.exitCode(), canary.err());
        assertTrue(config("who", app, "k").out().contains("canary 25.0%"));
        assertEquals("canary of /config/" + app + "/k aborted\n", config("abort", app, "k").out());
        assertEquals(0, config("canary", app, "k", "3", "--percent", "50").exitCode());
        assertEquals("promoted canary: published /config/" + app + "/k version 1\n", config("promote", app, "k").out());
        assertEquals(3, JSON.readTree(config("get", app, "k", "--json").out()).get("value").asInt());
        Cli.Result zero = config("canary", app, "k", "4", "--percent", "0");
        assertEquals(1, zero.exitCode());
        assertTrue(zero.err().contains("within (0, 100]"), zero.err());
    }

    private static boolean sleep() {
        try {
            Thread.sleep(50);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
