package io.coord.config;

import java.util.Objects;

/**
 * An update a reader refused to apply: it keeps its last good value. Logged, counted in
 * {@code coord.config.rejected} and given to {@link ConfigListener#onRejected}.
 *
 * @param path     the node whose value was refused
 * @param version  its znode version
 * @param revision its {@code mzxid}
 * @param reason   what kind of problem: {@code parse} (not JSON, BOM, empty, too deep, wrong
 *                 type, unknown field), {@code validation} (the key's validator said no) or
 *                 {@code too-large}
 * @param error    the whole message, naming the path and the problem (line and column for JSON)
 */
public record ConfigRejection(String path, long version, long revision, String reason, String error) {
    public ConfigRejection {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(error, "error");
    }

    @Override
    public String toString() {
        return "rejected " + path + " v" + version + " (rev 0x" + Long.toHexString(revision) + ", " + reason + "): " + error;
    }
}
