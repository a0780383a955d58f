package io.coord.test;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A Java program in a child process, driven line by line over its stdin and stdout: the way to put
 * a client (or a server) where the test can {@linkplain #pause() SIGSTOP} or
 * {@linkplain #kill9() kill -9} it (faults F1, F7, F13).
 *
 * <p>The child runs {@code java -cp <this JVM's classpath> <mainClass> <args>}. Under Maven
 * Surefire the classpath comes from {@code surefire.test.class.path}, because surefire hides the
 * real one behind a manifest-only jar. Its stderr goes to a temporary file ({@link #stderr()}).
 *
 * <p>{@link #close()} always destroys the process, also when it is paused; a shutdown hook does
 * the same for children still alive when the test JVM exits, so a failed test leaves no orphan.
 * Java has no signal API: {@code /bin/kill} sends SIGSTOP and SIGCONT.
 */
public final class ChildJvm implements AutoCloseable {
    private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();
    private static final String EOF = "\u0000eof";

    static {
        Thread hook = new Thread(() -> LIVE.forEach(Process::destroyForcibly), "coord-child-jvm-reaper");
        Runtime.getRuntime().addShutdownHook(hook);
    }

    private final String name;
    private final Process process;
    private final BufferedWriter stdin;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final Path stderr;
    private volatile boolean ended;

    private ChildJvm(String name, Process process, Path stderr) {
        this.name = name;
        this.process = process;
        this.stderr = stderr;
        this.stdin = new BufferedWriter(new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8));
        Thread reader = new Thread(this::pump, "coord-child-jvm-stdout-" + process.pid());
        reader.setDaemon(true);
        reader.start();
    }

    /** Starts {@code mainClass} with {@code args} in a new JVM with the default options. */
    public static ChildJvm start(String mainClass, String... args) {
        return builder(mainClass).args(args).start();
    }

    public static Builder builder(String mainClass) {
        return new Builder(mainClass);
    }

    /** How to start a child JVM. */
    public static final class Builder {
        private final String mainClass;
        private final List<String> args = new ArrayList<>();
        private final List<String> jvmOptions = new ArrayList<>(List.of(
                "-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Djava.net.preferIPv4Stack=true"));
        private final List<String> prefix = new ArrayList<>();
        private final Map<String, String> env = new java.util.HashMap<>();

        private Builder(String mainClass) {
            if (mainClass == null || mainClass.isBlank()) {
                throw new IllegalArgumentException("mainClass must be a class name, got '" + mainClass + "'");
            }
            this.mainClass = mainClass;
        }

        public Builder args(String... values) {
            args.addAll(List.of(values));
            return this;
        }

        /** Extra JVM options, e.g. {@code -Dkey=value}. */
        public Builder jvmOption(String option) {
            jvmOptions.add(option);
            return this;
        }

        /** A command that wraps {@code java}, e.g. {@code faketime -f x10} (fault F12). */
        public Builder wrappedBy(String... command) {
            prefix.addAll(List.of(command));
            return this;
        }

        public Builder env(String key, String value) {
            env.put(key, value);
            return this;
        }

        public ChildJvm start() {
            List<String> command = new ArrayList<>(prefix);
            command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            command.addAll(jvmOptions);
            command.add("-cp");
            command.add(classpath());
            command.add(mainClass);
            command.addAll(args);
            try {
                Path err = Files.createTempFile("coord-child-", ".stderr");
                ProcessBuilder pb = new ProcessBuilder(command).redirectError(err.toFile());
                pb.environment().putAll(env);
                Process p = pb.start();
                LIVE.add(p);
                return new ChildJvm(mainClass.substring(mainClass.lastIndexOf('.') + 1), p, err);
            } catch (IOException e) {
                throw new UncheckedIOException("could not start a child JVM for " + mainClass + " with " + command.subList(0, prefix.size() + 1), e);
            }
        }
    }

    /** The classpath a child needs to load this JVM's classes. */
    static String classpath() {
        String surefire = System.getProperty("surefire.test.class.path");
        String cp = surefire != null && !surefire.isBlank() ? surefire : System.getProperty("java.class.path");
        return String.join(File.pathSeparator, cp.split(File.pathSeparator));
    }

    private void pump() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                lines.add(line);
            }
        } catch (IOException e) {
            // the process died or was destroyed: same as end of output
        } finally {
            ended = true;
            lines.add(EOF);
        }
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** Sends one line to the child's stdin. */
    public void send(String line) {
        if (line.indexOf('\n') >= 0) {
            throw new IllegalArgumentException("a command is one line; got one with a newline: '" + line + "'");
        }
        try {
            stdin.write(line);
            stdin.newLine();
            stdin.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("could not write to child " + this + " (it has exited?)", e);
        }
    }

    /**
     * The next line the child printed, waiting at most {@code timeout} (not scaled: the caller
     * chooses the bound, often to show that a paused child does <em>not</em> answer). Empty if
     * nothing came in time or the child's output has ended.
     */
    public Optional<String> readLine(Duration timeout) {
        try {
            String line = lines.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
            if (line == null) {
                return Optional.empty();
            }
            if (line == EOF) {
                lines.add(EOF); // keep reporting the end to later readers
                return Optional.empty();
            }
            return Optional.of(line);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading from child " + this, e);
        }
    }

    /**
     * Sends {@code command} and returns the first line of the answer, waiting at most
     * {@code timeout} (scaled); fails with an {@link AssertionError} naming the command otherwise.
     */
    public String request(String command, Duration timeout) {
        send(command);
        return expectLine(command, timeout);
    }

    /** The next line within {@code timeout} (scaled), or an {@link AssertionError} naming what was awaited. */
    public String expectLine(String what, Duration timeout) {
        Duration bound = Awaits.scaled(timeout);
        return readLine(bound).orElseThrow(() -> new AssertionError("child " + this + " gave no answer to '" + what + "' within "
                + bound.toMillis() + " ms" + (ended ? " (its output ended; exit " + exitText() + ")" : "") + stderrTail()));
    }

    /**
     * SIGSTOP, and returns once every thread of the child has stopped (no thread runs, no heartbeat
     * is sent, nothing more is printed).
     *
     * <p>{@code kill} returns before the stop is complete: the kernel hands SIGSTOP to one thread,
     * and that thread stops the others only when it next runs. On a loaded machine the launcher's
     * idle main thread it picks may wait for a core while another thread still runs; CI saw a child
     * answer a {@code ping} sent after {@code kill -STOP} had returned. So the stop is confirmed in
     * {@code /proc/<pid>/task/*&#47;stat} (Linux; elsewhere the signal alone has to do). If the stop
     * cannot be confirmed within 10 s (scaled), the child is sent SIGCONT and this throws: it is
     * either paused or running, never left stopped behind a failed call.
     */
    public void pause() {
        signal("STOP");
        try {
            awaitEveryThreadStopped(Duration.ofSeconds(10));
        } catch (RuntimeException e) {
            // Either paused or not, never half: a caller whose pause() failed must not leave a child stopped.
            signal("CONT");
            throw e;
        }
    }

    private void awaitEveryThreadStopped(Duration timeout) {
        Path tasks = Path.of("/proc", Long.toString(process.pid()), "task");
        if (!Files.isDirectory(tasks)) {
            return;
        }
        long deadline = System.nanoTime() + Awaits.scaled(timeout).toNanos();
        List<String> running = threadsStillRunning(tasks);
        while (!running.isEmpty() && process.isAlive()) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("child " + this + " was sent SIGSTOP but these threads still run after "
                        + Awaits.scaled(timeout).toMillis() + " ms: " + running);
            }
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for child " + this + " to stop", e);
            }
            running = threadsStillRunning(tasks);
        }
    }

    /** Threads whose state is neither stopped (T, t) nor exiting (Z, X), as "tid:state". */
    private static List<String> threadsStillRunning(Path tasks) {
        List<String> running = new ArrayList<>();
        try (var dirs = Files.list(tasks)) {
            for (Path task : (Iterable<Path>) dirs::iterator) {
                String stat;
                try {
                    stat = Files.readString(task.resolve("stat"), StandardCharsets.US_ASCII);
                } catch (IOException e) {
                    continue; // the thread ended between the listing and the read
                }
                // "tid (comm) S ...": comm may hold spaces and parentheses, the state follows the last ')'
                String afterComm = stat.substring(stat.lastIndexOf(')') + 1).trim();
                char state = afterComm.isEmpty() ? '?' : afterComm.charAt(0);
                if ("TtZX".indexOf(state) < 0) {
                    running.add(task.getFileName() + ":" + state);
                }
            }
        } catch (IOException | UncheckedIOException e) {
            // the process is gone: nothing runs
        }
        return running;
    }

    /** SIGCONT after {@link #pause()}. */
    public void resume() {
        signal("CONT");
    }

    /** SIGKILL: the child dies without running any shutdown code (fault F13). Waits until it is gone. */
    public void kill9() {
        signal("KILL");
        awaitExit(Duration.ofSeconds(10));
    }

    private void signal(String sig) {
        if (!process.isAlive()) {
            throw new IllegalStateException("cannot send SIG" + sig + " to child " + this + ": it has exited (" + exitText() + ")");
        }
        try {
            Process kill = new ProcessBuilder("/bin/kill", "-" + sig, Long.toString(process.pid()))
                    .redirectErrorStream(true).start();
            if (!kill.waitFor(10, TimeUnit.SECONDS)) {
                kill.destroyForcibly();
                throw new IllegalStateException("/bin/kill -" + sig + " " + process.pid() + " did not finish in 10 s");
            }
            if (kill.exitValue() != 0) {
                String out = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
                throw new IllegalStateException("/bin/kill -" + sig + " " + process.pid() + " failed (" + kill.exitValue() + "): " + out);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not run /bin/kill -" + sig, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while signalling child " + this, e);
        }
    }

    /** Waits (at most {@code timeout}, scaled) for the child to exit; returns its exit code. */
    public int awaitExit(Duration timeout) {
        Duration bound = Awaits.scaled(timeout);
        try {
            if (!process.waitFor(bound.toNanos(), TimeUnit.NANOSECONDS)) {
                throw new AssertionError("child " + this + " did not exit within " + bound.toMillis() + " ms");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for child " + this, e);
        }
        LIVE.remove(process);
        return process.exitValue();
    }

    /** Where the child's stderr goes (its log, with slf4j-simple). */
    public Path stderr() {
        return stderr;
    }

    /** The last lines of the child's stderr, for failure messages. */
    public String stderrTail() {
        try {
            List<String> all = Files.readAllLines(stderr, StandardCharsets.UTF_8);
            if (all.isEmpty()) {
                return "";
            }
            return "\n--- last stderr of " + this + " ---\n" + String.join("\n", all.subList(Math.max(0, all.size() - 20), all.size()));
        } catch (IOException | UncheckedIOException e) {
            return "";
        }
    }

    private String exitText() {
        return process.isAlive() ? "still running" : "exit code " + process.exitValue();
    }

    /**
     * Destroys the child (SIGKILL, which also ends a paused one), waits for it, and deletes its
     * stderr file. Idempotent; never throws.
     */
    @Override
    public void close() {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        LIVE.remove(process);
        try {
            stdin.close();
        } catch (IOException e) {
            // the pipe is already broken: nothing to release
        }
        try {
            Files.deleteIfExists(stderr);
        } catch (IOException e) {
            // a temporary file; the OS cleans it eventually
        }
    }

    @Override
    public String toString() {
        return name + "(pid " + process.pid() + ")";
    }
}
