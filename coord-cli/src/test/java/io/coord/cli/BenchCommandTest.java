package io.coord.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code coord bench} hands over to coord-bench's harness. */
class BenchCommandTest {
    @TempDir
    Path dir;

    @Test
    void listShowsTheRegisteredBenchmarks() {
        Cli.Result r = Cli.run("bench", "--list");
        assertEquals(0, r.exitCode(), r.err());
        for (String name : new String[] {"limits.createDelete", "limits.asyncCreate", "limits.getData"}) {
            assertTrue(r.out().contains(name), name + " in:\n" + r.out());
        }
    }

    @Test
    void anUnknownBenchmarkIsAUsageErrorNamingIt() {
        Cli.Result r = Cli.run("bench", "no.such.bench");
        assertEquals(CoordCommand.USAGE, r.exitCode());
        assertTrue(r.err().startsWith("coord bench: no benchmark named \"no.such.bench\""), r.err());
    }

    @Test
    void anUnknownScaleRecipeIsAUsageErrorNamingItAndTheKnownOnes() {
        Cli.Result r = Cli.run("bench", "--scale", "no-such-recipe");
        assertEquals(CoordCommand.USAGE, r.exitCode());
        assertTrue(r.err().startsWith("coord bench: no scale curve for \"no-such-recipe\""), r.err());
        assertTrue(r.err().contains("lock, election, membership, discovery, config, barrier"), r.err());
    }

    @Test
    void aNamedBenchmarkRunsAndPrintsItsRowsAndAppendsItsLines() throws Exception {
        Path results = dir.resolve("results.jsonl");
        Cli.Result r = Cli.run("bench", "--ops", "10", "--rounds", "1", "--results", results.toString(), "limits.getData");
        assertEquals(0, r.exitCode(), r.err());
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith("limits.getData ") && l.contains("latency.p50")), r.out());
        assertTrue(r.out().lines().noneMatch(l -> l.startsWith("limits.createDelete ")), "only the named benchmark ran:\n" + r.out());
        assertEquals(3, Files.readAllLines(results).size(), "env + p50 + p99");
    }
}
