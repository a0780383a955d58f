package io.coord.chaos;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The worker's end of the line protocol: one line out per {@link #send}, lines in from the
 * controller through a reader thread (so a worker can wait for a command with a bound).
 *
 * <p>The reader thread ends the process when the controller's side of stdin closes (the controller
 * died or closed the link): a worker must never outlive its controller.
 */
public final class WorkerIo {
    private static final String EOF = "\u0000eof";

    private final PrintStream out;
    private final BlockingQueue<String> in = new LinkedBlockingQueue<>();

    WorkerIo() {
        this.out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        Thread reader = new Thread(this::pump, "chaos-worker-stdin");
        reader.setDaemon(true);
        reader.start();
    }

    private void pump() {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                in.add(line);
            }
        } catch (IOException e) {
            // stdin broken: same as closed
        }
        in.add(EOF);
    }

    /** Sends one line to the controller. Thread-safe (PrintStream is synchronized). */
    public void send(String line) {
        out.println(line);
    }

    /**
     * The next line from the controller, waiting at most {@code timeout}. Throws
     * {@link ControllerGoneException} when stdin has ended.
     */
    public String next(Duration timeout) throws InterruptedException {
        String line = in.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
        if (line == null) {
            throw new IllegalStateException("no command from the controller within " + timeout.toMillis() + " ms");
        }
        if (line == EOF) {
            in.add(EOF);
            throw new ControllerGoneException();
        }
        return line;
    }

    /** stdin ended: the controller is gone, and so must this worker be. */
    public static final class ControllerGoneException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        ControllerGoneException() {
            super("the controller closed stdin");
        }
    }
}
