package io.coord.queue;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A test program in a child JVM whose stdout lines go to a shared queue as {@code "<id> <line>"}.
 * A private stand-in for coord-test's ChildJvm: {@link #kill9()} is SIGKILL (no shutdown code
 * runs), {@link #close()} always destroys the process.
 */
final class Child implements AutoCloseable {
    private final int id;
    private final Process process;
    private final Path stderr;

    private Child(int id, Process process, Path stderr, BlockingQueue<String> lines) {
        this.id = id;
        this.process = process;
        this.stderr = stderr;
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    lines.add(id + " " + line);
                }
            } catch (IOException e) {
                // the process died: its output simply ends
            }
        }, "child-" + id + "-stdout");
        reader.setDaemon(true);
        reader.start();
    }

    static Child start(int id, BlockingQueue<String> lines, String mainClass, String... args) {
        String cp = System.getProperty("surefire.test.class.path");
        if (cp == null || cp.isBlank()) {
            cp = System.getProperty("java.class.path");
        }
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx96m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Djava.net.preferIPv4Stack=true",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-cp", String.join(File.pathSeparator, cp.split(File.pathSeparator)),
                mainClass));
        command.addAll(List.of(args));
        try {
            Path err = Files.createTempFile("coord-queue-child-", ".stderr");
            Process p = new ProcessBuilder(command).redirectError(err.toFile()).start();
            return new Child(id, p, err, lines);
        } catch (IOException e) {
            throw new UncheckedIOException("could not start child JVM " + mainClass, e);
        }
    }

    int id() {
        return id;
    }

    boolean isAlive() {
        return process.isAlive();
    }

    long pid() {
        return process.pid();
    }

    /** SIGSTOP: no thread of the child runs, no heartbeat is sent, until {@link #resume()}. */
    void pause() throws Exception {
        signal("STOP");
    }

    /** SIGCONT. */
    void resume() throws Exception {
        signal("CONT");
    }

    private void signal(String sig) throws Exception {
        Process kill = new ProcessBuilder("/bin/kill", "-" + sig, Long.toString(process.pid())).redirectErrorStream(true).start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new AssertionError("/bin/kill -" + sig + " " + process.pid() + " failed");
        }
    }

    /** SIGKILL, and wait until the process is gone. */
    void kill9() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            throw new AssertionError("child " + id + " did not die within 10 s of SIGKILL");
        }
    }

    String stderrTail() {
        try {
            List<String> all = Files.readAllLines(stderr, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - 15), all.size()));
        } catch (IOException e) {
            return "";
        }
    }

    @Override
    public void close() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
        try {
            Files.deleteIfExists(stderr);
        } catch (IOException e) {
            // a temporary file
        }
    }
}
