package io.coord.cli;

import io.coord.bench.BenchMain;
import io.coord.bench.BenchOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code coord bench}: runs coord-bench's harness ({@link BenchMain}) against its own embedded server. */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = {"Runs the benchmarks: ours beside the plain-Curator or raw-ZooKeeper peer.",
            "",
            "Both sides run against one embedded ZooKeeper server in the same run, in alternating rounds; "
                + "prints medians and ours/peer, and appends JSON lines to coord-bench/target/bench/results.jsonl.",
            "",
            "With --scale, runs each recipe's scale curve instead (NAME: lock, election, membership, discovery, config, "
                + "barrier; default: all): cost against size, ours and the peer, each participant its own client; writes one "
                + "table per recipe into docs/BENCHMARKS.md (between its markers, replaced) and one plot into docs/img/."})
final class BenchCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "NAME", arity = "0..*",
            description = "benchmarks to run, by name or prefix (limits = limits.*), or with --scale recipes; default: all (see --list)")
    List<String> names = new ArrayList<>();

    @Option(names = "--ops", paramLabel = "N",
            description = "operations per round for every benchmark (default: each benchmark's own, sized so that all run in about a minute)")
    int ops;

    @Option(names = "--rounds", paramLabel = "N",
            description = "measured rounds per side, after one warm-up round each (default: " + BenchOptions.DEFAULT_ROUNDS
                    + ", with --scale " + BenchOptions.SCALE_ROUNDS + ")")
    Integer rounds;

    @Option(names = "--scale", description = "run the scale curves (cost against size per recipe) and write them into docs/BENCHMARKS.md and docs/img/")
    boolean scale;

    @Option(names = "--results", paramLabel = "FILE", description = "JSON-lines file to append to (default: coord-bench/target/bench/results.jsonl)")
    Path results;

    @Option(names = "--verbose", description = "show every round's results on stderr, to judge the noise behind a median")
    boolean verbose;

    @Option(names = "--list", description = "list the benchmarks and exit")
    boolean list;

    @Override
    public Integer call() throws InterruptedException {
        if (list) {
            BenchMain.list(spec.commandLine().getOut());
            return CoordCommand.OK;
        }
        BenchOptions options;
        try {
            options = BenchOptions.of(names, ops, rounds, results, verbose, scale);
            options.validateNames();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        BenchMain.run(options, spec.commandLine().getOut(), spec.commandLine().getErr());
        return CoordCommand.OK;
    }
}
