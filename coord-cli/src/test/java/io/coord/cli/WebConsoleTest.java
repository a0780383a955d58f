package io.coord.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.coord.Codec;
import io.coord.CoordClient;
import io.coord.cli.doctor.Finding;
import io.coord.test.Awaits;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Every JSON endpoint the console's page polls, over HTTP, against a live namespace built with the real recipes. */
class WebConsoleTest {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final Finding FINDING = new Finding(Finding.Severity.WARNING, "queue.old-claim", "/queues/jobs",
            "a claim is 3700 s old", "look at worker-a");
    private static ConsoleFixture fixture;
    private static WebConsole console;

    @BeforeAll
    static void start() throws Exception {
        fixture = new ConsoleFixture();
        CoordClient client = fixture.client();
        console = WebConsole.start(client, "127.0.0.1", 0, () -> List.of(FINDING));
    }

    @AfterAll
    static void stop() throws Exception {
        if (console != null) {
            console.close();
        }
        if (fixture != null) {
            fixture.close();
        }
    }

    static HttpResponse<String> get(String url) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static JsonNode api(String page) throws Exception {
        HttpResponse<String> r = get(console.url() + "api/" + page);
        assertEquals(200, r.statusCode(), r.body());
        assertEquals("application/json", r.headers().firstValue("Content-Type").orElse(""));
        JsonNode body = Codec.mapper().readTree(r.body());
        assertTrue(body.get("at").asText().endsWith("Z"), body.toString());
        return body;
    }

    @Test
    void locksShowTheHolderWithTokenAndHeldSinceAndTheWaiter() throws Exception {
        JsonNode lock = api("locks").get("locks").get(0);
        assertEquals(ConsoleFixture.LOCK.value(), lock.get("path").asText());
        JsonNode holder = lock.get("holders").get(0);
        assertEquals("billing-7", holder.get("owner").asText(), lock.toString());
        assertTrue(holder.get("token").asLong() > 0, lock.toString());
        assertEquals(1, lock.get("waiters").size(), lock.toString());
        assertEquals("billing-8", lock.get("waiters").get(0).get("owner").asText());
        // a holder stamps heldSince a second after it took the lock
        JsonNode stamped = Awaits.value("heldSince stamped", Duration.ofSeconds(10), () -> {
            try {
                JsonNode h = api("locks").get("locks").get(0).get("holders").get(0);
                return h.get("heldSince").isNull() ? java.util.Optional.empty() : java.util.Optional.of(h);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        assertTrue(stamped.get("heldSince").asText().endsWith("Z"), stamped.toString());
    }

    @Test
    void queuesShowDepthReadyDelayedTheClaimWithItsWorkerAndTheDeadLetter() throws Exception {
        JsonNode queues = api("queues").get("queues");
        JsonNode q = queues.get(0);
        assertEquals("jobs", q.get("queue").asText(), q.toString());
        assertEquals(2, q.get("depth").asInt(), q.toString());
        assertEquals(0, q.get("ready").asInt(), q.toString());
        assertEquals(1, q.get("delayed").asInt(), q.toString());
        JsonNode claim = q.get("claims").get(0);
        assertEquals("worker-a", claim.get("worker").asText(), q.toString());
        assertTrue(claim.get("ageMs").asLong() >= 0, q.toString());
        assertEquals(1, q.get("deadCount").asInt(), q.toString());
        JsonNode dead = q.get("dead").get(0);
        assertEquals("no such image", dead.get("lastError").asText(), q.toString());
        assertEquals("missing.png", dead.get("payload").get("image").asText(), q.toString());
        JsonNode partial = queues.get(1);
        assertEquals("partial", partial.get("queue").asText(), queues.toString());
        assertTrue(partial.get("incomplete").asText().startsWith("no claims, dead, keys, completed directory"), partial.toString());
        JsonNode sharded = queues.get(2);
        assertEquals("sharded", sharded.get("queue").asText(), queues.toString());
        assertEquals(1, sharded.get("depth").asInt(), sharded.toString());
    }

    @Test
    void electionsShowTheLeaderWithItsEpochAndTheCandidatesAndGroupsTheirMembers() throws Exception {
        JsonNode page = api("elections");
        JsonNode e = page.get("elections").get(0);
        assertEquals("scheduler", e.get("election").asText(), e.toString());
        assertEquals("node-a", e.get("leader").get("id").asText(), e.toString());
        assertTrue(e.get("leader").get("epoch").asLong() > 0, e.toString());
        assertEquals(List.of("node-a", "node-b"), List.of(e.get("candidates").get(0).get("id").asText(),
                e.get("candidates").get(1).get("id").asText()), e.toString());
        JsonNode g = page.get("groups").get(0);
        assertEquals("workers", g.get("group").asText(), g.toString());
        assertEquals(2, g.get("members").size(), g.toString());
        assertEquals("eu-1", g.get("members").get(0).get("metadata").get("zone").asText(), g.toString());
        assertEquals(0, g.get("flaps").size(), g.toString());
    }

    @Test
    void barriersShowTheBrokenGenerationAndWhyItBroke() throws Exception {
        JsonNode b = api("barriers").get("barriers").get(0);
        assertEquals("nightly", b.get("name").asText(), b.toString());
        assertTrue(b.get("broken").asBoolean(), b.toString());
        assertEquals("enter", b.get("brokenIn").asText(), b.toString());
        assertEquals(3, b.get("parties").asInt(), b.toString());
        assertEquals(1, b.get("generation").asLong(), b.toString());
        assertEquals("BROKEN", b.get("phase").asText(), b.toString());
        assertTrue(b.get("reason").asText().contains("1 of 3 arrived") && b.get("reason").asText().contains("loader-1"), b.toString());
    }

    @Test
    void configShowsTheReleasedVersionItsHistoryWhoRunsWhatAndACanary() throws Exception {
        JsonNode k = api("config").get("keys").get(0);
        assertEquals("/config/billing/batch.size", k.get("path").asText(), k.toString());
        assertEquals(1, k.get("version").asLong(), k.toString());
        assertEquals(64, k.get("value").asInt(), k.toString());
        assertEquals(2, k.get("history").size(), k.toString());
        assertTrue(k.get("canary").isNull(), k.toString());
        JsonNode who = k.get("instances").get(0);
        assertEquals("svc-1", who.get("instance").asText(), k.toString());
        assertEquals(1, who.get("version").asLong(), k.toString());
        JsonNode flags = api("config").get("keys").get(1);
        assertEquals("/config/billing/feature.flags", flags.get("path").asText(), flags.toString());
        assertEquals(25.0, flags.get("canary").get("percent").asDouble(), flags.toString());
        assertTrue(flags.get("canary").get("value").asText().contains("\"fastPath\":true"), flags.toString());
    }

    @Test
    void findingsComeFromTheFindingsSource() throws Exception {
        JsonNode page = api("findings");
        assertTrue(page.get("doctor").asBoolean(), page.toString());
        JsonNode f = page.get("findings").get(0);
        assertEquals(Map.of("severity", "WARNING", "check", "queue.old-claim", "path", "/queues/jobs", "seen", "a claim is 3700 s old",
                "advice", "look at worker-a"), Codec.mapper().convertValue(f, Map.class), page.toString());
    }

    @Test
    void theDoctorRunsAtMostEveryFiveSecondsHoweverOftenThePagePolls() throws Exception {
        java.util.concurrent.atomic.AtomicInteger passes = new java.util.concurrent.atomic.AtomicInteger();
        List<java.time.Instant> shown = new java.util.ArrayList<>();
        try (WebConsole counted = WebConsole.start(fixture.client(), "127.0.0.1", 0, () -> {
            passes.incrementAndGet();
            return List.of(FINDING);
        })) {
            for (int i = 0; i < 3; i++) {
                JsonNode page = Codec.mapper().readTree(get(counted.url() + "api/findings").body());
                shown.add(java.time.Instant.parse(page.get("at").asText()));
            }
        }
        List<java.time.Instant> runs = shown.stream().distinct().toList();
        assertEquals(runs.size(), passes.get(), "one pass per distinct 'at': " + shown);
        for (int i = 1; i < runs.size(); i++) {
            assertTrue(java.time.Duration.between(runs.get(i - 1), runs.get(i)).compareTo(ConsoleData.DOCTOR_EVERY) >= 0, shown::toString);
        }
    }

    @Test
    void aTreeTheClientMayNotReadIsAOneLineErrorOnItsTabAndTheOtherTabsStillWork() throws Exception {
        try (CoordClient owner = CoordClient.connect(io.coord.CoordSettings.builder().connectString(fixture.connectString())
                .namespace("ui-acl").build())) {
            owner.curator().create().creatingParentsIfNeeded().withACL(List.of(new org.apache.zookeeper.data.ACL(
                    org.apache.zookeeper.ZooDefs.Perms.ALL, new org.apache.zookeeper.data.Id("digest",
                            org.apache.zookeeper.server.auth.DigestAuthenticationProvider.generateDigest("ops:secret")))))
                    .forPath("/locks");
            try (CoordClient reader = CoordClient.connect(io.coord.CoordSettings.builder().connectString(fixture.connectString())
                    .namespace("ui-acl").build());
                 WebConsole denied = WebConsole.start(reader, "127.0.0.1", 0, FindingsSource.NONE)) {
                HttpResponse<String> locks = get(denied.url() + "api/locks");
                assertEquals(503, locks.statusCode(), locks.body());
                String error = Codec.mapper().readTree(locks.body()).get("error").asText();
                assertTrue(error.contains("/locks") && !error.contains("\n"), error);
                assertTrue(error.startsWith("NotAuthorizedException: not authorized") && error.contains("as anonymous"), error);
                assertEquals(200, get(denied.url() + "api/queues").statusCode());
            }
        }
    }

    @Test
    void thePageAndItsFilesAreServedAndNothingButGetIs() throws Exception {
        HttpResponse<String> page = get(console.url());
        assertEquals(200, page.statusCode());
        assertTrue(page.body().contains("<script src=\"console.js\">"), page.body());
        for (String file : List.of("console.js", "console.css")) {
            HttpResponse<String> r = get(console.url() + file);
            assertEquals(200, r.statusCode(), file);
            assertFalse(r.body().contains("http://") || r.body().contains("https://"), file + " loads nothing from the network");
        }
        assertEquals(404, get(console.url() + "api/nope").statusCode());
        HttpResponse<String> post = HTTP.send(HttpRequest.newBuilder(URI.create(console.url() + "api/locks"))
                .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(405, post.statusCode());
        assertTrue(post.body().contains("read-only"), post.body());
    }

    @Test
    void aPageSessionWritesNothing() throws Exception {
        Map<String, String> before = Awaits.value("the fixture's writes settled", Duration.ofSeconds(20), () -> {
            try {
                Map<String, String> a = fixture.nodes();
                Thread.sleep(1500);
                return a.equals(fixture.nodes()) ? java.util.Optional.of(a) : java.util.Optional.empty();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        // a fresh console too: its first reads open queues and groups
        try (WebConsole fresh = WebConsole.start(fixture.client(), "127.0.0.1", 0, FindingsSource.NONE)) {
            for (int round = 0; round < 3; round++) {
                for (String page : List.of("locks", "queues", "elections", "barriers", "config", "findings")) {
                    assertEquals(200, get(fresh.url() + "api/" + page).statusCode(), page);
                }
            }
        }
        Map<String, String> after = fixture.nodes();
        java.util.Set<String> changed = new java.util.TreeSet<>(before.keySet());
        changed.addAll(after.keySet());
        changed.removeIf(path -> java.util.Objects.equals(before.get(path), after.get(path)));
        assertEquals(java.util.Set.of(), changed, "nodes whose mzxid, pzxid, cversion, version or aversion changed, or that came or went");
    }
}
