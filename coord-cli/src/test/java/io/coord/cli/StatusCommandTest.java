package io.coord.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.coord.test.EmbeddedEnsemble;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class StatusCommandTest {
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
    void statusShowsTheServerModeTheSessionAndTheNegotiatedTimeout() {
        Cli.Result r = Cli.run("status", "--connect", server.connectString(), "--session-timeout", "4s");
        assertEquals(0, r.exitCode(), r.err());
        assertTrue(r.out().contains("server    " + server.connectString(0) + "  standalone  ZooKeeper 3."), r.out());
        assertTrue(r.out().contains("timeout   requested 4000 ms, negotiated 4000 ms\n"), r.out());
        assertTrue(r.out().lines().anyMatch(l -> l.matches("session   0x[0-9a-f]+ \\(connected to " + server.connectString(0) + "\\)")), r.out());
        assertTrue(r.out().contains("identity  anonymous"), r.out());
    }

    @Test
    void statusShowsWhenTheServerClampsTheRequestedTimeout() {
        long max = 20L * server.options().tickTimeMs();
        Cli.Result r = Cli.run("status", "--connect", server.connectString(), "--session-timeout", "60s");
        assertEquals(0, r.exitCode(), r.err());
        assertTrue(r.out().contains("requested 60000 ms, negotiated " + max + " ms (the server clamped it"), r.out());
    }

    @Test
    void statusJsonIsOneObjectWithModeNegotiatedTimeoutAndTheDigestIdentity() throws IOException {
        Cli.Result r = Cli.run("status", "--connect", server.connectString(), "--json", "--session-timeout", "4s",
                "--user", "alice", "--password", "s3cret");
        assertEquals(0, r.exitCode(), r.err());
        assertEquals(1, r.out().lines().count(), "one line of JSON:\n" + r.out());
        JsonNode json = new ObjectMapper().readTree(r.out());
        assertTrue(json.get("ok").asBoolean());
        assertTrue(json.get("error").isNull());
        JsonNode s = json.get("servers").get(0);
        assertEquals(server.connectString(0), s.get("address").asText());
        assertTrue(s.get("reachable").asBoolean());
        assertEquals("standalone", s.get("mode").asText());
        assertTrue(s.get("version").asText().startsWith("3."), s.toString());
        assertEquals(4000, json.get("requestedSessionTimeoutMs").asLong());
        assertEquals(4000, json.get("negotiatedSessionTimeoutMs").asLong());
        assertTrue(json.get("sessionId").asText().matches("0x[0-9a-f]+"), json.toString());
        assertEquals("digest:alice", json.get("identity").asText());
        List<String> seen = new ArrayList<>();
        json.get("serverIdentities").forEach(n -> seen.add(n.asText()));
        assertTrue(seen.contains("digest:alice"), "the server attached the digest identity to the session: " + seen);
        assertFalse(r.out().contains("s3cret"), "the password is never printed");
    }

    @Test
    void statusAgainstANonListeningPortFailsWithOneLineNamingTheAddress() throws IOException {
        String address = "127.0.0.1:" + closedPort();
        Cli.Result r = Cli.run("status", "--connect", address);
        assertEquals(CoordCommand.UNAVAILABLE, r.exitCode());
        assertEquals("", r.out());
        List<String> lines = r.err().lines().toList();
        assertEquals(1, lines.size(), "one line:\n" + r.err());
        assertTrue(lines.get(0).startsWith("coord status: ") && lines.get(0).contains(address), r.err());
        assertFalse(r.err().contains("Exception") || r.err().contains("\tat "), "no stack trace:\n" + r.err());
    }

    @Test
    void statusJsonAgainstANonListeningPortStillPrintsOneObjectSayingWhy() throws IOException {
        String address = "127.0.0.1:" + closedPort();
        Cli.Result r = Cli.run("status", "--connect", address, "--json");
        assertEquals(CoordCommand.UNAVAILABLE, r.exitCode());
        JsonNode json = new ObjectMapper().readTree(r.out());
        assertFalse(json.get("ok").asBoolean());
        assertTrue(json.get("error").asText().contains(address), json.toString());
        assertFalse(json.get("servers").get(0).get("reachable").asBoolean());
        assertTrue(json.get("sessionId").isNull());
    }

    @Test
    void statusWithOneMemberDownReportsItAndStillConnects() throws IOException {
        String down = "127.0.0.1:" + closedPort();
        Cli.Result r = Cli.run("status", "--connect", server.connectString() + "," + down, "--session-timeout", "4s");
        assertEquals(0, r.exitCode(), r.err());
        assertTrue(r.out().contains("server    " + down + "  unreachable: connection refused"), r.out());
        assertTrue(r.out().contains("standalone"), r.out());
        assertTrue(r.out().contains("session   0x"), r.out());
    }

    /** A loopback port nothing listens on (bound once, then released). */
    private static int closedPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
