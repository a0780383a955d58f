package io.coord.cli.demo;

import io.coord.test.ChildJvm;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * The controller's end of one worker: the child JVM ({@link ChildJvm}: same classpath, its stderr
 * in a temporary file) and a thread that reads its lines and hands events and ledger requests to
 * the controller ({@link Sink}). See {@link Wire} for the protocol.
 */
final class WorkerProcess implements AutoCloseable {
    /** Where a worker's lines go. Called on the worker's reader thread. */
    interface Sink {
        void onEvent(WorkerProcess worker, String kind, Map<String, String> fields);

        /** Answers a ledger request ({@code READ} or {@code WRITE ...}). */
        String onRequest(WorkerProcess worker, String request, Map<String, String> fields);

        /** The worker's output ended (it exited or was killed). */
        void onEnd(WorkerProcess worker);
    }

    private final String name;
    private final ChildJvm jvm;
    private final Sink sink;
    private final Thread reader;

    private WorkerProcess(String name, ChildJvm jvm, Sink sink) {
        this.name = name;
        this.jvm = jvm;
        this.sink = sink;
        this.reader = new Thread(this::pump, "demo-" + name + "-reader");
        this.reader.setDaemon(true);
    }

    static WorkerProcess start(DemoWorker.Args args, Sink sink) {
        ChildJvm jvm = ChildJvm.builder(DemoWorker.class.getName()).args(args.toArgv()).start();
        return new WorkerProcess(args.name(), jvm, sink);
    }

    /** Starts handing the worker's lines to the sink (after the caller has registered the worker with it). */
    void startReading() {
        reader.start();
    }

    String name() {
        return name;
    }

    long pid() {
        return jvm.pid();
    }

    boolean isAlive() {
        return jvm.isAlive();
    }

    private void pump() {
        while (true) {
            Optional<String> line = jvm.readLine(Duration.ofMillis(500));
            if (line.isEmpty()) {
                if (!jvm.isAlive() && jvm.readLine(Duration.ofMillis(100)).isEmpty()) {
                    break;
                }
                continue;
            }
            String[] words = line.get().split(" ");
            try {
                if (words.length >= 2 && words[0].equals("E")) {
                    sink.onEvent(this, words[1], Wire.parse(words, 2));
                } else if (words.length >= 3 && words[0].equals("Q")) {
                    String answer = sink.onRequest(this, words[2], Wire.parse(words, 3));
                    send("R " + words[1] + " " + answer);
                }
            } catch (RuntimeException e) {
                sink.onEvent(this, "PROTOCOL", Map.of("line", line.get(), "error", String.valueOf(e.getMessage())));
            }
        }
        sink.onEnd(this);
    }

    /** Sends a command ({@code C ...}) or an answer; a worker that is gone no longer reads, which is fine. */
    void send(String line) {
        try {
            jvm.send(line);
        } catch (UncheckedIOException | IllegalStateException e) {
            // the worker has exited: nothing to tell it any more
        }
    }

    void command(String command) {
        send("C " + command);
    }

    void pause() {
        jvm.pause();
    }

    void resume() {
        jvm.resume();
    }

    void kill9() {
        jvm.kill9();
    }

    /** Waits for the worker to exit (at most {@code bound}); its exit code, or empty if it did not exit in time. */
    Optional<Integer> awaitExit(Duration bound) {
        try {
            return Optional.of(jvm.awaitExit(bound));
        } catch (AssertionError notYet) {
            return Optional.empty();
        }
    }

    /** The last lines the worker logged, for a failure report. */
    String stderrTail() {
        return jvm.stderrTail();
    }

    /** Kills the worker if it still runs (also a paused one) and stops reading. Idempotent. */
    @Override
    public void close() {
        close(null);
    }

    /** Like {@link #close()}, first copying the worker's log to {@code logs/<name>.log} if {@code logs} is not null. */
    void close(Path logs) {
        if (logs != null && Files.exists(jvm.stderr())) {
            try {
                Files.createDirectories(logs);
                Files.copy(jvm.stderr(), logs.resolve(name + ".log"), StandardCopyOption.REPLACE_EXISTING);
            } catch (IOException e) {
                // a convenience for debugging: the run's result does not depend on it
            }
        }
        jvm.close();
        try {
            reader.join(2_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return name + "(pid " + jvm.pid() + ")";
    }
}
