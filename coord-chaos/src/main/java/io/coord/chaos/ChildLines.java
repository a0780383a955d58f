package io.coord.chaos;

import io.coord.test.ChildJvm;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Pumps the lines one child JVM prints to a handler, stamped with the controller's
 * {@link System#nanoTime()} when they arrive: the controller, not the child, keeps the history,
 * because the children's clocks are not comparable with each other or with the controller's.
 * One daemon thread per child; {@link #close()} stops it (bounded).
 */
final class ChildLines implements AutoCloseable {
    /** Told about each line, on the pump thread, in the order the child printed them. */
    @FunctionalInterface
    interface Handler {
        void line(String child, String line, long arrivedNanos);
    }

    private final String child;
    private final ChildJvm jvm;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final Thread thread;

    private ChildLines(String child, ChildJvm jvm, Handler handler) {
        this.child = child;
        this.jvm = jvm;
        this.thread = new Thread(() -> pump(handler), "chaos-lines-" + child);
        thread.setDaemon(true);
    }

    static ChildLines start(String child, ChildJvm jvm, Handler handler) {
        ChildLines lines = new ChildLines(child, jvm, handler);
        lines.thread.start();
        return lines;
    }

    private void pump(Handler handler) {
        while (running.get()) {
            Optional<String> line = jvm.readLine(Duration.ofMillis(50));
            if (line.isPresent()) {
                handler.line(child, line.get(), System.nanoTime());
            } else if (!jvm.isAlive()) {
                // drain what a dead child printed before it died, then stop
                for (Optional<String> l = jvm.readLine(Duration.ZERO); l.isPresent(); l = jvm.readLine(Duration.ZERO)) {
                    handler.line(child, l.get(), System.nanoTime());
                }
                return;
            }
        }
    }

    ChildJvm jvm() {
        return jvm;
    }

    String child() {
        return child;
    }

    /** Stops pumping (the child itself is closed by its owner). */
    @Override
    public void close() {
        running.set(false);
        try {
            thread.join(2_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
