package io.coord.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.coord.Codec;
import io.coord.CoordClient;
import io.coord.CoordSettings;
import io.coord.queue.QueueOptions;
import io.coord.queue.TaskClaim;
import io.coord.queue.TaskQueue;
import io.coord.queue.TaskSpec;
import io.coord.test.EmbeddedEnsemble;
import java.time.Duration;
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
        assertTrue(put.out().trim().matches("task-\\d{10}"), put.out());
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
}
