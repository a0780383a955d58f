package io.coord.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.coord.CoordClient;
import io.coord.InvalidNameException;
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
        subcommands = IdsCommand.Next.class)
final class IdsCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return CoordCommand.USAGE;
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
            try {
                io.coord.CoordPath.validateName(name);
            } catch (InvalidNameException e) {
                throw new ParameterException(spec.commandLine(), e.getMessage());
            }
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
}
