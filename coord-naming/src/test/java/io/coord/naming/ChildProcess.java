package io.coord.naming;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A Java main in a child JVM whose stdout lines the test reads, and which the test can kill -9.
 * A small private stand-in for coord-test's ChildJvm. {@link #close()} always destroys it.
 */
final class ChildProcess implements AutoCloseable {
    private final Process process;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

    private ChildProcess(Process process) {
        this.process = process;
        Thread pump = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    lines.add(line);
                }
            } catch (IOException ended) {
                // the process is gone
            }
        }, "child-stdout-" + process.pid());
        pump.setDaemon(true);
        pump.start();
    }

    static ChildProcess start(Class<?> main, String... args) throws IOException {
        String surefire = System.getProperty("surefire.test.class.path");
        String cp = surefire != null && !surefire.isBlank() ? surefire : System.getProperty("java.class.path");
        List<String> command = new java.util.ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Djava.net.preferIPv4Stack=true",
                "-cp", String.join(File.pathSeparator, cp.split(File.pathSeparator)), main.getName()));
        command.addAll(List.of(args));
        return new ChildProcess(new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start());
    }

    /** The next line, waiting at most {@code budget}; fails the test if none comes. */
    String line(Duration budget) throws InterruptedException {
        String line = lines.poll(budget.toMillis(), TimeUnit.MILLISECONDS);
        if (line == null) {
            throw new AssertionError("the child printed nothing within " + budget + (process.isAlive() ? "" : " (it exited "
                    + process.exitValue() + ")"));
        }
        return line;
    }

    /** Lines printed so far and not yet read, without waiting. */
    List<String> drain() {
        List<String> out = new java.util.ArrayList<>();
        lines.drainTo(out);
        return out;
    }

    /** SIGKILL: no shutdown hooks, no finally blocks, no goodbye to ZooKeeper. */
    void kill9() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            throw new AssertionError("the child did not die within 10 s of SIGKILL");
        }
    }

    @Override
    public void close() {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
