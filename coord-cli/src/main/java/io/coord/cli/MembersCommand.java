package io.coord.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.coord.CoordClient;
import io.coord.InvalidNameException;
import io.coord.Registration;
import io.coord.membership.Group;
import io.coord.membership.GroupListener;
import io.coord.membership.GroupOptions;
import io.coord.membership.GroupView;
import io.coord.membership.MemberInfo;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code coord members}: who is in a group (coord-membership). */
@Command(name = "members", mixinStandardHelpOptions = true, description = "Cluster membership (coord-membership).",
        subcommands = MembersCommand.Ls.class)
final class MembersCommand implements Callable<Integer> {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return CoordCommand.USAGE;
    }

    /** {@code coord members ls GROUP [--json] [--watch [--for DURATION]]}. */
    @Command(name = "ls", mixinStandardHelpOptions = true,
            description = {"Lists the members of GROUP (/groups/GROUP) with their metadata, join time and session.",
                "With --watch, then prints every change as it is seen (+ joined, - left, ~ updated, ! flapped) until",
                "interrupted, or for --for DURATION."})
    static final class Ls implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Mixin
        ConnectOptions connection;

        @Parameters(index = "0", paramLabel = "GROUP", description = "the group's name")
        String group;

        @Option(names = "--json", description = "print JSON: one object for the view; with --watch, one object per line per change")
        boolean json;

        @Option(names = "--watch", description = "keep watching and print each change")
        boolean watch;

        @Option(names = "--for", paramLabel = "DURATION", converter = DurationConverter.class,
                description = "with --watch: stop after DURATION (default: until interrupted)")
        Duration duration;

        @Override
        public Integer call() throws InterruptedException {
            if (duration != null && !watch) {
                throw new ParameterException(spec.commandLine(), "--for needs --watch");
            }
            PrintWriter out = spec.commandLine().getOut();
            // Read any JSON, however other programs wrote it, up to the znode limit.
            GroupOptions<JsonNode> options = GroupOptions.builder(JsonNode.class).maxMetadataBytes(1_000_000).build();
            try (CoordClient client = connection.connect(spec); Group<JsonNode> g = open(client, options)) {
                if (!watch) {
                    print(out, g.view());
                    out.flush();
                    return CoordCommand.OK;
                }
                ExecutorService printer = Executors.newSingleThreadExecutor(r -> {
                    Thread t = new Thread(r, "coord-members-watch");
                    t.setDaemon(true);
                    return t;
                });
                try (Registration ignored = g.addListener(new Printer(out, json), printer)) {
                    CountDownLatch forever = new CountDownLatch(1);
                    if (duration == null) {
                        forever.await();
                    } else {
                        forever.await(duration.toMillis(), TimeUnit.MILLISECONDS);
                    }
                } finally {
                    printer.shutdown();
                    printer.awaitTermination(5, TimeUnit.SECONDS);
                }
            }
            out.flush();
            return CoordCommand.OK;
        }

        private Group<JsonNode> open(CoordClient client, GroupOptions<JsonNode> options) throws InterruptedException {
            try {
                return Group.open(client, group, options);
            } catch (InvalidNameException e) {
                throw new ParameterException(spec.commandLine(), e.getMessage());
            }
        }

        private void print(PrintWriter out, GroupView<JsonNode> view) {
            if (json) {
                ObjectNode root = JSON.createObjectNode();
                root.put("group", view.group());
                root.put("version", view.version());
                root.put("size", view.size());
                view.members().values().forEach(m -> root.withArray("members").add(toJson(m)));
                if (view.size() == 0) {
                    root.putArray("members");
                }
                out.println(root);
                return;
            }
            out.println("group " + view.group() + "  " + view.size() + (view.size() == 1 ? " member" : " members")
                    + "  version 0x" + Long.toHexString(view.version()));
            view.members().values().forEach(m -> out.println("  " + line(m)));
        }
    }

    /** Prints each change as it arrives: text lines or JSON lines. */
    private record Printer(PrintWriter out, boolean json) implements GroupListener<JsonNode> {
        @Override
        public void onJoined(MemberInfo<JsonNode> member, GroupView<JsonNode> view) {
            emit("joined", "+", member, view);
        }

        @Override
        public void onLeft(MemberInfo<JsonNode> member, GroupView<JsonNode> view) {
            emit("left", "-", member, view);
        }

        @Override
        public void onUpdated(MemberInfo<JsonNode> before, MemberInfo<JsonNode> after, GroupView<JsonNode> view) {
            emit("updated", "~", after, view);
        }

        @Override
        public void onFlap(Group.Flap flap) {
            if (json) {
                ObjectNode n = JSON.createObjectNode();
                n.put("event", "flap");
                n.put("id", flap.memberId());
                n.put("count", flap.count());
                n.put("lastAt", flap.lastAt().toString());
                n.put("downtimeMs", flap.lastDowntime().toMillis());
                out.println(n);
            } else {
                out.println("! " + flap.memberId() + "  flapped " + flap.count() + (flap.count() == 1 ? " time" : " times")
                        + ", down " + flap.lastDowntime().toMillis() + " ms");
            }
            out.flush();
        }

        private void emit(String event, String sign, MemberInfo<JsonNode> m, GroupView<JsonNode> view) {
            if (json) {
                ObjectNode n = JSON.createObjectNode();
                n.put("event", event);
                n.put("version", view.version());
                n.set("member", toJson(m));
                out.println(n);
            } else {
                out.println(sign + " " + line(m));
            }
            out.flush();
        }
    }

    static String line(MemberInfo<JsonNode> m) {
        return m.id() + "  joined " + m.joinedAt() + "  session " + m.sessionHex() + "  v" + m.metadataVersion() + "  "
                + (m.metadataError() == null ? m.metadata().toString() : "(undecodable: " + m.metadataError() + ")");
    }

    static ObjectNode toJson(MemberInfo<JsonNode> m) {
        ObjectNode n = JSON.createObjectNode();
        n.put("id", m.id());
        n.put("joinedAt", m.joinedAt().toString());
        n.put("session", m.sessionHex());
        n.put("czxid", m.czxid());
        n.put("metadataVersion", m.metadataVersion());
        if (m.metadataError() == null) {
            n.set("metadata", m.metadata());
        } else {
            n.putNull("metadata");
            n.put("metadataError", m.metadataError());
        }
        return n;
    }
}
