package io.coord.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.coord.BarrierBrokenException;
import io.coord.CoordClient;
import io.coord.CoordSettings;
import io.coord.barrier.BarrierOptions;
import io.coord.barrier.BarrierSeat;
import io.coord.barrier.DoubleBarrier;
import io.coord.test.EmbeddedEnsemble;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class BarrierCommandTest {
    private static final String NS = "cli-barrier";
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
        return CoordClient.connect(CoordSettings.builder().connectString(server.connectString()).namespace(NS)
                .sessionTimeout(Duration.ofSeconds(4)).connectionTimeout(Duration.ofSeconds(4)).build());
    }

    private static Cli.Result run(String... args) {
        String[] all = new String[args.length + 4];
        System.arraycopy(args, 0, all, 0, args.length);
        all[args.length] = "--connect";
        all[args.length + 1] = server.connectString();
        all[args.length + 2] = "--namespace";
        all[args.length + 3] = NS;
        return Cli.run(all);
    }

    @Test
    void statusOfABarrierNeverUsedSaysSo() throws Exception {
        Cli.Result text = run("barrier", "status", "nothing-here");
        assertEquals(0, text.exitCode(), text.err());
        assertTrue(text.out().contains("never used"), text.out());
        JsonNode json = new ObjectMapper().readTree(run("barrier", "status", "nothing-here", "--json").out());
        assertFalse(json.get("exists").asBoolean());
    }

    @Test
    void statusShowsTheOpenGenerationWhoArrivedAndHowManyAreAwaited() throws Exception {
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try (CoordClient client = client()) {
            DoubleBarrier first = DoubleBarrier.create(client, "waiting", 2, BarrierOptions.builder().memberId("worker-1").build());
            Future<BarrierSeat> entering = pool.submit(() -> first.enter(Duration.ofSeconds(60)));
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (first.status().arrived().isEmpty()) {
                assertTrue(System.nanoTime() < deadline, "the member arrived");
                Thread.sleep(20);
            }
            Cli.Result r = run("barrier", "status", "waiting");
            assertEquals(0, r.exitCode(), r.err());
            assertTrue(r.out().contains("generation  1  OPEN since "), r.out());
            assertTrue(r.out().contains("parties     2  arrived 1  waiting for 1"), r.out());
            assertTrue(r.out().contains("#0  worker-1  arrived "), r.out());
            assertTrue(r.out().contains("broken      no"), r.out());
            Cli.Result j = run("barrier", "status", "waiting", "--json");
            assertEquals(1, j.out().lines().count(), "one line of JSON:\n" + j.out());
            JsonNode json = new ObjectMapper().readTree(j.out());
            assertEquals("OPEN", json.get("phase").asText());
            assertEquals(1, json.get("waitingFor").asInt());
            assertEquals("worker-1", json.get("arrived").get(0).get("member").asText());
            assertFalse(json.get("broken").asBoolean());
            entering.cancel(true); // an interrupted waiter breaks the generation
            assertThrows(Exception.class, () -> entering.get(30, TimeUnit.SECONDS));
        } finally {
            pool.shutdownNow();
            pool.awaitTermination(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void statusShowsABrokenGenerationWithItsReasonAndResetOpensTheNextOne() throws Exception {
        try (CoordClient client = client()) {
            DoubleBarrier lonely = DoubleBarrier.create(client, "broken", 3, BarrierOptions.builder().memberId("lonely").build());
            assertThrows(BarrierBrokenException.class, () -> lonely.enter(Duration.ofMillis(300)));
            Cli.Result r = run("barrier", "status", "broken", "--json");
            assertEquals(0, r.exitCode(), r.err());
            JsonNode json = new ObjectMapper().readTree(r.out());
            assertTrue(json.get("broken").asBoolean());
            assertEquals("enter", json.get("brokenIn").asText());
            assertTrue(json.get("reason").asText().contains("timed out"), json.toString());
            Cli.Result text = run("barrier", "status", "broken");
            assertTrue(text.out().contains("broken      yes, during enter: timed out"), text.out());
            assertTrue(text.out().contains("coord barrier reset broken"), text.out());

            Cli.Result reset = run("barrier", "reset", "broken");
            assertEquals(0, reset.exitCode(), reset.err());
            assertTrue(reset.out().contains("generation 2 is open"), reset.out());
            Cli.Result again = run("barrier", "reset", "broken");
            assertEquals(CoordCommand.FAILED, again.exitCode());
            assertTrue(again.err().contains("is not broken"), again.err());
        }
    }

    @Test
    void aBadNameIsAUsageError() {
        Cli.Result r = run("barrier", "status", "a/b");
        assertEquals(CoordCommand.USAGE, r.exitCode());
        assertTrue(r.err().contains("a/b"), r.err());
    }
}
