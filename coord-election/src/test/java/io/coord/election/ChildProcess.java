package io.coord.election;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A child JVM running a main class of this module's test classpath, with its stdout lines handed
 * to a consumer (and kept). A private stand-in until coord-test's ChildJvm lands. Closing kills it.
 */
final class ChildProcess implements AutoCloseable {
    private final Process process;
    private final Writer stdin;
    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final Thread reader;

    ChildProcess(Class<?> main, List<String> args, Consumer<String> onLine) throws IOException {
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx64m");
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-Djava.net.preferIPv4Stack=true");
        command.add("-cp");
        command.add(classpath);
        command.add(main.getName());
        command.addAll(args);
        process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD)
                .directory(new File(".")).start();
        stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    lines.add(line);
                    onLine.accept(line);
                }
            } catch (IOException e) {
                // the child died: its stdout closed
            }
        }, "child-" + process.pid() + "-stdout");
        reader.setDaemon(true);
        reader.start();
    }

    long pid() {
        return process.pid();
    }

    List<String> lines() {
        return List.copyOf(lines);
    }

    boolean isAlive() {
        return process.isAlive();
    }

    void send(String command) throws IOException {
        stdin.write(command + "\n");
        stdin.flush();
    }

    /** SIGKILL: no shutdown hooks, no goodbye to ZooKeeper; its session ends by expiry. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            throw new AssertionError("child " + process.pid() + " did not die after SIGKILL");
        }
    }

    /** Asks it to quit, then kills it if it has not within {@code grace}. */
    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            try {
                send("quit");
            } catch (IOException ignored) {
                // already gone
            }
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        }
        reader.join(5000);
    }
}
