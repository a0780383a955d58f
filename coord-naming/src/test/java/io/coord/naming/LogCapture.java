package io.coord.naming;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * What slf4j-simple (the test logger, which writes to {@code System.err} as it is at each call)
 * logs while this is open; {@link #close()} puts {@code System.err} back. For the WARN-once
 * checks: a foreign node must be logged, and only once.
 */
final class LogCapture implements AutoCloseable {
    private final PrintStream original = System.err;
    private final ByteArrayOutputStream captured = new ByteArrayOutputStream();

    LogCapture() {
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    }

    /** How many WARN lines so far name {@code path} (a node's path without namespace). */
    long warnings(String path) {
        return text().lines().filter(l -> l.contains("WARN") && l.contains(path)).count();
    }

    String text() {
        synchronized (captured) {
            return captured.toString(StandardCharsets.UTF_8);
        }
    }

    @Override
    public void close() {
        System.setErr(original);
    }
}
