package io.coord.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.coord.CoordClient;
import io.coord.CoordException;
import io.coord.InvalidNameException;
import io.coord.election.CuratorLayout;
import io.coord.election.Election;
import io.coord.election.ElectionOptions;
import io.coord.election.LeaderInfo;
import io.coord.election.Participant;
import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code coord leader}: inspects leader elections (coord-election); without a subcommand it prints its usage. */
@Command(name = "leader", mixinStandardHelpOptions = true,
        description = "Inspects leader elections: who leads, with which epoch, who is next.",
        subcommands = LeaderCommand.Show.class)
final class LeaderCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return CoordCommand.USAGE;
    }

    /**
     * {@code coord leader show NAME}: one read of {@code /elections/NAME}, as an observer (it creates
     * nothing): the leader, its epoch (the czxid of its node, the fencing token it writes with),
     * whether it has started acting and since when, then every candidate in the order they will
     * lead.
     */
    @Command(name = "show", mixinStandardHelpOptions = true,
            description = {"Shows an election's leader, its epoch, and the candidates in order.",
                "",
                "Reads /elections/NAME as an observer (creates nothing). The epoch is the czxid of the leader's "
                    + "node: every later leader has a greater one, so downstream writers fence with it."})
    static final class Show implements Callable<Integer> {
        private static final ObjectMapper JSON = new ObjectMapper();

        @Spec
        CommandSpec spec;

        @Parameters(index = "0", paramLabel = "NAME", description = "the election's name (one path segment)")
        String name;

        @Mixin
        ConnectOptions connection;

        @Option(names = "--json", description = "print one JSON object instead of text")
        boolean json;

        @Option(names = "--layout", paramLabel = "LATCH|SELECTOR", defaultValue = "LATCH",
                description = "the Curator node layout the election shares (LATCH: latch- nodes, the default;"
                        + " SELECTOR: LeaderSelector's lock- nodes)")
        CuratorLayout layout;

        @Override
        public Integer call() throws InterruptedException {
            try (CoordClient client = connection.connect(spec);
                 Election election = open(client)) {
                Optional<LeaderInfo> leader = election.leader();
                List<Participant> candidates = election.candidates();
                PrintWriter out = spec.commandLine().getOut();
                if (json) {
                    out.println(json(election, leader, candidates));
                } else {
                    text(election, leader, candidates).forEach(out::println);
                }
                out.flush();
                return CoordCommand.OK;
            }
        }

        private Election open(CoordClient client) {
            try {
                return Election.open(client, name, ElectionOptions.builder().curatorLayout(layout).build());
            } catch (InvalidNameException e) {
                throw new ParameterException(spec.commandLine(), "election " + e.getMessage());
            }
        }

        static List<String> text(Election election, Optional<LeaderInfo> leader, List<Participant> candidates) {
            List<String> lines = new java.util.ArrayList<>();
            lines.add("election    " + election.path());
            if (leader.isEmpty()) {
                lines.add("leader      none (no candidates)");
            } else {
                LeaderInfo l = leader.get();
                // A Curator candidate sharing the election has no epoch and never announces acting.
                lines.add("leader      " + l.id() + (l.curator() ? "  Curator, no epoch (node czxid " + epoch(l.epoch().value()) + ")"
                        : "  epoch " + epoch(l.epoch().value())
                        + (l.acting() ? "  acting since " + l.since() : "  elected, not acting yet (handover)")));
            }
            lines.add("candidates  " + candidates.size() + (candidates.isEmpty() ? "" : ", in the order they lead:"));
            int width = candidates.stream().mapToInt(p -> p.id().length()).max().orElse(0);
            for (int i = 0; i < candidates.size(); i++) {
                Participant p = candidates.get(i);
                lines.add(String.format("  %2d  %-" + width + "s  %s %s  joined %s%s", i + 1, p.id(),
                        p.epoch().isPresent() ? "epoch" : "Curator, node czxid", epoch(p.token().value()),
                        p.joinedAt(), p.metadata().isEmpty() ? "" : "  " + metadata(p.metadata())));
            }
            return lines;
        }

        private static String epoch(long czxid) {
            return "0x" + Long.toHexString(czxid) + " (" + czxid + ")";
        }

        private static String metadata(Map<String, String> metadata) {
            try {
                return JSON.writeValueAsString(new java.util.TreeMap<>(metadata));
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                throw new CoordException("metadata cannot be shown as JSON: " + e.getOriginalMessage(), e);
            }
        }

        static String json(Election election, Optional<LeaderInfo> leader, List<Participant> candidates) {
            ObjectNode o = JSON.createObjectNode();
            o.put("election", election.name());
            o.put("path", election.path().value());
            if (leader.isEmpty()) {
                o.putNull("leader");
            } else {
                LeaderInfo l = leader.get();
                ObjectNode n = o.putObject("leader");
                n.put("id", l.id());
                n.put("library", l.participant().library().name());
                n.put("epoch", l.epoch().value());
                n.put("epochHex", "0x" + Long.toHexString(l.epoch().value()));
                n.put("acting", l.acting());
                n.put("since", l.since().toString());
                n.put("node", l.participant().node().value());
                metadata(n.putObject("metadata"), l.metadata());
            }
            ArrayNode list = o.putArray("candidates");
            for (Participant p : candidates) {
                ObjectNode n = list.addObject();
                n.put("id", p.id());
                n.put("library", p.library().name());
                n.put("epoch", p.token().value());
                n.put("joinedAt", p.joinedAt().toString());
                n.put("node", p.node().value());
                metadata(n.putObject("metadata"), p.metadata());
            }
            return o.toString();
        }

        private static void metadata(ObjectNode into, Map<String, String> metadata) {
            new java.util.TreeMap<>(metadata).forEach(into::put);
        }
    }
}
