package io.coord.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.coord.CoordClient;
import io.coord.CoordException;
import io.coord.CoordSettings;
import io.coord.cli.doctor.Doctor;
import io.coord.cli.doctor.DoctorOptions;
import io.coord.cli.doctor.Finding;
import io.coord.cli.doctor.Finding.Severity;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code coord doctor}: one read-only pass over a namespace ({@link Doctor}), printed as one block
 * per finding and a summary line, or as one JSON object. Its exit code is its verdict: 0 clean
 * (INFO findings at most), 1 warnings, 2 errors, and 2 when it cannot examine the namespace at all
 * (unreachable ensemble, missing namespace, no READ permission), said in one line on stderr.
 */
@Command(name = "doctor", mixinStandardHelpOptions = true,
        description = {"One read-only pass over a namespace: locks, queues, elections, barriers, config, groups, servers,"
            + " session timeout and ACLs. Prints each finding (severity, check, path, what was seen, what to do).",
            "", "Exit codes: 0 clean (INFO only), 1 warnings, 2 errors or nothing could be examined."})
final class DoctorCommand implements Callable<Integer> {
    private static final ObjectMapper JSON = new ObjectMapper();
    static final int CLEAN = 0;
    static final int WARNINGS = 1;
    static final int ERRORS = 2;

    @Spec
    CommandSpec spec;

    @Mixin
    ConnectOptions connection;

    @Option(names = "--json", description = "print one JSON object instead of text")
    boolean json;

    @Option(names = "--session-timeout", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "the session timeout to request, compared with the one the server grants (default: the client default, 30s)")
    Duration sessionTimeout;

    @Option(names = "--recent-parent", paramLabel = "DURATION", converter = DurationConverter.OrZero.class, defaultValue = "0s",
            description = "report lock parents created less than DURATION ago, e.g. 24h for a daily run (default: off)")
    Duration recentParent;

    @Option(names = "--clock-skew", paramLabel = "DURATION", converter = DurationConverter.OrZero.class, defaultValue = "5s",
            description = "how far holders' clocks may lag the server's (default: ${DEFAULT-VALUE})")
    Duration clockSkew;

    @Option(names = "--claim-age", paramLabel = "DURATION", converter = DurationConverter.OrZero.class, defaultValue = "10m",
            description = "report queue claims older than this (default: ${DEFAULT-VALUE})")
    Duration claimAge;

    @Option(names = "--queue-cap", paramLabel = "N", description = "the depth cap the queues' clients use (default: QueueOptions' default)")
    Integer queueCap;

    @Option(names = "--queue-depth-warn", paramLabel = "FRACTION", defaultValue = "0.8",
            description = "warn from this fraction of the cap (default: ${DEFAULT-VALUE}; an error at the cap)")
    double queueDepthWarn;

    @Option(names = "--leaderless-after", paramLabel = "DURATION", converter = DurationConverter.OrZero.class, defaultValue = "30s",
            description = "report a leader elected but not acting after this (default: ${DEFAULT-VALUE})")
    Duration leaderless;

    @Option(names = "--barrier-wait", paramLabel = "DURATION", converter = DurationConverter.OrZero.class, defaultValue = "10m",
            description = "report a barrier generation waiting longer than this (default: ${DEFAULT-VALUE})")
    Duration barrierWait;

    @Option(names = "--recent-join", paramLabel = "DURATION", converter = DurationConverter.OrZero.class, defaultValue = "1m",
            description = "note members whose node is younger than this (default: ${DEFAULT-VALUE})")
    Duration recentJoin;

    @Option(names = "--flap-watch", paramLabel = "DURATION", converter = DurationConverter.OrZero.class, defaultValue = "0s",
            description = "watch every group this long and report members that leave and rejoin (default: off)")
    Duration flapWatch;

    @Option(names = "--max-outstanding", paramLabel = "N", defaultValue = "10",
            description = "warn when a server's zk_outstanding_requests is above N (default: ${DEFAULT-VALUE})")
    long maxOutstanding;

    @Option(names = "--max-watchers", paramLabel = "N", defaultValue = "100",
            description = "warn when more than N sessions watch one path (default: ${DEFAULT-VALUE})")
    int maxWatchers;

    @Override
    public Integer call() throws InterruptedException {
        DoctorOptions options = options();
        CoordSettings settings = connection.settings(spec, b -> {
            b.stallFraction(0);
            return sessionTimeout == null ? b : b.sessionTimeout(sessionTimeout);
        });
        List<Finding> findings;
        try (CoordClient client = CoordClient.connect(settings)) {
            findings = Doctor.of(client, options).run();
        } catch (CoordException e) {
            PrintWriter err = spec.commandLine().getErr();
            err.println(spec.qualifiedName() + ": " + Main.oneLine(e));
            err.flush();
            return ERRORS;
        }
        int code = exitCode(findings);
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            out.println(json(settings, findings, code));
        } else {
            text(findings).forEach(out::println);
        }
        out.flush();
        return code;
    }

    private DoctorOptions options() {
        DoctorOptions d = DoctorOptions.defaults();
        try {
            return new DoctorOptions(recentParent, clockSkew, claimAge, queueCap == null ? d.queueDepthCap() : queueCap, queueDepthWarn,
                    leaderless, barrierWait, recentJoin, flapWatch, maxOutstanding, maxWatchers, d.probeTimeout());
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    static int exitCode(List<Finding> findings) {
        Severity worst = findings.stream().map(Finding::severity).max(Enum::compareTo).orElse(Severity.INFO);
        return worst == Severity.ERROR ? ERRORS : worst == Severity.WARNING ? WARNINGS : CLEAN;
    }

    static List<String> text(List<Finding> findings) {
        List<String> lines = new java.util.ArrayList<>();
        for (Finding f : findings) {
            lines.add(String.format("%-7s  %s  %s", f.severity(), f.check(), f.path()));
            lines.add("  seen:   " + f.seen());
            lines.add("  advice: " + f.advice());
        }
        lines.add(count(findings, Severity.ERROR) + " error(s), " + count(findings, Severity.WARNING) + " warning(s), "
                + count(findings, Severity.INFO) + " info; " + (exitCode(findings) == CLEAN ? "clean" : "exit code " + exitCode(findings)));
        return lines;
    }

    private static long count(List<Finding> findings, Severity s) {
        return findings.stream().filter(f -> f.severity() == s).count();
    }

    static String json(CoordSettings settings, List<Finding> findings, int code) {
        ObjectNode o = JSON.createObjectNode();
        o.put("connect", settings.connectString());
        o.put("namespace", settings.namespace());
        o.put("exitCode", code);
        ObjectNode summary = o.putObject("summary");
        for (Severity s : Severity.values()) {
            summary.put(s.name(), count(findings, s));
        }
        ArrayNode list = o.putArray("findings");
        for (Finding f : findings) {
            list.addObject().put("severity", f.severity().name()).put("check", f.check()).put("path", f.path())
                    .put("seen", f.seen()).put("advice", f.advice());
        }
        return o.toString();
    }
}
