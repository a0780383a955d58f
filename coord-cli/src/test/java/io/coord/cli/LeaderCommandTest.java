package io.coord.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.coord.CoordClient;
import io.coord.CoordSettings;
import io.coord.election.Election;
import io.coord.election.ElectionOptions;
import io.coord.election.Leadership;
import io.coord.test.EmbeddedEnsemble;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class LeaderCommandTest {
    private static EmbeddedEnsemble server;
    private final List<AutoCloseable> open = new ArrayList<>();

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

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    private Election candidate(String name, String id) throws InterruptedException {
        CoordClient client = CoordClient.connect(CoordSettings.builder().connectString(server.connectString())
                .sessionTimeout(Duration.ofSeconds(5)).connectionTimeout(Duration.ofSeconds(5)).build());
        open.add(client);
        Election e = Election.open(client, name, ElectionOptions.builder().participantId(id).metadata(Map.of("url", "http://" + id)).build());
        open.add(e);
        return e;
    }

    private static void awaitCandidates(Election e, int n) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (e.candidates().size() != n) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("not " + n + " candidates: " + e.candidates());
            }
            Thread.sleep(10);
        }
    }

    @Test
    void showPrintsTheLeaderItsEpochAndTheCandidatesInOrder() throws Exception {
        Election a = candidate("billing", "node-a");
        Leadership leading = a.campaign(Duration.ofSeconds(10));
        CompletableFuture<Leadership> b = candidate("billing", "node-b").campaignAsync();
        awaitCandidates(a, 2);
        candidate("billing", "node-c").campaignAsync();
        awaitCandidates(a, 3);
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!a.leader().orElseThrow().acting() && System.nanoTime() - deadline < 0) {
            Thread.sleep(10);
        }

        Cli.Result r = Cli.run("leader", "show", "billing", "--connect", server.connectString());
        assertEquals(0, r.exitCode(), r.err());
        long epoch = leading.epoch().value();
        assertTrue(r.out().contains("election    /elections/billing\n"), r.out());
        assertTrue(r.out().contains("leader      node-a  epoch 0x" + Long.toHexString(epoch) + " (" + epoch + ")  acting since "), r.out());
        assertTrue(r.out().contains("candidates  3, in the order they lead:"), r.out());
        List<String> rows = r.out().lines().filter(l -> l.matches("\\s+\\d+\\s+node-.*")).toList();
        assertEquals(3, rows.size(), r.out());
        assertTrue(rows.get(0).contains("node-a") && rows.get(1).contains("node-b") && rows.get(2).contains("node-c"), r.out());
        assertTrue(rows.get(1).contains("{\"url\":\"http://node-b\"}"), r.out());
        assertTrue(!b.isDone(), "showing creates and changes nothing");
    }

    @Test
    void showJsonIsOneObjectWithLeaderEpochAndOrderedCandidates() throws Exception {
        Election a = candidate("jobs", "node-a");
        Leadership leading = a.campaign(Duration.ofSeconds(10));
        candidate("jobs", "node-b").campaignAsync();
        awaitCandidates(a, 2);
        Cli.Result r = Cli.run("leader", "show", "jobs", "--connect", server.connectString(), "--json");
        assertEquals(0, r.exitCode(), r.err());
        assertEquals(1, r.out().lines().count(), r.out());
        JsonNode json = new ObjectMapper().readTree(r.out());
        assertEquals("jobs", json.get("election").asText());
        assertEquals("node-a", json.get("leader").get("id").asText());
        assertEquals(leading.epoch().value(), json.get("leader").get("epoch").asLong());
        assertEquals("http://node-a", json.get("leader").get("metadata").get("url").asText());
        assertEquals(2, json.get("candidates").size());
        assertEquals("node-b", json.get("candidates").get(1).get("id").asText());
        assertTrue(json.get("candidates").get(1).get("epoch").asLong() > leading.epoch().value());
    }

    @Test
    void showReportsACuratorLeaderOfTheChosenLayoutByItsIdWithoutAnEpoch() throws Exception {
        try (org.apache.curator.framework.CuratorFramework curator = org.apache.curator.framework.CuratorFrameworkFactory
                .newClient(server.connectString(), new org.apache.curator.retry.RetryOneTime(100));
             org.apache.curator.framework.recipes.leader.LeaderSelector selector = new org.apache.curator.framework.recipes.leader.LeaderSelector(
                     curator, "/elections/mixed", new org.apache.curator.framework.recipes.leader.LeaderSelectorListenerAdapter() {
                         @Override
                         public void takeLeadership(org.apache.curator.framework.CuratorFramework client) throws InterruptedException {
                             Thread.sleep(Long.MAX_VALUE);
                         }
                     })) {
            curator.start();
            selector.setId("curator-a");
            selector.start();
            CoordClient client = CoordClient.connect(CoordSettings.builder().connectString(server.connectString())
                    .sessionTimeout(Duration.ofSeconds(5)).connectionTimeout(Duration.ofSeconds(5)).build());
            open.add(client);
            Election b = Election.open(client, "mixed", ElectionOptions.builder().participantId("node-b")
                    .curatorLayout(io.coord.election.CuratorLayout.SELECTOR).build());
            open.add(b);
            awaitCandidates(b, 1); // LeaderSelector.start() creates its node in the background: let it be first in line
            b.campaignAsync();
            awaitCandidates(b, 2);
            Cli.Result r = Cli.run("leader", "show", "mixed", "--layout", "SELECTOR", "--connect", server.connectString());
            assertEquals(0, r.exitCode(), r.err());
            assertTrue(r.out().contains("leader      curator-a  Curator, no epoch"), r.out());
            assertTrue(r.out().lines().anyMatch(l -> l.contains("node-b") && l.contains(" epoch 0x")), r.out());
            assertTrue(r.out().lines().anyMatch(l -> l.contains("curator-a") && l.contains("Curator, node czxid")), r.out());
        }
    }

    @Test
    void showOfAnEmptyElectionSaysNoLeader() {
        Cli.Result r = Cli.run("leader", "show", "nobody-here", "--connect", server.connectString());
        assertEquals(0, r.exitCode(), r.err());
        assertTrue(r.out().contains("leader      none (no candidates)"), r.out());
        Cli.Result j = Cli.run("leader", "show", "nobody-here", "--connect", server.connectString(), "--json");
        assertTrue(j.out().contains("\"leader\":null"), j.out());
    }

    @Test
    void aNameWithASlashIsAUsageErrorNamingIt() {
        Cli.Result r = Cli.run("leader", "show", "a/b", "--connect", server.connectString());
        assertEquals(CoordCommand.USAGE, r.exitCode(), r.out() + r.err());
        assertTrue(r.err().contains("\"a/b\""), r.err());
    }
}
