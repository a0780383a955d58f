package io.coord.lock;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.coord.Codec;
import io.coord.CoordPath;
import java.net.InetAddress;

/**
 * What each lock node holds, as JSON: who asked (host, pid, owner), what kind of node it is, the
 * permits of a semaphore, and — once recorded — when it was granted. Only for people and the CLI:
 * no decision reads it.
 *
 * @param heldSince epoch milliseconds of the grant on the holder's clock; null until stamped
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
record HolderInfo(String host, long pid, String owner, String type, Integer permits, Long heldSince) {
    /** Small: it is written into every lock node, holders and waiters alike. */
    static final Codec<HolderInfo> CODEC = Codec.json(HolderInfo.class).withLimit(4096);

    private static final String HOST = hostName();

    static HolderInfo of(String owner, WaitRule.Type type, Integer permits) {
        return new HolderInfo(HOST, ProcessHandle.current().pid(), owner, type.label(), permits, null);
    }

    HolderInfo stamped(long heldSinceMillis) {
        return new HolderInfo(host, pid, owner, type, permits, heldSinceMillis);
    }

    byte[] encode(CoordPath node) {
        return CODEC.encode(node, this);
    }

    private static String hostName() {
        String env = System.getenv("HOSTNAME");
        if (env != null && !env.isBlank()) {
            return env;
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            return "unknown";
        }
    }
}
