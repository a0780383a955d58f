package io.coord.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Runs the whole harness with tiny operation counts against its own embedded server. */
class BenchMainTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<String> FIGURE_FIELDS = List.of("bench", "metric", "unit", "ours", "peer", "peerName", "ratio", "better");

    /**
     * Operations per round: enough for every figure to have a value (a median, a p99 of a few
     * samples), no more. This test checks that each benchmark runs and reports, not how fast; at 20 it
     * took 90 s of every CI pass, most of it the barrier's 16 and 32 members joining.
     */
    private static final int SMOKE_OPS = 3;

    static {
        // The membership scale curve's 10, 100 and 500 members are for ./coord bench, not a smoke run.
        System.setProperty(MembershipScaleBench.SIZES_PROPERTY, System.getProperty(MembershipScaleBench.SIZES_PROPERTY, "4"));
        // Likewise the config propagation's 50, 200 and 500 readers.
        System.setProperty(ConfigPropagationBench.READERS_PROPERTY, System.getProperty(ConfigPropagationBench.READERS_PROPERTY, "4"));
        // Likewise the other scale curves (./coord bench --scale runs them at hundreds): a tiny size each.
        System.setProperty(ElectionScaleBench.SIZES_PROPERTY, System.getProperty(ElectionScaleBench.SIZES_PROPERTY, "3"));
        System.setProperty(DiscoveryScaleBench.SIZES_PROPERTY, System.getProperty(DiscoveryScaleBench.SIZES_PROPERTY, "2"));
    }

    @TempDir
    Path dir;

    @Test
    void everyFigureIsOneSchemaValidJsonLineAndOneTableRow() throws Exception {
        Path results = dir.resolve("out/results.jsonl");
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        List<Figure> figures = BenchMain.run(new BenchOptions(List.of(), SMOKE_OPS, 1, results, true), new PrintWriter(out, true),
                new PrintWriter(err, true));

        assertFalse(figures.isEmpty(), "no figures");
        Set<String> benches = figures.stream().map(Figure::bench).collect(Collectors.toSet());
        assertEquals(Benchmarks.all().stream().map(Benchmark::name).collect(Collectors.toSet()), benches,
                "every registered benchmark reports at least one figure");

        List<String> lines = Files.readAllLines(results, StandardCharsets.UTF_8);
        assertEquals(figures.size() + 1, lines.size(), "one env line plus one line per figure:\n" + lines);

        JsonNode env = JSON.readTree(lines.get(0));
        assertEquals("env", env.path("record").asText());
        assertTrue(env.hasNonNull("forceSync") && env.get("fsync").isBoolean(), "env records forceSync and fsync: " + env);
        assertEquals(!"no".equals(env.get("forceSync").asText()), env.get("fsync").asBoolean(), "fsync follows forceSync: " + env);
        assertTrue(env.hasNonNull("jvm") && !env.get("jvm").asText().isBlank(), "env records the JVM: " + env);
        assertEquals(Runtime.getRuntime().availableProcessors(), env.path("cores").asInt(), "env records the cores: " + env);

        List<JsonNode> parsed = new ArrayList<>();
        for (String line : lines.subList(1, lines.size())) {
            JsonNode f = JSON.readTree(line);
            parsed.add(f);
            for (String field : FIGURE_FIELDS) {
                assertTrue(f.has(field), "field " + field + " missing in " + line);
            }
            assertTrue(f.get("ours").isNumber(), "ours is a number in " + line);
            assertTrue(Set.of("higher", "lower").contains(f.get("better").asText()), "better is higher|lower in " + line);
            if (f.get("peer").isNull()) {
                assertTrue(f.get("ratio").isNull() && f.get("peerName").isNull(), "no peer means no ratio and no peerName: " + line);
            } else {
                assertTrue(f.get("peer").isNumber() && f.get("peerName").isTextual(), "peer and peerName: " + line);
                double expected = f.get("ours").asDouble() / f.get("peer").asDouble();
                assertEquals(expected, f.get("ratio").asDouble(), Math.abs(expected) * 1e-9, "ratio = ours/peer in " + line);
            }
        }
        for (int i = 0; i < figures.size(); i++) {
            assertEquals(figures.get(i).bench(), parsed.get(i).get("bench").asText());
            assertEquals(figures.get(i).metric(), parsed.get(i).get("metric").asText());
        }

        List<String> table = out.toString().lines().toList();
        for (Figure f : figures) {
            long rows = table.stream().filter(l -> l.startsWith(f.bench() + " ") && l.contains(" " + f.metric() + " ")).count();
            assertEquals(1, rows, "exactly one table row for " + f.bench() + " " + f.metric() + " in:\n" + out);
        }
    }

    @Test
    void unknownBenchmarkNameFailsAsUsageErrorNamingIt() {
        StringWriter err = new StringWriter();
        int code = BenchMain.execute(new String[] {"--ops", "1", "no.such.bench"}, new PrintWriter(new StringWriter()),
                new PrintWriter(err, true));
        assertEquals(2, code);
        assertTrue(err.toString().contains("no.such.bench"), err.toString());
        assertTrue(err.toString().contains(CreateDeleteBench.NAME), "the error lists known names: " + err);
    }

    @Test
    void aPrefixSelectsEveryBenchmarkUnderItInRegistryOrder() {
        List<String> limits = Benchmarks.select(List.of("limits")).stream().map(Benchmark::name).toList();
        assertEquals(List.of(CreateDeleteBench.NAME, LockCycleFloorBench.NAME, AsyncCreateBench.NAME, GetDataBench.NAME), limits);
        List<String> two = Benchmarks.select(List.of(GetDataBench.NAME, CreateDeleteBench.NAME)).stream().map(Benchmark::name).toList();
        assertEquals(List.of(CreateDeleteBench.NAME, GetDataBench.NAME), two);
        try {
            Benchmarks.select(List.of("limit"));
            fail("\"limit\" is not a name nor a dotted prefix of one");
        } catch (IllegalArgumentException expected) {
            assertTrue(expected.getMessage().contains("\"limit\""), expected.getMessage());
        }
    }

    @Test
    void defaultResultsFileIsTheSameFromTheRepoRootAndFromTheModuleDirectory() throws Exception {
        Path root = dir.resolve("repo");
        Files.createDirectories(root.resolve("coord-bench"));
        Files.writeString(root.resolve("coord-bench/pom.xml"), "<project/>");
        Path expected = root.resolve("coord-bench/target/bench/results.jsonl");
        assertEquals(expected, ResultsFile.defaultPath(null, root));
        assertEquals(expected, ResultsFile.defaultPath(null, root.resolve("coord-bench")));
        assertEquals(expected, ResultsFile.defaultPath(root.toString(), dir), "coord.home wins over the working directory");
    }
}
