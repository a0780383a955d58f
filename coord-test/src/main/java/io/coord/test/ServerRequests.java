package io.coord.test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The requests each session sent, as the server counted them: the last client xid it saw from
 * the session (from {@code cons}; a session numbers its requests 1, 2, 3..., and pings do not
 * count). Read before and after a window, the difference is what the window cost in requests: a
 * count, not a time, so it does not depend on the machine's speed. Only sessions connected to the
 * server at the reading are listed, so keep every session of interest open across the window.
 */
public final class ServerRequests {
    private static final Pattern CONS = Pattern.compile("sid=0x([0-9a-f]+),.*?lcxid=0x([0-9a-f]+)");
    private static final List<String> WATCH_SUMS = List.of("zk_sum_node_created_watch_count", "zk_sum_node_deleted_watch_count",
            "zk_sum_node_changed_watch_count", "zk_sum_node_children_watch_count");

    private ServerRequests() {
    }

    /** The last xid per session id of the server on loopback {@code port}. */
    public static Map<Long, Long> lastXids(int port) {
        String cons = EmbeddedEnsemble.fourLetterWord(port, "cons")
                .orElseThrow(() -> new IllegalStateException("the server on port " + port + " did not answer 'cons'"));
        Map<Long, Long> out = new HashMap<>();
        for (String line : cons.split("\n")) {
            Matcher m = CONS.matcher(line);
            if (m.find()) {
                out.put(Long.parseUnsignedLong(m.group(1), 16), Long.parseLong(m.group(2), 16));
            }
        }
        return out;
    }

    /** Requests sent between two readings by every session listed in {@code after}. */
    public static long between(Map<Long, Long> before, Map<Long, Long> after) {
        long sum = 0;
        for (Map.Entry<Long, Long> e : after.entrySet()) {
            sum += e.getValue() - before.getOrDefault(e.getKey(), 0L);
        }
        return sum;
    }

    /**
     * The watch notifications the server on loopback {@code port} has sent so far: the sums of its
     * {@code node_*_watch_count} summaries, from {@code mntr} (one per watching session per change).
     * Read before and after a window, the difference is the events the window cost.
     */
    public static long watchEvents(int port) {
        String mntr = EmbeddedEnsemble.fourLetterWord(port, "mntr")
                .orElseThrow(() -> new IllegalStateException("the server on port " + port + " did not answer 'mntr'"));
        long sum = 0;
        int found = 0;
        for (String line : mntr.split("\n")) {
            String[] kv = line.trim().split("\\s+");
            if (kv.length == 2 && WATCH_SUMS.contains(kv[0])) {
                sum += (long) Double.parseDouble(kv[1]);
                found++;
            }
        }
        if (found != WATCH_SUMS.size()) {
            throw new IllegalStateException("'mntr' of the server on port " + port + " lacks some of " + WATCH_SUMS);
        }
        return sum;
    }
}
