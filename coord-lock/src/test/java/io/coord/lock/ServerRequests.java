package io.coord.lock;

import io.coord.test.ZooKeeperExtension;
import io.coord.CoordClient;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Requests each session has sent, as the server counts them: the last client xid of each
 * connection from {@code cons}. Pings carry no xid, so only real requests count.
 */
final class ServerRequests {
    private static final Pattern LINE = Pattern.compile("sid=0x([0-9a-f]+),.*?lcxid=0x([0-9a-f]+)");

    private ServerRequests() {
    }

    static Map<Long, Long> bySession(ZooKeeperExtension server) {
        Map<Long, Long> out = new HashMap<>();
        for (String line : LockTesting.fourLetter(server, "cons").split("\n")) {
            Matcher m = LINE.matcher(line);
            if (m.find()) {
                out.put(Long.parseUnsignedLong(m.group(1), 16), Long.parseLong(m.group(2), 16));
            }
        }
        return out;
    }

    /** Request counts once nothing is in flight: two equal readings 200 ms apart (bounded). */
    static Map<Long, Long> settled(ZooKeeperExtension server) throws InterruptedException {
        Map<Long, Long> last = bySession(server);
        for (int i = 0; i < 50; i++) {
            Thread.sleep(200);
            Map<Long, Long> now = bySession(server);
            if (now.equals(last)) {
                return now;
            }
            last = now;
        }
        throw new AssertionError("the request counts never settled: " + last);
    }

    /** The server's watch table ({@code wchp}): path to the sessions watching it. */
    static Map<String, java.util.List<Long>> watchesByPath(ZooKeeperExtension server) {
        Map<String, java.util.List<Long>> out = new HashMap<>();
        String path = null;
        for (String line : LockTesting.fourLetter(server, "wchp").split("\n")) {
            if (line.startsWith("/")) {
                path = line.trim();
                out.put(path, new java.util.ArrayList<>());
            } else if (path != null && line.trim().startsWith("0x")) {
                out.get(path).add(Long.parseUnsignedLong(line.trim().substring(2), 16));
            }
        }
        return out;
    }

    static long sessionId(CoordClient client) {
        return client.session().id();
    }
}
