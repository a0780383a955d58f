package io.coord.cli.doctor;

import io.coord.cli.doctor.Finding.Severity;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Each server of the connect string, through four-letter words: its mode and
 * {@code zk_outstanding_requests} ({@code mntr}), and how many sessions watch each path of the
 * namespace ({@code wchp}). A word the server does not allow is an INFO saying so, never a guess.
 */
final class ServerCheck implements Check {
    @Override
    public String name() {
        return "server";
    }

    @Override
    public void run(Scan scan, List<Finding> findings) {
        List<String> hosts = FourLetterWords.hosts(scan.client.settings().connectString());
        List<Finding> down = new ArrayList<>();
        for (String address : hosts) {
            FourLetterWords.Answer mntr = FourLetterWords.ask(address, "mntr", scan.options.probeTimeout());
            if (mntr.refused()) {
                findings.add(new Finding(Severity.INFO, "server.mode", address, "mode and outstanding requests not checked: "
                        + mntr.error(), "add mntr to 4lw.commands.whitelist to have them checked"));
            } else if (!mntr.ok()) {
                down.add(new Finding(Severity.WARNING, "server.mode", address, "no usable answer: " + mntr.error(),
                        "bring this member back (its quorum has one member fewer to lose); check its log"));
            } else {
                Map<String, String> m = mntr(mntr.text());
                findings.add(new Finding(Severity.INFO, "server.mode", address, "mode " + m.getOrDefault("zk_server_state", "unknown")
                        + ", version " + m.getOrDefault("zk_version", "unknown").split(",")[0], "none"));
                outstanding(address, m, scan, findings);
            }
            watches(address, scan, findings);
        }
        if (!down.isEmpty() && down.size() == hosts.size()) {
            down.replaceAll(f -> new Finding(Severity.ERROR, f.check(), f.path(), f.seen() + " (no member answered)",
                    "the ensemble is not serving: restore a quorum"));
        }
        findings.addAll(down);
    }

    private static void outstanding(String address, Map<String, String> m, Scan scan, List<Finding> findings) {
        String value = m.get("zk_outstanding_requests");
        if (value == null) {
            return;
        }
        long outstanding = Long.parseLong(value.trim());
        if (outstanding > scan.options.maxOutstanding()) {
            findings.add(new Finding(Severity.WARNING, "server.outstanding", address, "zk_outstanding_requests " + outstanding
                    + " > " + scan.options.maxOutstanding(), "a herd or a slow disk: look at the watch counts (wchp) and"
                    + " at recipes many clients retry at once; the server queues requests it cannot keep up with"));
        }
    }

    private static void watches(String address, Scan scan, List<Finding> findings) {
        FourLetterWords.Answer wchp = FourLetterWords.ask(address, "wchp", scan.options.probeTimeout());
        if (!wchp.ok()) {
            findings.add(new Finding(Severity.INFO, "server.watches", address, "watch counts per path not checked: " + wchp.error(),
                    wchp.refused() ? "add wchp (and wchc) to 4lw.commands.whitelist to have them checked" : "none"));
            return;
        }
        String ns = scan.client.settings().namespace();
        String prefix = ns == null || ns.isEmpty() ? "/" : "/" + ns + "/";
        watchers(wchp.text()).forEach((path, sessions) -> {
            if (sessions > scan.options.maxWatchers() && (path + "/").startsWith(prefix)) {
                findings.add(new Finding(Severity.WARNING, "server.watches", path, sessions + " sessions watch this path on "
                        + address + " (more than " + scan.options.maxWatchers() + ")",
                        "a herd: one change wakes them all; recipes whose waiters watch only their predecessor avoid it"));
            }
        });
    }

    /** {@code mntr}'s {@code key<TAB>value} lines. */
    static Map<String, String> mntr(String text) {
        Map<String, String> m = new HashMap<>();
        for (String line : text.split("\\R")) {
            int tab = line.indexOf('\t');
            if (tab > 0) {
                m.put(line.substring(0, tab).trim(), line.substring(tab + 1).trim());
            }
        }
        return m;
    }

    /** {@code wchp}: a path line, then one indented session line per watcher. */
    static Map<String, Integer> watchers(String text) {
        Map<String, Integer> counts = new LinkedHashMap<>();
        String path = null;
        for (String line : text.split("\\R")) {
            if (line.startsWith("/")) {
                path = line.trim();
                counts.putIfAbsent(path, 0);
            } else if (path != null && line.trim().startsWith("0x")) {
                counts.merge(path, 1, Integer::sum);
            }
        }
        return counts;
    }
}
