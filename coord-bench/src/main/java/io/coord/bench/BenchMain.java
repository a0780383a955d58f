package io.coord.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.coord.test.EmbeddedEnsemble;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.stream.Stream;

/**
 * Runs benchmarks against an embedded single ZooKeeper server started for the run, prints a table
 * on stdout and appends one JSON line per figure (plus one describing the environment) to the
 * results file. {@code coord bench} calls {@link #run}; {@link #main} is the same for a plain
 * {@code java} command line.
 */
public final class BenchMain {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String USAGE = String.join(System.lineSeparator(),
            "usage: BenchMain [--ops N] [--rounds N] [--results FILE] [--verbose] [--list] [NAME...]",
            "       BenchMain --scale [--rounds N] [--verbose] [RECIPE...]",
            "  NAME          a benchmark or a prefix (limits = limits.*); default: all",
            "  --scale       scale curves: each RECIPE's cost against size, ours and the peer, written as tables into",
            "                docs/BENCHMARKS.md and plots into docs/img/ (RECIPE: lock election membership discovery config",
            "                barrier; default: all)",
            "  --ops N       operations per round for every benchmark (default: each benchmark's own)",
            "  --rounds N    measured rounds per side after one warm-up each (default " + BenchOptions.DEFAULT_ROUNDS
                    + ", with --scale " + BenchOptions.SCALE_ROUNDS + ")",
            "  --results F   JSON-lines file to append to (default <repo>/" + ResultsFile.RELATIVE + ")",
            "  --verbose     show every round's results on stderr",
            "  --list        list the benchmarks and exit");

    private BenchMain() {
    }

    public static void main(String[] args) {
        PrintWriter out = new PrintWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), true);
        PrintWriter err = new PrintWriter(new OutputStreamWriter(System.err, StandardCharsets.UTF_8), true);
        int code = execute(args, out, err);
        out.flush();
        err.flush();
        System.exit(code);
    }

    /** Parses {@code args} and runs; returns the process exit code (0 ok, 1 failed, 2 usage, 130 interrupted). */
    static int execute(String[] args, PrintWriter out, PrintWriter err) {
        List<String> names = new ArrayList<>();
        int ops = 0;
        Integer rounds = null;
        Path results = null;
        boolean verbose = false;
        boolean scale = false;
        try {
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--ops" -> ops = Integer.parseInt(value(args, ++i, "--ops"));
                    case "--rounds" -> rounds = Integer.parseInt(value(args, ++i, "--rounds"));
                    case "--results" -> results = Path.of(value(args, ++i, "--results"));
                    case "--verbose" -> verbose = true;
                    case "--scale" -> scale = true;
                    case "--list" -> {
                        list(out);
                        return 0;
                    }
                    case "-h", "--help" -> {
                        out.println(USAGE);
                        return 0;
                    }
                    default -> {
                        if (args[i].startsWith("-")) {
                            throw new IllegalArgumentException("unknown option " + args[i]);
                        }
                        names.add(args[i]);
                    }
                }
            }
            BenchOptions options = BenchOptions.of(names, ops, rounds, results, verbose, scale);
            options.validateNames();
            run(options, out, err);
            return 0;
        } catch (NumberFormatException e) {
            err.println("bench: not a number: " + e.getMessage());
            err.println(USAGE);
            return 2;
        } catch (IllegalArgumentException e) {
            err.println("bench: " + e.getMessage());
            err.println(USAGE);
            return 2;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("bench: interrupted");
            return 130;
        } catch (RuntimeException e) {
            err.println("bench: failed: " + e.getMessage());
            return 1;
        }
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[i];
    }

    /** Prints each registered benchmark's name and description. */
    public static void list(PrintWriter out) {
        for (Benchmark b : Benchmarks.all()) {
            out.printf("%-22s %s%n", b.name(), b.description());
        }
        out.flush();
    }

    /**
     * Starts an embedded single ZooKeeper server (default tickTime, its data in a fresh temporary
     * directory), runs the selected benchmarks one after another, stops the server, prints the
     * table on {@code out} and appends the JSON lines. Progress goes to {@code err}.
     *
     * @throws IllegalArgumentException if a name selects no benchmark (before anything starts)
     * @throws InterruptedException     if interrupted; the server is stopped and nothing is appended
     */
    public static List<Figure> run(BenchOptions options, PrintWriter out, PrintWriter err) throws InterruptedException {
        if (options.scale()) {
            return runScale(options, out, err);
        }
        return run(Benchmarks.select(options.names()), options, out, err);
    }

    /**
     * {@code --scale}: runs the selected recipes' scale passes ({@link ScaleRecipe}) as {@link #run}
     * does, then writes each recipe's table into {@code docs/BENCHMARKS.md} (between its markers,
     * replaced) and its plot into {@code docs/img/}, under the repository root.
     */
    static List<Figure> runScale(BenchOptions options, PrintWriter out, PrintWriter err) throws InterruptedException {
        List<ScaleRecipe> recipes = ScaleRecipe.select(options.names());
        Path root = ResultsFile.repoRoot();
        String loadBefore = loadAverage();
        Instant started = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        long t0 = System.nanoTime();
        List<Figure> figures = run(ScaleRecipe.benchmarks(recipes), options, out, err);
        String runLine = String.format(java.util.Locale.ROOT,
                "Generated by `./coord bench --scale %s` (rerun the same to replace it) at %s, commit %s, in %.0f s; load"
                        + " average %s at the start, %s at the end (2-core machine shared with other builds unless"
                        + " this says otherwise); %d measured round(s) per side after a warm-up (membership: no warm-up),"
                        + " each participant its own client; ZooKeeper %s embedded single server, Curator %s.",
                String.join(" ", recipes.stream().map(ScaleRecipe::name).toList()), started, commit(root),
                (System.nanoTime() - t0) / 1e9, loadBefore, loadAverage(), options.rounds(),
                zookeeperVersion(),
                mavenVersion("org.apache.curator", "curator-framework"));
        ScaleReport.write(root, recipes, figures, runLine).forEach(out::println);
        out.println("scale tables written to " + root.resolve(ScaleReport.DOC) + ", plots to " + root.resolve("docs/img"));
        out.flush();
        return figures;
    }

    /** The 1, 5 and 15 minute load averages, from /proc/loadavg, else the JVM's 1 minute figure. */
    static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return f[0] + " / " + f[1] + " / " + f[2];
        } catch (IOException | RuntimeException e) {
            return String.format(java.util.Locale.ROOT, "%.2f", java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                    .getSystemLoadAverage());
        }
    }

    /** The short commit of the checkout at {@code root}, or "unknown" (no git, not a checkout). */
    static String commit(Path root) {
        try {
            Process p = new ProcessBuilder("git", "-C", root.toString(), "rev-parse", "--short", "HEAD").redirectErrorStream(true).start();
            String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (!p.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return "unknown";
            }
            return p.exitValue() == 0 && !text.isEmpty() ? text : "unknown";
        } catch (IOException e) {
            return "unknown";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "unknown";
        }
    }

    /** Runs {@code selected} as {@link #run(BenchOptions, PrintWriter, PrintWriter)} describes. */
    static List<Figure> run(List<Benchmark> selected, BenchOptions options, PrintWriter out, PrintWriter err) throws InterruptedException {
        Path results = options.results() == null ? ResultsFile.defaultPath() : options.results();
        Instant started = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        List<Figure> figures = new ArrayList<>();
        ObjectNode env;
        Path dataDir = tempDir();
        try (EmbeddedEnsemble server = EmbeddedEnsemble.start(EmbeddedEnsemble.Options.single().withDataDir(dataDir).withMaxClientConnections(0))) {
            env = environment(server, dataDir, options, selected, started);
            BenchContext ctx = new BenchContext(server.connectString(), options, err);
            for (Benchmark b : selected) {
                long t0 = System.nanoTime();
                ctx.progress("bench: running " + b.name() + " ...");
                figures.addAll(b.run(ctx));
                ctx.progress(String.format(java.util.Locale.ROOT, "bench: %s done in %.1f s", b.name(), (System.nanoTime() - t0) / 1e9));
            }
        } finally {
            deleteTree(dataDir);
        }
        out.println(summary(env, options));
        out.println();
        Table.render(figures).forEach(out::println);
        out.println();
        List<String> lines = new ArrayList<>();
        lines.add(env.toString());
        figures.forEach(f -> lines.add(json(f, started).toString()));
        ResultsFile.append(results, lines);
        out.println("results appended to " + results.toAbsolutePath());
        out.flush();
        return figures;
    }

    static ObjectNode json(Figure f, Instant run) {
        ObjectNode o = JSON.createObjectNode();
        o.put("record", "figure");
        o.put("run", run.toString());
        o.put("bench", f.bench());
        o.put("metric", f.metric());
        o.put("unit", f.unit());
        o.put("ours", f.ours());
        if (f.peer() == null) {
            o.putNull("peer");
            o.putNull("peerName");
            o.putNull("ratio");
        } else {
            o.put("peer", f.peer());
            o.put("peerName", f.peerName());
            if (f.ratio() == null) {
                o.putNull("ratio");
            } else {
                o.put("ratio", f.ratio());
            }
        }
        o.put("better", f.better().json());
        return o;
    }

    private static ObjectNode environment(EmbeddedEnsemble server, Path dataDir, BenchOptions options, List<Benchmark> selected,
                                          Instant started) {
        // FileTxnLog reads the property when the server starts: "no" turns fsync off, anything else keeps it.
        String forceSync = System.getProperty("zookeeper.forceSync", "yes");
        ObjectNode o = JSON.createObjectNode();
        o.put("record", "env");
        o.put("run", started.toString());
        o.put("server", "embedded single ZooKeeper (EmbeddedEnsemble), same JVM as the clients");
        o.put("zookeeper", zookeeperVersion());
        o.put("curator", mavenVersion("org.apache.curator", "curator-framework"));
        o.put("tickTimeMs", server.options().tickTimeMs());
        o.put("forceSync", forceSync);
        o.put("fsync", !"no".equals(forceSync));
        o.put("dataDirFilesystem", fileSystem(dataDir));
        o.put("jvm", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
        o.put("javaVendor", System.getProperty("java.vendor"));
        o.put("cores", Runtime.getRuntime().availableProcessors());
        o.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version") + " " + System.getProperty("os.arch"));
        o.put("rounds", options.rounds());
        if (options.ops() > 0) {
            o.put("opsPerRound", options.ops());
        } else {
            o.putNull("opsPerRound");
        }
        var names = o.putArray("benchmarks");
        selected.forEach(b -> names.add(b.name()));
        return o;
    }

    private static String summary(ObjectNode env, BenchOptions options) {
        return "ZooKeeper " + env.get("zookeeper").asText() + " embedded single server (tickTime " + env.get("tickTimeMs").asInt()
                + " ms, forceSync=" + env.get("forceSync").asText() + ", data on " + env.get("dataDirFilesystem").asText()
                + "), Curator " + env.get("curator").asText() + System.lineSeparator()
                + env.get("jvm").asText() + ", " + env.get("cores").asInt() + " cores; "
                + options.rounds() + " rounds per side after a warm-up, ours and peer alternating; medians over rounds";
    }

    private static String zookeeperVersion() {
        return org.apache.zookeeper.Version.getFullVersion().split(",")[0].trim().replaceFirst("-[0-9a-f]{40}$", "");
    }

    private static String mavenVersion(String group, String artifact) {
        String resource = "/META-INF/maven/" + group + "/" + artifact + "/pom.properties";
        try (InputStream in = BenchMain.class.getResourceAsStream(resource)) {
            if (in == null) {
                return "unknown";
            }
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version", "unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }

    private static String fileSystem(Path dir) {
        try {
            return Files.getFileStore(dir).type();
        } catch (IOException e) {
            return "unknown";
        }
    }

    private static Path tempDir() {
        try {
            return Files.createTempDirectory("coord-bench-zk-");
        } catch (IOException e) {
            throw new UncheckedIOException("could not create a temporary directory for the benchmark server", e);
        }
    }

    private static void deleteTree(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // best effort: a temporary directory
        }
    }
}
