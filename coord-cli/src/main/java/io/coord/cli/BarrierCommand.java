package io.coord.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.coord.CoordClient;
import io.coord.CoordPath;
import io.coord.InvalidNameException;
import io.coord.barrier.BarrierStatus;
import io.coord.barrier.DoubleBarrier;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code coord barrier}: look at (and reset) Coord double barriers. */
@Command(name = "barrier", mixinStandardHelpOptions = true, description = "Double barriers (coord-barrier DoubleBarrier).",
        subcommands = {BarrierCommand.Status.class, BarrierCommand.Reset.class})
final class BarrierCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return CoordCommand.USAGE;
    }

    static String validName(CommandSpec spec, String name) {
        try {
            return CoordPath.validateName(name);
        } catch (InvalidNameException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    /** {@code coord barrier status <name> [--json]}. */
    @Command(name = "status", mixinStandardHelpOptions = true,
            description = {"Shows a barrier's current generation: its phase and since when, who arrived, who is missing,"
                + " and whether (and why) it broke. Exit code 0 whether or not the barrier exists or is broken."})
    static final class Status implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Mixin
        ConnectOptions connection;

        @Parameters(index = "0", paramLabel = "NAME", description = "the barrier (one path segment)")
        String name;

        @Option(names = "--json", description = "print one JSON object instead of text")
        boolean json;

        @Override
        public Integer call() throws InterruptedException {
            validName(spec, name);
            BarrierStatus status;
            try (CoordClient client = connection.connect(spec)) {
                status = DoubleBarrier.status(client, name);
            }
            PrintWriter out = spec.commandLine().getOut();
            if (json) {
                out.println(json(status));
            } else {
                text(status, Instant.now()).forEach(out::println);
            }
            out.flush();
            return CoordCommand.OK;
        }
    }

    /** {@code coord barrier reset <name>}: opens a new generation after a broken one. */
    @Command(name = "reset", mixinStandardHelpOptions = true,
            description = {"Starts a new generation of a barrier whose current generation is broken (members arriving"
                + " at a broken generation fail at once until then). Does nothing to a barrier that is not broken;"
                + " exit code 1 then."})
    static final class Reset implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Mixin
        ConnectOptions connection;

        @Parameters(index = "0", paramLabel = "NAME", description = "the barrier (one path segment)")
        String name;

        @Override
        public Integer call() throws InterruptedException {
            validName(spec, name);
            try (CoordClient client = connection.connect(spec)) {
                boolean reset = DoubleBarrier.reset(client, name);
                BarrierStatus now = DoubleBarrier.status(client, name);
                if (!reset) {
                    spec.commandLine().getErr().println(spec.qualifiedName() + ": barrier " + name + " is not broken"
                            + (now.exists() ? " (generation " + now.generation() + " is " + now.phase() + ")" : " (never used)")
                            + "; nothing reset");
                    spec.commandLine().getErr().flush();
                    return CoordCommand.FAILED;
                }
                spec.commandLine().getOut().println("barrier " + name + ": generation " + now.generation() + " is open");
                spec.commandLine().getOut().flush();
                return CoordCommand.OK;
            }
        }
    }

    static List<String> text(BarrierStatus s, Instant now) {
        List<String> lines = new ArrayList<>();
        lines.add("barrier     " + s.name());
        if (!s.foreign().isEmpty()) {
            lines.add("foreign     " + s.foreign().size() + " node(s) that are not generations: " + String.join(", ", s.foreign())
                    + "  (enter refuses beside Curator DistributedDoubleBarrier's participant UUIDs and ready)");
        }
        if (!s.exists()) {
            lines.add("state       never used (no generation)");
            return lines;
        }
        String since = s.since() == null ? "" : " since " + s.since() + " (" + ago(s.since(), now) + " ago)";
        lines.add("generation  " + s.generation() + "  " + s.phase() + since);
        lines.add("parties     " + s.parties() + "  arrived " + s.arrived().size()
                + (s.waitingFor() > 0 ? "  waiting for " + s.waitingFor() : ""));
        for (BarrierStatus.Arrival a : s.arrived()) {
            lines.add("  #" + a.sequence() + "  " + a.memberId()
                    + (a.arrivedAt() == null ? "" : "  arrived " + a.arrivedAt())
                    + (a.left() ? "  left" : "") + (a.present() ? "" : "  (seat gone)"));
        }
        if (!s.missing().isEmpty()) {
            lines.add("missing     " + String.join(", ", s.missing()));
        }
        if (s.broken()) {
            lines.add("broken      yes, during " + (s.brokenIn() == BarrierStatus.Phase.OPEN ? "enter" : "leave") + ": " + s.reason());
            lines.add("            reset with: coord barrier reset " + s.name());
        } else {
            lines.add("broken      no");
        }
        return lines;
    }

    private static String ago(Instant since, Instant now) {
        Duration d = Duration.between(since, now);
        if (d.isNegative()) {
            return "0s";
        }
        long s = d.getSeconds();
        return s < 120 ? s + "s" : s < 7200 ? (s / 60) + "m" : (s / 3600) + "h";
    }

    static String json(BarrierStatus s) {
        ObjectNode o = new ObjectMapper().createObjectNode();
        o.put("name", s.name());
        o.put("exists", s.exists());
        ArrayNode foreign = o.putArray("foreign");
        s.foreign().forEach(foreign::add);
        if (s.exists()) {
            o.put("generation", s.generation());
            o.put("phase", s.phase().name());
            o.put("parties", s.parties());
            o.put("since", s.since() == null ? null : s.since().toString());
            o.put("waitingFor", s.waitingFor());
            ArrayNode arrived = o.putArray("arrived");
            for (BarrierStatus.Arrival a : s.arrived()) {
                ObjectNode n = arrived.addObject();
                n.put("member", a.memberId());
                n.put("sequence", a.sequence());
                n.put("arrivedAt", a.arrivedAt() == null ? null : a.arrivedAt().toString());
                n.put("left", a.left());
                n.put("present", a.present());
            }
            ArrayNode missing = o.putArray("missing");
            s.missing().forEach(missing::add);
            o.put("broken", s.broken());
            o.put("brokenIn", s.brokenIn() == null ? null : s.brokenIn() == BarrierStatus.Phase.OPEN ? "enter" : "leave");
            o.put("reason", s.reason());
        }
        return o.toString();
    }
}
