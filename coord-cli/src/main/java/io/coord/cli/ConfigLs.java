package io.coord.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.coord.Codec;
import io.coord.CoordClient;
import io.coord.CoordPath;
import io.coord.InvalidNameException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code coord config ls APP}: every node in {@code /config/APP}, sorted into keys (a JSON value,
 * no children) and foreign nodes, each foreign one with why: a value that is not JSON (shown raw,
 * as a Curator {@code SharedValue} or another tool may have written it), a node with children,
 * or a dot-name Coord does not use. Readers ignore foreign nodes (a whole-app reader logs each once
 * at WARN); this is where they are all listed, every time.
 */
@Command(name = "ls", mixinStandardHelpOptions = true,
        description = {"Lists the keys of APP (/config/APP) with their versions and values, and every node there that is",
            "not a key (a value that is not JSON, a node with children, an unknown .name), each with why."})
final class ConfigLs implements Callable<Integer> {
    /** Coord's own children of an app directory. */
    private static final Set<String> COORD_DIRS = Set.of(".history", ".canary");

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "APP", description = "the application (one path segment)")
    String app;

    @Mixin
    ConnectOptions connection;

    @Option(names = "--json", description = "print JSON instead of text")
    boolean json;

    record Key(String name, int version, JsonNode value) {
    }

    record Foreign(String name, String why) {
    }

    @Override
    public Integer call() throws Exception {
        CoordPath dir;
        try {
            dir = CoordPath.of("/config").child(app);
        } catch (InvalidNameException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        List<Key> keys = new ArrayList<>();
        List<Foreign> foreign = new ArrayList<>();
        try (CoordClient client = connection.connect(spec)) {
            List<String> children;
            try {
                children = client.curator().getChildren().forPath(dir.value());
            } catch (KeeperException.NoNodeException e) {
                children = List.of();
            }
            for (String name : new TreeSet<>(children)) {
                if (COORD_DIRS.contains(name)) {
                    continue;
                }
                if (name.startsWith(".")) {
                    foreign.add(new Foreign(name, "names starting with '.' are Coord's own (.history, .canary); this one is not"));
                    continue;
                }
                String node = dir.value() + "/" + name;
                Stat stat = new Stat();
                byte[] data;
                try {
                    data = client.curator().getData().storingStatIn(stat).forPath(node);
                } catch (KeeperException.NoNodeException gone) {
                    continue;
                }
                if (stat.getNumChildren() > 0) {
                    foreign.add(new Foreign(name, "has " + stat.getNumChildren() + " children; a key holds a value, nothing below it"));
                    continue;
                }
                try {
                    keys.add(new Key(name, stat.getVersion(), Codec.json(JsonNode.class).decode(CoordPath.of(node), data)));
                } catch (io.coord.CodecException e) {
                    foreign.add(new Foreign(name, "v" + stat.getVersion() + " holds " + raw(data) + ", not JSON; readers keep"
                            + " their last good value: " + e.getMessage()));
                }
            }
        }
        print(spec.commandLine().getOut(), keys, foreign);
        return CoordCommand.OK;
    }

    private static String raw(byte[] data) throws JsonProcessingException {
        return "raw payload " + Codec.mapper().writeValueAsString(new String(data, StandardCharsets.UTF_8)) + " ("
                + data.length + (data.length == 1 ? " byte)" : " bytes)");
    }

    private void print(PrintWriter out, List<Key> keys, List<Foreign> foreign) {
        if (json) {
            ObjectNode root = Codec.mapper().createObjectNode();
            root.put("app", app);
            var k = root.putArray("keys");
            keys.forEach(key -> k.addObject().put("key", key.name()).put("version", key.version()).set("value", key.value()));
            var f = root.putArray("foreign");
            foreign.forEach(x -> f.addObject().put("node", x.name()).put("why", x.why()));
            out.println(root);
        } else {
            out.println("config " + app + "  " + keys.size() + (keys.size() == 1 ? " key" : " keys")
                    + (foreign.isEmpty() ? "" : "  " + foreign.size() + " foreign"));
            keys.forEach(key -> out.println("  " + key.name() + "  v" + key.version() + "  " + key.value()));
            if (!foreign.isEmpty()) {
                out.println("foreign (not keys; no reader applies them):");
                foreign.forEach(x -> out.println("  " + x.name() + "  " + x.why()));
            }
        }
        out.flush();
    }
}
