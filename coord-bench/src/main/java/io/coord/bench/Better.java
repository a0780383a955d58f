package io.coord.bench;

import java.util.Locale;

/** Which direction of a figure is an improvement: rates are better higher, latencies lower. */
public enum Better {
    HIGHER,
    LOWER;

    /** {@code "higher"} or {@code "lower"}, as written to the results file. */
    public String json() {
        return name().toLowerCase(Locale.ROOT);
    }
}
