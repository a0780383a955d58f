package io.coord.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.coord.CoordClient;
import io.coord.CoordSettings;
import io.coord.membership.Group;
import io.coord.membership.Membership;
import io.coord.test.Awaits;
import io.coord.test.EmbeddedEnsemble;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class MembersCommandTest {
    record Worker(String host) {
    }

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

    private static CoordClient client() throws InterruptedException {
        return CoordClient.connect(CoordSettings.builder().connectString(server.connectString()).build());
    }

    @Test
    void lsPrintsEveryMemberWithItsMetadataAsTextAndAsJson() throws Exception {
        try (CoordClient client = client(); Group<Worker> g = Group.open(client, "ls-jobs", Worker.class)) {
            g.join("w1", new Worker("10.0.0.1"));
            g.join("w2", new Worker("10.0.0.2"));

            Cli.Result text = Cli.run("members", "ls", "ls-jobs", "--connect", server.connectString());
            assertEquals(0, text.exitCode(), text.err());
            assertTrue(text.out().startsWith("group ls-jobs  2 members  version 0x"), text.out());
            assertTrue(text.out().contains("  w1  joined ") && text.out().contains("{\"host\":\"10.0.0.1\"}"), text.out());
            assertTrue(text.out().contains("  w2  joined "), text.out());

            Cli.Result json = Cli.run("members", "ls", "ls-jobs", "--json", "--connect", server.connectString());
            assertEquals(0, json.exitCode(), json.err());
            JsonNode root = new ObjectMapper().readTree(json.out());
            assertEquals("ls-jobs", root.get("group").asText());
            assertEquals(2, root.get("size").asInt());
            assertEquals(g.view().version(), root.get("version").asLong());
            assertEquals("w1", root.get("members").get(0).get("id").asText());
            assertEquals("10.0.0.2", root.get("members").get(1).get("metadata").get("host").asText());
            assertEquals(client.session().idHex(), root.get("members").get(0).get("session").asText());
        }
    }

    @Test
    void aMemberWhoseDataIsNotJsonIsListedWithItsRawPayload() throws Exception {
        try (CoordClient client = client(); Group<Worker> g = Group.open(client, "ls-mixed", Worker.class)) {
            g.join("w1", new Worker("10.0.0.1"));
            // What a Curator GroupMember writes: its payload as raw bytes, in an ephemeral node named by its id.
            client.curator().create().withMode(org.apache.zookeeper.CreateMode.EPHEMERAL)
                    .forPath("/groups/ls-mixed/curator-1", "10.0.0.9:8080".getBytes(java.nio.charset.StandardCharsets.UTF_8));
            Awaits.until("the group sees both", Duration.ofSeconds(10), () -> g.view().size() == 2);

            Cli.Result text = Cli.run("members", "ls", "ls-mixed", "--connect", server.connectString());
            assertEquals(0, text.exitCode(), text.err());
            assertTrue(text.out().startsWith("group ls-mixed  2 members"), text.out());
            assertTrue(text.out().contains("  curator-1  joined ") && text.out().contains("raw payload \"10.0.0.9:8080\" (13 bytes)"),
                    text.out());

            Cli.Result json = Cli.run("members", "ls", "ls-mixed", "--json", "--connect", server.connectString());
            assertEquals(0, json.exitCode(), json.err());
            JsonNode member = new ObjectMapper().readTree(json.out()).get("members").get(0);
            assertEquals("curator-1", member.get("id").asText());
            assertTrue(member.get("metadata").isNull());
            assertTrue(member.get("metadataError").asText().contains("\"10.0.0.9:8080\""), member.toString());
        }
    }

    @Test
    void anEmptyOrAbsentGroupIsListedAsEmpty() throws Exception {
        Cli.Result json = Cli.run("members", "ls", "nobody-here", "--json", "--connect", server.connectString());
        assertEquals(0, json.exitCode(), json.err());
        assertEquals(0, new ObjectMapper().readTree(json.out()).get("members").size());
    }

    @Test
    void watchStreamsTheCurrentMembersThenEachChangeAsJsonLines() throws Exception {
        try (CoordClient client = client(); Group<Worker> g = Group.open(client, "watched", Worker.class)) {
            Membership<Worker> w1 = g.join("w1", new Worker("a"));
            StringWriter out = new StringWriter(); // StringBuffer inside: safe to read while the command writes
            StringWriter err = new StringWriter();
            CompletableFuture<Integer> run = CompletableFuture.supplyAsync(() -> Main.commandLine(new PrintWriter(out, true),
                    new PrintWriter(err, true)).execute("members", "ls", "watched", "--watch", "--for", "5s", "--json",
                    "--connect", server.connectString()));
            Awaits.until("the watch printed the current member", Duration.ofSeconds(10), () -> out.toString().contains("\"w1\""));
            // One change at a time: a watch reports views, and changes close together may share one.
            g.join("w2", new Worker("b"));
            Awaits.until("the join is printed", Duration.ofSeconds(10), () -> events(out) >= 2);
            w1.update(new Worker("a2"));
            Awaits.until("the update is printed", Duration.ofSeconds(10), () -> events(out) >= 3);
            w1.leave();
            Awaits.until("the leave is printed", Duration.ofSeconds(10), () -> events(out) >= 4);
            assertEquals(0, run.get(20, TimeUnit.SECONDS), err.toString());
            List<JsonNode> events = out.toString().lines().map(MembersCommandTest::parse).toList();
            assertEquals(List.of("joined w1", "joined w2", "updated w1", "left w1"),
                    events.stream().map(e -> e.get("event").asText() + " " + e.get("member").get("id").asText()).toList());
            assertEquals("a2", events.get(2).get("member").get("metadata").get("host").asText());
        }
    }

    @Test
    void aBadGroupNameOrForWithoutWatchIsAUsageError() {
        Cli.Result slash = Cli.run("members", "ls", "a/b", "--connect", server.connectString());
        assertEquals(CoordCommand.USAGE, slash.exitCode());
        assertTrue(slash.err().contains("a/b"), slash.err());
        Cli.Result forAlone = Cli.run("members", "ls", "g", "--for", "1s", "--connect", server.connectString());
        assertEquals(CoordCommand.USAGE, forAlone.exitCode());
        assertTrue(forAlone.err().contains("--for needs --watch"), forAlone.err());
    }

    private static long events(StringWriter out) {
        return out.toString().lines().filter(l -> l.contains("\"event\"")).count();
    }

    private static JsonNode parse(String line) {
        try {
            return new ObjectMapper().readTree(line);
        } catch (Exception e) {
            throw new AssertionError("not JSON: " + line, e);
        }
    }
}
