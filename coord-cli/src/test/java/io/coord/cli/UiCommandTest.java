package io.coord.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.CoordSettings;
import io.coord.test.EmbeddedEnsemble;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@code coord ui}'s command line: what it prints when it serves, and one-line errors for bad input. */
class UiCommandTest {
    private static EmbeddedEnsemble server;

    @BeforeAll
    static void startServer() {
        server = EmbeddedEnsemble.start(EmbeddedEnsemble.Options.single());
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    @Test
    void servesOnTheGivenPortAndPrintsTheUrl() {
        Cli.Result r = Cli.run("ui", "--connect", server.connectString(), "--port", "0", "--for", "1s");
        assertEquals(0, r.exitCode(), r.err());
        assertTrue(r.out().matches("(?s)coord ui: serving http://127\\.0\\.0\\.1:\\d+/ \\(read-only; Ctrl-C stops\\)\\R"), r.out());
    }

    @Test
    void aPortOutOfRangeIsAUsageErrorNamingIt() {
        Cli.Result r = Cli.run("ui", "--connect", server.connectString(), "--port", "70000");
        assertEquals(2, r.exitCode(), r.err());
        assertTrue(r.err().contains("--port must be within 0..65535, got 70000"), r.err());
    }

    @Test
    void aNamespaceThatDoesNotExistIsAOneLineErrorAndIsNotCreated() throws Exception {
        Cli.Result r = Cli.run("ui", "--connect", server.connectString(), "--namespace", "nope", "--port", "0", "--for", "1s");
        assertEquals(2, r.exitCode(), r.err());
        assertTrue(r.err().contains("namespace nope does not exist on " + server.connectString()), r.err());
        assertEquals(1, r.err().strip().lines().filter(l -> l.startsWith("coord ui:")).count(), r.err());
        try (CoordClient c = CoordClient.connect(CoordSettings.builder().connectString(server.connectString()).build())) {
            assertNull(c.curator().checkExists().forPath("/nope"), "the console created its namespace");
        }
    }

    @Test
    void anUnreachableEnsembleIsAOneLineError() {
        Cli.Result r = Cli.run("ui", "--connect", "127.0.0.1:1", "--connect-timeout", "1s", "--port", "0");
        assertEquals(CoordCommand.UNAVAILABLE, r.exitCode(), r.err());
        assertEquals(1, r.err().strip().lines().count(), r.err());
    }
}
