package io.coord.cli;

import io.coord.chaos.ChaosResult;
import io.coord.chaos.ChaosSuite;
import io.coord.chaos.Profile;
import io.coord.chaos.Scenarios;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code coord chaos}: the multi-process chaos suite (coord-chaos) against a forked 3-server
 * ensemble on loopback, by default at the CI tier of the reliability matrix. Exit 0 only if every
 * scenario passed: its volume reached, 0 violations, 0 lost, every scheduled fault applied,
 * progress above the floor, and every control (the same faults with the safety feature off)
 * showed a violation.
 */
@Command(name = "chaos", mixinStandardHelpOptions = true,
        description = {"Runs the chaos suite: ZooKeeper servers and clients as separate processes, with faults.",
            "",
            "Starts 3 ZooKeeper servers (QuorumPeerMain) and worker JVMs on loopback, kills and restarts servers "
                + "(the leader too), expires sessions, SIGSTOPs workers past their session and cuts them off, "
                + "and checks each scenario's invariants. Prints one line per scenario: "
                + "CHAOS <scenario> ops=<n> faults=<n> violations=<n> lost=<n>."})
final class ChaosCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--duration", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "run the long profile for about this long in total (e.g. 30m), split across the scenarios"
                + " and their controls, each share at least the CI tier; without it the CI tier runs (the matrix's volumes and fault counts)")
    Duration duration;

    @Option(names = "--profile", paramLabel = "NAME",
            description = "ci (default: the reliability matrix's CI tier) or short (" + Profile.SHORT_SECONDS
                + " s of workload and a few faults per scenario, a smoke run); --duration runs the long profile")
    String profileName = "ci";

    @Option(names = "--scenario", paramLabel = "NAME", split = ",",
            description = "scenarios to run, comma-separated (default: all of ${COMPLETION-CANDIDATES})",
            completionCandidates = Names.class)
    List<String> scenarios = new ArrayList<>();

    @Option(names = "--seed", paramLabel = "N", description = "seed of the fault schedule (default: random, printed first)")
    Long seed;

    static final class Names extends ArrayList<String> {
        private static final long serialVersionUID = 1L;

        Names() {
            super(Scenarios.names());
        }
    }

    @Override
    public Integer call() throws InterruptedException {
        for (String s : scenarios) {
            try {
                Scenarios.entry(s);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), e.getMessage());
            }
        }
        List<String> chosen = scenarios.isEmpty() ? Scenarios.names() : scenarios;
        int shares = shares(chosen);
        Profile profile;
        try {
            profile = duration == null ? Profile.named(profileName) : Profile.longProfile(duration, shares);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), duration == null ? "--profile: " + e.getMessage()
                    : "--duration " + duration.toSeconds() + "s is too short for " + shares + " scenario runs: " + e.getMessage());
        }
        // netcrusher logs every proxy open and close at INFO; the CHAOS lines are the output here
        if (System.getProperty("org.slf4j.simpleLogger.log.org.netcrusher") == null) {
            System.setProperty("org.slf4j.simpleLogger.log.org.netcrusher", "warn");
        }
        PrintWriter out = spec.commandLine().getOut();
        long started = System.nanoTime();
        List<ChaosResult> results = ChaosSuite.run(chosen, profile, seed != null ? seed : System.nanoTime(), out);
        List<String> failed = new ArrayList<>();
        for (ChaosResult r : results) {
            if (!r.passed()) {
                failed.add(r.scenario() + " (" + String.join("; ", r.problems()) + ")");
            }
        }
        out.printf("chaos: %s, %d result(s) in %.0f s%s%n", failed.isEmpty() ? "PASS" : "FAIL", results.size(),
                (System.nanoTime() - started) / 1e9, failed.isEmpty() ? "" : ": " + String.join(", ", failed));
        return failed.isEmpty() ? CoordCommand.OK : CoordCommand.FAILED;
    }

    /**
     * How many shares a long run of {@code scenarios} splits its duration into: one per result, a
     * scenario and each of its controls, which run for as long (counting only the scenarios made a
     * 30-minute run take 84 minutes). Discovery's and membership's controls run alongside them, so
     * those two take half a share of wall time each.
     */
    static int shares(List<String> scenarios) {
        int shares = 0;
        for (String s : scenarios) {
            shares += 1 + Scenarios.entry(s).controller().get().controls().size();
        }
        return shares;
    }
}
