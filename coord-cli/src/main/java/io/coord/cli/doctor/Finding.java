package io.coord.cli.doctor;

import java.util.Objects;

/**
 * One thing {@code coord doctor} found: how bad it is, which check saw it, where, what was seen and
 * what to do. The web console shows the same records.
 *
 * @param severity how bad
 * @param check    the check's short name, e.g. {@code lock.two-holders}
 * @param path     the znode (or server address) it is about
 * @param seen     what was seen, with the values that made it a finding
 * @param advice   what an operator should do about it
 */
public record Finding(Severity severity, String check, String path, String seen, String advice) {
    public Finding {
        Objects.requireNonNull(severity, "severity");
        Objects.requireNonNull(check, "check");
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(seen, "seen");
        Objects.requireNonNull(advice, "advice");
    }

    /** Ordered from least to most severe; the doctor's exit code follows the worst. */
    public enum Severity {
        INFO, WARNING, ERROR
    }
}
