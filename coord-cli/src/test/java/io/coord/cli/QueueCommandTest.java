package io.coord.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.coord.Codec;
import io.coord.CoordClient;
import io.coord.CoordSettings;
import io.coord.queue.QueueOptions;
import io.coord.queue.TaskClaim;
import io.coord.queue.TaskQueue;
import io.coord.queue.TaskId;
import io.coord.queue.TaskSpec;
import io.coord.test.Awaits;
import io.coord.test.EmbeddedEnsemble;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@code coord queue put|stats|ls|dead|requeue|purge} against a real server. */
class QueueCommandTest {
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

    private static Cli.Result queue(String... args) {
        String[] all = new String[args.length + 2];
        all[0] = "queue";
        all[1] = args[0];
        all[2] = "--connect=" + server.connectString();
        System.arraycopy(args, 1, all, 3, args.length - 1);
        return Cli.run(all);
    }

    @Test
    void putThenStatsLsDeadRequeueAndPurgeShowAndChangeTheQueue() throws Exception {
        Cli.Result put = queue("put", "jobs", "{\"job\":\"resize\",\"id\":42}");
        assertEquals(0, put.exitCode(), put.err());
        assertTrue(put.out().trim().matches("task-([A-Za-z0-9_-]{11}-)?\\d{10}"), put.out());
        Cli.Result again = queue("put", "jobs", "{\"job\":\"resize\",\"id\":43}", "--key", "k1");
        Cli.Result dup = queue("put", "jobs", "{\"job\":\"other\"}", "--key", "k1");
        assertEquals(again.out(), dup.out(), "the same key returns the same task");

        Cli.Result ls = queue("ls", "jobs");
        assertEquals(0, ls.exitCode(), ls.err());
        assertTrue(ls.out().contains("{\"job\":\"resize\",\"id\":42}") && ls.out().contains("2 task(s)"), ls.out());

        try (CoordClient client = CoordClient.connect(CoordSettings.builder().connectString(server.connectString()).build());
             // This test releases the good tasks over and over until it draws the bad one; releases count
             // toward maxDeliveries (default 10), which is not what it is about: off here.
             TaskQueue<JsonNode> q = TaskQueue.open(client, "jobs", Codec.json(JsonNode.class),
                     QueueOptions.builder().maxDeliveries(0).build())) {
            q.enqueue(Codec.mapper().readTree("{\"bad\":true}"), TaskSpec.defaults().maxRetries(0));
            TaskClaim<JsonNode> held = q.claim(Duration.ofSeconds(5)).orElseThrow();
            Cli.Result stats = queue("stats", "jobs");
            assertEquals(0, stats.exitCode(), stats.err());
            assertTrue(stats.out().contains("pending     2 ready") && stats.out().contains("processing  1")
                    && stats.out().contains(held.id().name()), stats.out());
            held.release();
            TaskClaim<JsonNode> c;
            do {
                c = q.claim(Duration.ofSeconds(5)).orElseThrow();
                if (!c.payload().has("bad")) {
                    c.release();
                }
            } while (!c.payload().has("bad"));
            c.fail("no such image");
        }
        Cli.Result dead = queue("dead", "jobs");
        assertTrue(dead.out().contains("last error: no such image") && dead.out().contains("1 dead letter(s)"), dead.out());
        Cli.Result requeue = queue("requeue", "jobs");
        assertTrue(requeue.out().contains("requeued 1 dead letter(s)"), requeue.out());
        assertTrue(queue("ls", "jobs").out().contains("3 task(s)"));
        assertTrue(queue("purge", "jobs").out().contains("purged 0 dead letter(s)"));
    }

    @Test
    void lsStatsAndDeadShowUndecodableNodesBesideTheGoodOnes() throws Exception {
        byte[] garbage = "\u0000{not a task".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        try (CoordClient client = CoordClient.connect(CoordSettings.builder().connectString(server.connectString()).build());
             TaskQueue<JsonNode> q = TaskQueue.open(client, "jobs3", Codec.json(JsonNode.class), QueueOptions.defaults())) {
            q.enqueue(Codec.mapper().readTree("{\"job\":\"good\"}"));
            String bad = q.enqueue(Codec.mapper().readTree("{\"job\":\"to be broken\"}")).name();
            client.curator().setData().forPath("/queues/jobs3/tasks/" + bad, garbage);
            client.curator().create().forPath("/queues/jobs3/dead/task-0000000099", garbage);

            Cli.Result ls = queue("ls", "jobs3");
            assertEquals(0, ls.exitCode(), ls.err());
            assertTrue(ls.out().contains("{\"job\":\"good\"}") && ls.out().contains(bad + "  UNDECODABLE  " + garbage.length + " bytes")
                    && ls.out().contains("error: node /queues/jobs3/tasks/" + bad) && ls.out().contains("bytes: \\u0000{not a task")
                    && ls.out().contains("1 task(s), 1 undecodable"), ls.out());
            Cli.Result stats = queue("stats", "jobs3");
            assertEquals(0, stats.exitCode(), stats.err());
            assertTrue(stats.out().contains("pending     1 ready") && stats.out().contains("undecodable 1 task node(s)")
                    && stats.out().contains(bad + "  UNDECODABLE") && stats.out().contains("depth       2 of cap"), stats.out());
            Cli.Result dead = queue("dead", "jobs3");
            assertEquals(0, dead.exitCode(), dead.err());
            assertTrue(dead.out().contains("task-0000000099  UNDECODABLE") && dead.out().contains("error: node /queues/jobs3/dead/task-0000000099")
                    && dead.out().contains("0 dead letter(s), 1 undecodable"), dead.out());
        }
    }

    @Test
    void putTakesALaneBelowTheQueuesLaneCount() throws Exception {
        Cli.Result refused = queue("put", "laned", "{\"n\":1}", "--lane", "2");
        assertEquals(CoordCommand.USAGE, refused.exitCode(), refused.out());
        assertTrue(refused.err().contains("--lane 2") && refused.err().contains("--lanes"), refused.err());
        Cli.Result put = queue("put", "laned", "{\"n\":2}", "--lane", "2", "--lanes", "3");
        assertEquals(0, put.exitCode(), put.err());
        JsonNode ls = json("ls", "laned");
        assertEquals(1, ls.get("tasks").size(), ls.toString());
        assertEquals(2, ls.get("tasks").get(0).get("lane").asInt(), ls.toString());
        Cli.Result badCount = queue("put", "laned", "{\"n\":3}", "--lanes", "0");
        assertEquals(CoordCommand.USAGE, badCount.exitCode());
        assertTrue(badCount.err().contains("--lanes 0"), badCount.err());
    }

    @Test
    void badJsonIsAUsageErrorAndAnOversizePayloadIsRefused() {
        Cli.Result bad = queue("put", "jobs2", "{not json");
        assertEquals(CoordCommand.USAGE, bad.exitCode());
        assertTrue(bad.err().contains("not valid JSON"), bad.err());
        // Many short strings: one string over 64 KiB is refused earlier, by the JSON limits (below).
        String bigArray = "[" + String.join(",", java.util.Collections.nCopies(20, "\"" + "x".repeat(3500) + "\"")) + "]";
        Cli.Result big = queue("put", "jobs2", bigArray);
        assertEquals(CoordCommand.FAILED, big.exitCode());
        assertTrue(big.err().contains("over the task limit"), big.err());
        Cli.Result longString = queue("put", "jobs2", "\"" + "x".repeat(70_000) + "\"");
        assertEquals(CoordCommand.USAGE, longString.exitCode());
        assertTrue(longString.err().contains("70000") && longString.err().contains("65536"), longString.err());
        assertTrue(queue("ls", "jobs2").out().contains("0 task(s)"), "nothing was written");
    }

    /** Runs a queue command with --json, expects exit 0 and exactly one JSON object on stdout, and returns it. */
    private static JsonNode json(String... args) throws Exception {
        String[] all = java.util.Arrays.copyOf(args, args.length + 1);
        all[args.length] = "--json";
        Cli.Result r = queue(all);
        assertEquals(0, r.exitCode(), r.err());
        assertEquals(1, r.out().strip().lines().count(), "one JSON object, on one line: " + r.out());
        JsonNode node = Codec.mapper().readTree(r.out());
        assertTrue(node.isObject(), r.out());
        return node;
    }

    @Test
    void theQueueCommandsOpenAPartitionedQueueWithItsRecordedCountAndNameEachTasksPartition() throws Exception {
        try (CoordClient client = CoordClient.connect(CoordSettings.builder().connectString(server.connectString()).build());
             TaskQueue<JsonNode> made = TaskQueue.open(client, "jp", Codec.json(JsonNode.class),
                     QueueOptions.builder().partitions(4).build())) {
            made.enqueue(Codec.mapper().readTree("{\"made\":1}"));
        }
        JsonNode put = json("put", "jp", "{\"job\":\"resize\"}", "--key", "k7");
        assertEquals("ADDED", put.get("outcome").asText());
        int partition = put.get("partition").asInt();
        assertTrue(put.get("id").asText().startsWith("task-p" + partition + "-"), put.toString());
        JsonNode stats = json("stats", "jp");
        assertEquals(4, stats.get("partitions").asInt(), stats.toString());
        assertEquals(2, stats.get("pending").asInt(), stats.toString());
        JsonNode ls = json("ls", "jp");
        assertEquals(2, ls.get("tasks").size(), ls.toString());
        for (JsonNode t : ls.get("tasks")) {
            assertTrue(t.get("id").asText().startsWith("task-p" + t.get("partition").asInt() + "-"), t.toString());
        }
        Cli.Result text = queue("stats", "jp");
        assertTrue(text.out().contains("partitions  4"), text.out());
    }

    @Test
    void everyQueueCommandPrintsTypedJsonWithTheFieldsTheTextShows() throws Exception {
        JsonNode put = json("put", "jq", "{\"job\":\"resize\",\"id\":42}", "--key", "k1");
        assertEquals("jq", put.get("queue").asText());
        assertTrue(put.get("id").asText().matches("task-([A-Za-z0-9_-]{11}-)?\\d{10}"), put.toString());
        assertEquals("ADDED", put.get("outcome").asText());
        JsonNode dup = json("put", "jq", "{\"job\":\"other\"}", "--key", "k1");
        assertEquals(put.get("id"), dup.get("id"), "the same key names the same task");
        assertEquals("ALREADY_QUEUED", dup.get("outcome").asText(), "and --json says nothing was added");
        String delayed = json("put", "jq", "[1,2]", "--delay", "1h").get("id").asText();

        JsonNode ls = json("ls", "jq");
        assertEquals("jq", ls.get("queue").asText());
        assertEquals(2, ls.get("tasks").size(), ls.toString());
        assertEquals(0, ls.get("undecodable").size(), ls.toString());
        JsonNode first = ls.get("tasks").get(0);
        assertEquals(put.get("id"), first.get("id"), "by sequence");
        assertEquals("PENDING", first.get("state").asText());
        assertTrue(first.get("payload").isObject() && first.get("payload").get("id").isInt()
                && first.get("payload").get("id").intValue() == 42, "embedded as JSON, not as a string: " + first);
        assertTrue(first.get("lane").isInt() && first.get("attempts").isInt() && first.get("deliveries").isInt()
                && first.get("maxRetries").isInt(), "numbers as numbers: " + first);
        assertTrue(first.get("notBefore").isNull() && first.get("claimedBy").isNull() && first.get("claimedAt").isNull()
                && first.get("lastError").isNull(), "unset fields are null, not missing: " + first);
        assertFalse(Instant.parse(first.get("enqueuedAt").asText()).isAfter(Instant.now()), first.toString());
        JsonNode second = ls.get("tasks").get(1);
        assertEquals(delayed, second.get("id").asText());
        assertTrue(second.get("payload").isArray() && second.get("payload").get(1).intValue() == 2, "embedded as JSON: " + second);
        assertTrue(Instant.parse(second.get("notBefore").asText()).isAfter(Instant.now().plus(Duration.ofMinutes(50))), second.toString());

        Duration wait = Awaits.scaled(Duration.ofSeconds(10));
        try (CoordClient client = CoordClient.connect(CoordSettings.builder().connectString(server.connectString()).build());
             TaskQueue<JsonNode> q = TaskQueue.open(client, "jq", Codec.json(JsonNode.class), QueueOptions.defaults())) {
            String bad = q.enqueue(Codec.mapper().readTree("{\"bad\":true}"), TaskSpec.defaults().maxRetries(0)).name();
            // FIFO, the delayed task not ready: the first claim takes the keyed task and keeps it to the end,
            // so each later claim draws the one ready task there is (no releases, no drawing until it comes).
            TaskClaim<JsonNode> kept = q.claim(wait).orElseThrow();
            assertEquals(put.get("id").asText(), kept.id().name());
            TaskClaim<JsonNode> held = q.claim(wait).orElseThrow();
            assertEquals(bad, held.id().name());

            JsonNode stats = json("stats", "jq");
            assertEquals("jq", stats.get("queue").asText());
            assertEquals(0, stats.get("pending").intValue(), stats.toString());
            assertEquals(1, stats.get("waiting").intValue(), "the delayed task: " + stats);
            assertEquals(2, stats.get("processing").size(), stats.toString());
            JsonNode claim = stats.get("processing").get(1);
            assertEquals(bad, claim.get("task").asText(), "oldest claim first: " + stats);
            assertEquals(kept.id().name(), stats.get("processing").get(0).get("task").asText());
            assertFalse(claim.get("owner").asText().isEmpty(), claim.toString());
            assertTrue(claim.get("ageMs").isIntegralNumber() && claim.get("ageMs").longValue() >= 0, claim.toString());
            assertEquals(0, claim.get("attempts").intValue());
            assertEquals(0, stats.get("dead").intValue());
            assertTrue(stats.get("oldestPendingAgeMs").isIntegralNumber() && stats.get("oldestPendingAgeMs").longValue() == 0,
                    "none ready: " + stats);
            assertEquals(3, stats.get("depth").intValue());
            assertTrue(stats.get("depthCap").intValue() >= 3, stats.toString());
            assertEquals(0, stats.get("undecodable").size());
            assertEquals(0, stats.get("foreign").size());

            held.fail("no such image");
            JsonNode dead = json("dead", "jq");
            assertEquals(1, dead.get("deadLetters").size(), dead.toString());
            assertEquals(0, dead.get("undecodable").size());
            JsonNode letter = dead.get("deadLetters").get(0);
            assertEquals(bad, letter.get("id").asText());
            assertEquals("DEAD", letter.get("state").asText());
            assertEquals("no such image", letter.get("lastError").asText());
            assertEquals(1, letter.get("attempts").intValue());
            assertEquals(0, letter.get("maxRetries").intValue());
            assertTrue(letter.get("payload").get("bad").booleanValue(), letter.toString());

            JsonNode one = json("requeue", "jq", "--task", bad);
            assertEquals(1, one.get("requeued").intValue());
            assertEquals(bad, one.get("deadLetter").asText());
            String back = one.get("task").asText();
            assertTrue(new TaskId(back).sequence() > new TaskId(bad).sequence(), "a new id, at the back: " + one);

            TaskClaim<JsonNode> again = q.claim(wait).orElseThrow();
            assertEquals(back, again.id().name());
            again.fail("still no such image");
            JsonNode all = json("requeue", "jq");
            assertEquals(1, all.get("requeued").intValue(), all.toString());
            assertTrue(all.get("deadLetter").isNull() && all.get("task").isNull(), "one shape with or without --task: " + all);

            q.claim(wait).orElseThrow().fail("gone for good");
            assertEquals(1, json("purge", "jq").get("purged").intValue());
            JsonNode purged = json("purge", "jq");
            assertEquals("jq", purged.get("queue").asText());
            assertEquals(0, purged.get("purged").intValue());
        }
    }

    @Test
    void jsonListsUndecodableTasksAndDeadLettersWithTheirBytes() throws Exception {
        byte[] garbage = "\u0000{not a task \u001b[31m".getBytes(StandardCharsets.UTF_8);
        String bad;
        try (CoordClient client = CoordClient.connect(CoordSettings.builder().connectString(server.connectString()).build());
             TaskQueue<JsonNode> q = TaskQueue.open(client, "jq3", Codec.json(JsonNode.class), QueueOptions.defaults())) {
            q.enqueue(Codec.mapper().readTree("{\"job\":\"good\"}"));
            bad = q.enqueue(Codec.mapper().readTree("{\"job\":\"to be broken\"}")).name();
            client.curator().setData().forPath("/queues/jq3/tasks/" + bad, garbage);
            client.curator().create().forPath("/queues/jq3/dead/task-0000000099", garbage);
        }
        JsonNode ls = json("ls", "jq3");
        assertEquals(1, ls.get("tasks").size(), ls.toString());
        assertEquals("good", ls.get("tasks").get(0).get("payload").get("job").asText());
        assertEquals(1, ls.get("undecodable").size(), ls.toString());
        assertUndecodable(ls.get("undecodable").get(0), bad, "/queues/jq3/tasks/" + bad, garbage);

        JsonNode stats = json("stats", "jq3");
        assertEquals(1, stats.get("pending").intValue());
        assertEquals(2, stats.get("depth").intValue(), "the undecodable node counts toward the depth: " + stats);
        assertEquals(1, stats.get("undecodable").size(), stats.toString());
        assertUndecodable(stats.get("undecodable").get(0), bad, "/queues/jq3/tasks/" + bad, garbage);

        JsonNode dead = json("dead", "jq3");
        assertEquals(0, dead.get("deadLetters").size(), dead.toString());
        assertEquals(1, dead.get("undecodable").size(), dead.toString());
        assertUndecodable(dead.get("undecodable").get(0), "task-0000000099", "/queues/jq3/dead/task-0000000099", garbage);
    }

    private static void assertUndecodable(JsonNode u, String id, String path, byte[] data) {
        assertEquals(id, u.get("id").asText(), u.toString());
        assertEquals(path, u.get("path").asText(), u.toString());
        assertEquals(data.length, u.get("size").intValue(), u.toString());
        assertTrue(u.get("error").asText().contains("node " + path), u.toString());
        assertEquals(new String(data, StandardCharsets.UTF_8), u.get("preview").asText(), "the bytes, control characters and all");
        assertArrayEquals(data, Base64.getDecoder().decode(u.get("dataBase64").asText()), "every byte, to repair them from");
    }

    @Test
    void jsonModeKeepsTheErrorPathAndExitCodes() {
        Cli.Result bad = queue("put", "jq2", "{not json", "--json");
        assertEquals(CoordCommand.USAGE, bad.exitCode());
        assertTrue(bad.err().contains("not valid JSON"), bad.err());
        assertEquals("", bad.out(), "nothing on stdout for a script to mistake for a result");
        Cli.Result missing = queue("requeue", "jq2", "--task", "task-0000000777", "--json");
        assertEquals(CoordCommand.FAILED, missing.exitCode(), missing.out() + missing.err());
        assertTrue(missing.err().contains("task-0000000777"), missing.err());
        assertEquals("", missing.out());
        Cli.Result badId = queue("requeue", "jq2", "--task", "nope", "--json");
        assertEquals(CoordCommand.USAGE, badId.exitCode());
        assertTrue(badId.err().contains("\"nope\""), badId.err());
    }
}
