package io.coord.cli.doctor;

import com.fasterxml.jackson.databind.JsonNode;
import io.coord.CoordPath;
import io.coord.cli.doctor.Finding.Severity;
import io.coord.config.ConfigKey;
import io.coord.config.ConfigOptions;
import io.coord.config.ConfigStore;
import io.coord.config.Versioned;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Every key under {@code /config/{app}}, through {@link ConfigStore} ({@code get}, {@code canaryOf},
 * {@code who}): a canary in flight (INFO: its share, and which instances run it), and instances that
 * report applying a version older than the released one (WARNING, by name and version).
 */
final class ConfigCheck implements Check {
    static final CoordPath ROOT = CoordPath.of("/config");

    @Override
    public String name() {
        return "config";
    }

    @Override
    public void run(Scan scan, List<Finding> findings) throws InterruptedException {
        ConfigStore store = ConfigStore.open(scan.client, ConfigOptions.defaults());
        for (String app : scan.children(ROOT)) {
            for (String key : scan.children(ROOT.child(app))) {
                if (!key.startsWith(".")) {
                    check(store, ConfigKey.json(app, key), findings);
                }
            }
        }
    }

    private static void check(ConfigStore store, ConfigKey<JsonNode> key, List<Finding> findings) throws InterruptedException {
        Optional<Versioned<JsonNode>> released = store.get(key);
        List<ConfigStore.Report> reports = store.who(key);
        String path = key.path().value();
        Optional<ConfigStore.Canary> canary = store.canaryOf(key);
        if (canary.isPresent()) {
            List<String> on = reports.stream().filter(ConfigStore.Report::canary).map(ConfigStore.Report::instance).toList();
            findings.add(new Finding(Severity.INFO, "config.canary", path, "canary in flight for " + canary.get().percent()
                    + "% of instances (replaced " + canary.get().version() + " times); running it: "
                    + (on.isEmpty() ? "none reported" : String.join(", ", on)),
                    "watch those instances, then coord config promote (or abort) " + key.app() + " " + key.key()));
        }
        if (released.isEmpty()) {
            return;
        }
        long version = released.get().version();
        List<ConfigStore.Report> old = reports.stream().filter(r -> !r.canary() && r.version() < version).toList();
        if (!old.isEmpty()) {
            findings.add(new Finding(Severity.WARNING, "config.old-version", path, old.size() + " instance(s) on an older version than v"
                    + version + ": " + old.stream().map(r -> r.instance() + " on "
                            + (r.version() == Versioned.NO_VERSION ? "the default" : "v" + r.version()) + (r.stale() ? " (stale)" : ""))
                    .collect(Collectors.joining(", ")),
                    "an instance that stays behind cannot read the key (its ACL), is cut off from ZooKeeper, or rejected"
                            + " the value (coord config watch shows rejections): look at its log"));
        }
    }
}
