package io.coord.membership;

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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A Java main class in a child JVM, on this JVM's classpath, read line by line: private stand-in
 * for coord-test's ChildJvm until it is on main. {@link #close()} always destroys the process.
 */
final class ChildProcess implements AutoCloseable {
    private final Process process;
    private final BufferedReader out;
    private final Path stderr;

    private ChildProcess(Process process, Path stderr) {
        this.process = process;
        this.stderr = stderr;
        this.out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    }

    static ChildProcess start(Class<?> main, String... args) {
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx128m", "-XX:TieredStopAtLevel=1", "-Djava.net.preferIPv4Stack=true", "-cp", classpath, main.getName()));
        command.addAll(List.of(args));
        try {
            Path stderr = Files.createTempFile("coord-child-", ".log");
            Process p = new ProcessBuilder(command).redirectError(stderr.toFile()).start();
            return new ChildProcess(p, stderr);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The next line of output within {@code timeoutMs}, or an AssertionError with the child's stderr. */
    String readLine(long timeoutMs) throws Exception {
        CompletableFuture<String> line = CompletableFuture.supplyAsync(() -> {
            try {
                return out.readLine();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        try {
            String s = line.get(timeoutMs, TimeUnit.MILLISECONDS);
            if (s == null) {
                throw new AssertionError("child ended without output; stderr:\n" + stderrTail());
            }
            return s;
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("no line from the child within " + timeoutMs + " ms; stderr:\n" + stderrTail());
        }
    }

    long pid() {
        return process.pid();
    }

    /** SIGKILL: the child dies without running any shutdown code. Waits until it is gone. */
    void kill9() throws Exception {
        new ProcessBuilder("kill", "-9", Long.toString(process.pid())).start().waitFor(10, TimeUnit.SECONDS);
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            throw new AssertionError("child " + process.pid() + " survived kill -9");
        }
    }

    String stderrTail() {
        try {
            List<String> lines = Files.readAllLines(stderr);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        } catch (IOException e) {
            return "(unreadable: " + e + ")";
        }
    }

    @Override
    public void close() throws Exception {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
        File f = stderr.toFile();
        if (!f.delete()) {
            f.deleteOnExit();
        }
    }
}
