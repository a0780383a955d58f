package io.coord.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.coord.CoordClient;
import io.coord.InvalidNameException;
import io.coord.naming.IdStatus;
import io.coord.naming.SequenceIds;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code coord ids}: Coord's sequential IDs from the command line. */
@Command(name = "ids", mixinStandardHelpOptions = true, description = "Sequential IDs (coord-naming SequenceIds).",
        subcommands = {IdsCommand.Next.class, IdsCommand.Show.class})
final class IdsCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return CoordCommand.USAGE;
    }

    /** A usage error naming {@code name} unless it is one path segment. */
    static void checkName(CommandSpec spec, String name) {
        try {
            io.coord.CoordPath.validateName(name);
        } catch (InvalidNameException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    /** {@code coord ids next <name> [--count N] [--json]}. */
    @Command(name = "next", mixinStandardHelpOptions = true,
            description = {"Takes the next IDs of a sequence: globally unique and increasing, shared with every "
                + "application using SequenceIds.open(client, NAME) on the same ensemble and namespace."})
    static final class Next implements Callable<Integer> {
        static final int MAX_COUNT = 100_000;

        @Spec
        CommandSpec spec;

        @Mixin
        ConnectOptions connection;

        @Parameters(index = "0", paramLabel = "NAME", description = "the sequence (one path segment)")
        String name;

        @Option(names = {"-n", "--count"}, paramLabel = "N", defaultValue = "1", description = "how many IDs (1.."
                + MAX_COUNT + ", default ${DEFAULT-VALUE})")
        int count;

        @Option(names = "--json", description = "print one JSON object instead of one ID per line")
        boolean json;

        @Override
        public Integer call() throws InterruptedException {
            if (count < 1 || count > MAX_COUNT) {
                throw new ParameterException(spec.commandLine(), "--count must be within 1.." + MAX_COUNT + ", got " + count);
            }
            checkName(spec, name);
            PrintWriter out = spec.commandLine().getOut();
            try (CoordClient client = connection.connect(spec)) {
                SequenceIds ids = SequenceIds.open(client, name);
                long[] taken = new long[count];
                for (int i = 0; i < count; i++) {
                    taken[i] = ids.next();
                }
                if (json) {
                    ObjectNode root = new ObjectMapper().createObjectNode();
                    root.put("name", name);
                    ArrayNode list = root.putArray("ids");
                    for (long id : taken) {
                        list.add(id);
                    }
                    out.println(root);
                } else {
                    for (long id : taken) {
                        out.println(id);
                    }
                }
            }
            out.flush();
            return CoordCommand.OK;
        }
    }

    /** {@code coord ids show <name> [--json]}: the nodes of an ID name that are not Coord's. */
    @Command(name = "show", mixinStandardHelpOptions = true,
            description = {"Lists the nodes of an ID name (/ids/NAME) that are not Coord's: a Curator counter's bytes "
                + "(DistributedAtomicLong, SharedCount), which SequenceIds and BlockIds refuse to write beside, and "
                + "children neither uses (logged once at WARN). Reads only."})
    static final class Show implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Mixin
        ConnectOptions connection;

        @Parameters(index = "0", paramLabel = "NAME", description = "the ID name (one path segment)")
        String name;

        @Option(names = "--json", description = "print one JSON object")
        boolean json;

        @Override
        public Integer call() throws InterruptedException {
            checkName(spec, name);
            PrintWriter out = spec.commandLine().getOut();
            IdStatus status;
            try (CoordClient client = connection.connect(spec)) {
                status = IdStatus.read(client, name);
            }
            if (json) {
                ObjectNode root = new ObjectMapper().createObjectNode();
                root.put("name", status.name());
                ArrayNode foreign = root.putArray("foreign");
                status.foreign().forEach(foreign::add);
                out.println(root);
            } else {
                out.println("ids         " + status.name());
                if (status.foreign().isEmpty()) {
                    out.println("foreign     none");
                } else {
                    out.println("foreign     " + status.foreign().size() + " node(s) that are not Coord's:");
                    status.foreign().forEach(f -> out.println("  " + f));
                }
            }
            out.flush();
            return CoordCommand.OK;
        }
    }
}
