package io.coord.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class CoordCommandTest {
    @Test
    void helpListsTheServerStatusAndBenchCommands() {
        Cli.Result r = Cli.run("--help");
        assertEquals(0, r.exitCode(), r.err());
        List<String> lines = r.out().lines().toList();
        for (String command : List.of("server", "status", "bench")) {
            assertTrue(lines.stream().anyMatch(l -> l.startsWith("  " + command + " ")), command + " is listed in:\n" + r.out());
        }
    }

    @Test
    void noSubcommandPrintsUsageOnStderrAndExitsWithTheUsageCode() {
        Cli.Result r = Cli.run();
        assertEquals(CoordCommand.USAGE, r.exitCode());
        assertTrue(r.err().contains("Commands:"), r.err());
        assertEquals("", r.out());
    }

    @Test
    void aBadOptionValueIsAShortUsageErrorNamingTheValue() {
        Cli.Result r = Cli.run("server", "--nodes", "2");
        assertEquals(CoordCommand.USAGE, r.exitCode());
        assertTrue(r.err().startsWith("coord server: --nodes must be 1 or 3, got 2"), r.err());
        assertTrue(r.err().lines().count() <= 2, "message and a hint, not the whole usage:\n" + r.err());
    }

    @Test
    void durationsAcceptShortUnitsAndIsoAndRejectTheRestNamingTheValue() {
        DurationConverter c = new DurationConverter();
        assertEquals(Duration.ofMillis(500), c.convert("500ms"));
        assertEquals(Duration.ofSeconds(5), c.convert("5s"));
        assertEquals(Duration.ofMinutes(2), c.convert("2m"));
        assertEquals(Duration.ofSeconds(5), c.convert("PT5S"));
        CommandLine.TypeConversionException bad = assertThrows(CommandLine.TypeConversionException.class, () -> c.convert("5x"));
        assertTrue(bad.getMessage().contains("'5x'"), bad.getMessage());
        assertThrows(CommandLine.TypeConversionException.class, () -> c.convert("0s"));
    }

    @Test
    void oneLineJoinsTheRootCauseAndNeverSpansLines() {
        Exception e = new IllegalStateException("could not start", new java.io.IOException("Address already in use\nsecond line"));
        assertEquals("could not start: Address already in use second line", Main.oneLine(e));
    }
}
