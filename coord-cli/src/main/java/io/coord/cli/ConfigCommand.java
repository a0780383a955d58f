package io.coord.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.coord.AclEntry;
import io.coord.AclPolicy;
import io.coord.Codec;
import io.coord.CoordClient;
import io.coord.CoordPath;
import io.coord.CoordSettings;
import io.coord.InvalidNameException;
import io.coord.config.ConfigChange;
import io.coord.config.ConfigKey;
import io.coord.config.ConfigListener;
import io.coord.config.ConfigOptions;
import io.coord.config.ConfigRejection;
import io.coord.config.ConfigStore;
import io.coord.config.LiveConfig;
import io.coord.config.Versioned;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.ZooDefs.Perms;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code coord config}: reads and writes configuration kept by coord-config
 * ({@code /config/{app}/{key}}). Values are JSON; writes are checked (syntax, size) before they
 * are sent and recorded in the key's history.
 */
@Command(name = "config", mixinStandardHelpOptions = true,
        description = "Reads and writes configuration under /config/APP/KEY: values, history, rollback, canaries, who runs what.",
        subcommands = {ConfigCommand.Get.class, ConfigCommand.Set.class, ConfigCommand.History.class, ConfigCommand.Rollback.class,
            ConfigCommand.Watch.class, ConfigCommand.Who.class, ConfigCommand.Canary.class, ConfigCommand.Promote.class,
            ConfigCommand.Abort.class, ConfigCommand.Delete.class, ConfigLs.class})
final class ConfigCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return CoordCommand.USAGE;
    }

    /** What every subcommand takes: where the ensemble is, who we are, which key, how to print. */
    static final class Target {
        @Spec(Spec.Target.MIXEE)
        CommandSpec spec;

        @Parameters(index = "0", paramLabel = "APP", description = "the application (one path segment)")
        String app;

        @Parameters(index = "1", paramLabel = "KEY", description = "the key (one path segment)")
        String key;

        @Mixin
        ConnectOptions connection;

        @Option(names = "--json", description = "print JSON instead of text")
        boolean json;

        ConfigKey<JsonNode> configKey() {
            try {
                return ConfigKey.json(app, key);
            } catch (InvalidNameException e) {
                throw new ParameterException(spec.commandLine(), e.getMessage());
            }
        }

        /**
         * With credentials, nodes this command creates under /config get the config-admin policy:
         * everyone READ, this user ALL.
         */
        CoordSettings settings() {
            return connection.settings(spec, b -> {
                b.stallFraction(0);
                connection.credentials(spec).ifPresent(c -> b.aclPolicy(AclPolicy.builder().defaultAcl(AclEntry.anyone(Perms.ALL))
                        .rule("/config", AclEntry.anyone(Perms.READ), AclEntry.digest(c.identity(), c.secret(), Perms.ALL)).build()));
                return b;
            });
        }

        CoordClient connect() throws InterruptedException {
            configKey(); // a bad name is a usage error before anything connects
            return CoordClient.connect(settings());
        }

        PrintWriter out() {
            return spec.commandLine().getOut();
        }

        String path() {
            return configKey().path().value();
        }
    }

    /** A JSON value given on the command line, as {@code @FILE}, or {@code -} for stdin; checked strictly. */
    static JsonNode parseValue(CommandSpec spec, ConfigKey<JsonNode> key, String value) {
        byte[] bytes;
        try {
            if (value.equals("-")) {
                bytes = System.in.readAllBytes();
            } else if (value.startsWith("@")) {
                bytes = Files.readAllBytes(Path.of(value.substring(1)));
            } else {
                bytes = value.getBytes(StandardCharsets.UTF_8);
            }
        } catch (IOException e) {
            throw new ParameterException(spec.commandLine(), "cannot read the value from " + value + ": " + e.getMessage());
        }
        return Codec.json(JsonNode.class).decode(key.path(), bytes);
    }

    static ObjectNode versionedJson(Target t, Versioned<?> v) {
        ObjectNode o = Codec.mapper().createObjectNode();
        o.put("path", t.path());
        o.put("version", v.version());
        o.put("revision", v.revision());
        o.put("modified", v.modified().toString());
        o.put("origin", v.origin().name());
        o.set("value", v.value() instanceof JsonNode n ? n : Codec.mapper().valueToTree(v.value()));
        return o;
    }

    static String line(Versioned<?> v) {
        return "v" + v.version() + "  " + v.modified() + "  " + v.value();
    }

    @Command(name = "get", mixinStandardHelpOptions = true, description = "Prints a key's released value and version.")
    static final class Get implements Callable<Integer> {
        @Mixin
        Target t;

        @Override
        public Integer call() throws InterruptedException {
            try (CoordClient client = t.connect()) {
                Optional<Versioned<JsonNode>> v = ConfigStore.open(client, ConfigOptions.defaults()).get(t.configKey());
                if (v.isEmpty()) {
                    t.spec.commandLine().getErr().println(t.spec.qualifiedName() + ": no key " + t.path());
                    return CoordCommand.FAILED;
                }
                if (t.json) {
                    t.out().println(versionedJson(t, v.get()));
                } else {
                    t.out().println(t.path() + "  version " + v.get().version() + "  modified " + v.get().modified());
                    t.out().println(v.get().value().toPrettyString());
                }
                t.out().flush();
                return CoordCommand.OK;
            }
        }
    }

    @Command(name = "set", mixinStandardHelpOptions = true,
            description = {"Publishes a JSON value as the key's next version (recorded in its history).",
                "VALUE is JSON, @FILE, or - for stdin. With --expect-version the write is a compare-and-set."})
    static final class Set implements Callable<Integer> {
        @Mixin
        Target t;

        @Parameters(index = "2", paramLabel = "VALUE", description = "the JSON value, @FILE or -")
        String value;

        @Option(names = "--expect-version", paramLabel = "N", description = "write only if the current version is N")
        Long expected;

        @Option(names = "--create", description = "write only if the key does not exist yet")
        boolean create;

        @Override
        public Integer call() throws InterruptedException {
            if (create && expected != null) {
                throw new ParameterException(t.spec.commandLine(), "--create and --expect-version exclude each other");
            }
            JsonNode parsed = parseValue(t.spec, t.configKey(), value);
            try (CoordClient client = t.connect()) {
                ConfigStore store = ConfigStore.open(client, ConfigOptions.defaults());
                long version;
                if (create) {
                    if (!store.createIfAbsent(t.configKey(), parsed)) {
                        t.spec.commandLine().getErr().println(t.spec.qualifiedName() + ": " + t.path() + " exists; nothing written");
                        return CoordCommand.FAILED;
                    }
                    version = 0;
                } else if (expected != null) {
                    version = store.compareAndSet(t.configKey(), expected, parsed);
                } else {
                    version = store.put(t.configKey(), parsed);
                }
                printVersion(t, "published", version);
                return CoordCommand.OK;
            }
        }
    }

    static void printVersion(Target t, String what, long version) {
        if (t.json) {
            ObjectNode o = Codec.mapper().createObjectNode();
            o.put("path", t.path());
            o.put("version", version);
            t.out().println(o);
        } else {
            t.out().println(what + " " + t.path() + " version " + version);
        }
        t.out().flush();
    }

    @Command(name = "history", mixinStandardHelpOptions = true, description = "Lists the kept versions of a key, newest first.")
    static final class History implements Callable<Integer> {
        @Mixin
        Target t;

        @Override
        public Integer call() throws InterruptedException {
            try (CoordClient client = t.connect()) {
                List<Versioned<String>> history = ConfigStore.open(client, ConfigOptions.defaults()).history(t.configKey());
                if (t.json) {
                    var array = Codec.mapper().createArrayNode();
                    for (Versioned<String> v : history) {
                        ObjectNode o = array.addObject();
                        o.put("version", v.version());
                        o.put("modified", v.modified().toString());
                        o.set("value", Codec.json(JsonNode.class).decode(CoordPath.of(t.path()), v.value().getBytes(StandardCharsets.UTF_8)));
                    }
                    t.out().println(array);
                } else if (history.isEmpty()) {
                    t.out().println("no history for " + t.path());
                } else {
                    history.forEach(v -> t.out().println(line(v)));
                }
                t.out().flush();
                return CoordCommand.OK;
            }
        }
    }

    @Command(name = "rollback", mixinStandardHelpOptions = true,
            description = "Republishes the value of an earlier VERSION (still in history) as the next version.")
    static final class Rollback implements Callable<Integer> {
        @Mixin
        Target t;

        @Parameters(index = "2", paramLabel = "VERSION", description = "the version to bring back")
        long version;

        @Override
        public Integer call() throws InterruptedException {
            try (CoordClient client = t.connect()) {
                long now = ConfigStore.open(client, ConfigOptions.defaults()).rollback(t.configKey(), version);
                printVersion(t, "rolled back to version " + version + ": published", now);
                return CoordCommand.OK;
            }
        }
    }

    @Command(name = "watch", mixinStandardHelpOptions = true,
            description = {"Prints the key's value, then every change as it is applied (one line each), until interrupted.",
                "Bad values are shown as rejected. Reads as a reader would (without reporting itself)."})
    static final class Watch implements Callable<Integer> {
        @Mixin
        Target t;

        @Option(names = "--count", paramLabel = "N", description = "stop after N changes (besides the first value)")
        Integer count;

        @Option(names = "--timeout", paramLabel = "DURATION", converter = DurationConverter.class,
                description = "stop after this long")
        Duration timeout;

        @Override
        public Integer call() throws InterruptedException {
            LinkedBlockingQueue<Line> lines = new LinkedBlockingQueue<>();
            ConfigOptions options = ConfigOptions.builder().reportApplied(false).build();
            try (CoordClient client = t.connect(); LiveConfig<JsonNode> live = LiveConfig.watch(client, t.configKey(), options)) {
                live.addListener(new ConfigListener<>() {
                    @Override
                    public void onChange(ConfigChange<JsonNode> change) {
                        lines.add(new Line(t.json ? versionedJson(t, change.current()).toString() : line(change.current()), true));
                    }

                    @Override
                    public void onRejected(ConfigRejection r) {
                        lines.add(new Line(t.json ? rejectionJson(r) : "rejected v" + r.version() + " (" + r.reason() + "): " + r.error(), false));
                    }
                }, Runnable::run);
                long deadline = timeout == null ? Long.MAX_VALUE : System.nanoTime() + timeout.toNanos();
                int changes = -1; // the first line is the value found at start
                while (count == null || changes < count) {
                    long wait = Math.min(TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()), 1000);
                    if (wait <= 0) {
                        break;
                    }
                    Line next = lines.poll(wait, TimeUnit.MILLISECONDS);
                    if (next != null) {
                        t.out().println(next.text());
                        t.out().flush();
                        if (next.change()) {
                            changes++;
                        }
                    }
                }
                return CoordCommand.OK;
            }
        }

        private record Line(String text, boolean change) {
        }

        private static String rejectionJson(ConfigRejection r) {
            ObjectNode o = Codec.mapper().createObjectNode();
            o.put("path", r.path());
            o.put("rejectedVersion", r.version());
            o.put("reason", r.reason());
            o.put("error", r.error());
            return o.toString();
        }
    }

    @Command(name = "who", mixinStandardHelpOptions = true,
            description = "Lists the live readers of a key and the version each applied (and any running canary).")
    static final class Who implements Callable<Integer> {
        @Mixin
        Target t;

        @Override
        public Integer call() throws InterruptedException {
            try (CoordClient client = t.connect()) {
                ConfigStore store = ConfigStore.open(client, ConfigOptions.defaults());
                List<ConfigStore.Report> reports = store.who(t.configKey());
                Optional<ConfigStore.Canary> canary = store.canaryOf(t.configKey());
                Optional<Versioned<JsonNode>> released = store.get(t.configKey());
                if (t.json) {
                    ObjectNode o = Codec.mapper().createObjectNode();
                    o.put("path", t.path());
                    if (released.isPresent()) {
                        o.put("version", released.get().version());
                    } else {
                        o.putNull("version");
                    }
                    if (canary.isPresent()) {
                        o.putObject("canary").put("percent", canary.get().percent()).put("revision", canary.get().revision());
                    } else {
                        o.putNull("canary");
                    }
                    var array = o.putArray("instances");
                    for (ConfigStore.Report r : reports) {
                        array.addObject().put("instance", r.instance()).put("version", r.version()).put("revision", r.revision())
                                .put("canary", r.canary()).put("stale", r.stale()).put("appliedAt", r.appliedAt().toString());
                    }
                    t.out().println(o);
                } else {
                    t.out().println(t.path() + "  released " + released.map(v -> "version " + v.version()).orElse("none")
                            + canary.map(c -> "  canary " + c.percent() + "%").orElse(""));
                    int width = reports.stream().mapToInt(r -> r.instance().length()).max().orElse(8);
                    for (ConfigStore.Report r : reports) {
                        t.out().println(String.format("  %-" + width + "s  %s%s%s  %s", r.instance(),
                                r.version() == Versioned.NO_VERSION ? "default" : "v" + r.version(),
                                r.canary() ? " (canary)" : "", r.stale() ? " (stale)" : "", r.appliedAt()));
                    }
                    t.out().println(reports.size() + " instance(s)");
                }
                t.out().flush();
                return CoordCommand.OK;
            }
        }
    }

    @Command(name = "canary", mixinStandardHelpOptions = true,
            description = "Offers VALUE to PERCENT %% of instances (by a stable hash of their instance id).")
    static final class Canary implements Callable<Integer> {
        @Mixin
        Target t;

        @Parameters(index = "2", paramLabel = "VALUE", description = "the JSON value, @FILE or -")
        String value;

        @Option(names = "--percent", required = true, paramLabel = "P", description = "share of instances, 0 < P <= 100")
        double percent;

        @Override
        public Integer call() throws InterruptedException {
            JsonNode parsed = parseValue(t.spec, t.configKey(), value);
            try (CoordClient client = t.connect()) {
                ConfigStore.open(client, ConfigOptions.defaults()).canary(t.configKey(), parsed, percent);
                t.out().println(t.json ? "{\"path\":\"" + t.path() + "\",\"canaryPercent\":" + percent + "}"
                        : "canary of " + t.path() + " offered to " + percent + "% of instances");
                t.out().flush();
                return CoordCommand.OK;
            }
        }
    }

    @Command(name = "promote", mixinStandardHelpOptions = true, description = "Releases the running canary to everyone as the next version.")
    static final class Promote implements Callable<Integer> {
        @Mixin
        Target t;

        @Override
        public Integer call() throws InterruptedException {
            try (CoordClient client = t.connect()) {
                printVersion(t, "promoted canary: published", ConfigStore.open(client, ConfigOptions.defaults()).promote(t.configKey()));
                return CoordCommand.OK;
            }
        }
    }

    @Command(name = "abort", mixinStandardHelpOptions = true, description = "Ends the running canary; its instances go back to the released value.")
    static final class Abort implements Callable<Integer> {
        @Mixin
        Target t;

        @Override
        public Integer call() throws InterruptedException {
            try (CoordClient client = t.connect()) {
                boolean ended = ConfigStore.open(client, ConfigOptions.defaults()).abort(t.configKey());
                t.out().println(t.json ? "{\"path\":\"" + t.path() + "\",\"aborted\":" + ended + "}"
                        : ended ? "canary of " + t.path() + " aborted" : "no canary was running for " + t.path());
                t.out().flush();
                return CoordCommand.OK;
            }
        }
    }

    @Command(name = "delete", mixinStandardHelpOptions = true, description = "Deletes a key with its history and canary; readers fall back to their default.")
    static final class Delete implements Callable<Integer> {
        @Mixin
        Target t;

        @Override
        public Integer call() throws InterruptedException {
            try (CoordClient client = t.connect()) {
                boolean deleted = ConfigStore.open(client, ConfigOptions.defaults()).delete(t.configKey());
                t.out().println(t.json ? "{\"path\":\"" + t.path() + "\",\"deleted\":" + deleted + "}"
                        : deleted ? "deleted " + t.path() : "no key " + t.path());
                t.out().flush();
                return CoordCommand.OK;
            }
        }
    }
}
